//! The `qrtl` command line: clap only; every stage lives in the core and
//! engine crates.

mod cli;
mod track;

fn main() {
    std::process::exit(cli::main())
}
