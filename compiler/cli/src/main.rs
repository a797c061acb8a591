//! The `qrtl` command line (SPEC §2): clap and printing only; every stage
//! lives in the core and engine crates. Exit codes: 0 success, 1 bad input
//! (diagnostics on stderr), 2 usage errors. Never panics on input.

mod build;
mod common;
mod engines;
mod jobs;
mod programmable;
mod rice;
mod session;
mod split;
mod synth;
mod track;
mod xpath;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "qrtl",
    version,
    about = "Compile queries to FPGA RTL and verify it against software reference models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// XPath filtering: check queries, filter documents in software.
    #[command(subcommand)]
    Xpath(xpath::XpathCommand),
    /// Golomb-Rice: encode integers, decode streams in software, generate
    /// and simulate the hardware decoder.
    #[command(subcommand)]
    Rice(rice::RiceCommand),
    /// FlexTrack motion patterns: check, filter trajectories, compile, simulate.
    #[command(subcommand)]
    Track(track::TrackCommand),
    /// Area and Fmax of a generated project with the open tools (Yosys,
    /// nextpnr); prints one JSON object: target, luts, lut_eq, ffs,
    /// lutram, bram, fmax_mhz, seconds.
    #[command(after_help = synth::SYNTH_HELP)]
    Synth(synth::SynthArgs),
    /// Compile every design of a YAML design file (engine, inputs relative
    /// to the file, options named as on the command line) into projects:
    /// one design into DIR, a `designs:` list into DIR/NAME each.
    Build {
        /// Design file (YAML).
        design: PathBuf,
        /// Output directory (created if missing).
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
    },
}

fn main() {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            std::process::exit(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let code = match cli.command {
        Command::Xpath(cmd) => xpath::run(cmd),
        Command::Rice(cmd) => rice::run(cmd),
        Command::Track(cmd) => track::run(cmd),
        Command::Synth(args) => synth::run(&args),
        Command::Build { design, out } => build::run(&design, &out),
    };
    std::process::exit(code)
}
