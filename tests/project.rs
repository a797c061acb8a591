//! Generated FPGA project (qrtl_core::project): every file is written with
//! the right top, clock period and ports, and the Yosys scripts run.

use std::path::{Path, PathBuf};
use std::process::Command;

use qrtl_core::project::{write_project, Port, PortDir, ProjectSpec};
use serde_json::{json, Value};

const TINY_V: &str = "\
// A byte accumulator: the smallest design with the qrtl port shape.
module tiny_top (
    input  wire        clk,
    input  wire        rst,
    input  wire [7:0]  in_byte,
    input  wire        in_valid,
    output reg  [31:0] sum
);
    always @(posedge clk) begin
        if (rst) sum <= 32'd0;
        else if (in_valid) sum <= sum + {24'd0, in_byte};
    end
endmodule
";

fn port(name: &str, dir: PortDir, width: u32, description: &str) -> Port {
    Port {
        name: name.into(),
        dir,
        width,
        description: description.into(),
    }
}

fn tiny_spec() -> ProjectSpec {
    ProjectSpec {
        name: "tiny".into(),
        top: "tiny_top".into(),
        rtl: vec![("tiny_top.v".into(), TINY_V.into())],
        clock_mhz: 250.0,
        clock_port: "clk".into(),
        reset_port: "rst".into(),
        ports: vec![
            port("clk", PortDir::Input, 1, "clock"),
            port("rst", PortDir::Input, 1, "synchronous reset, active high"),
            port("in_byte", PortDir::Input, 8, "byte to add"),
            port("in_valid", PortDir::Input, 1, "in_byte is valid"),
            port("sum", PortDir::Output, 32, "running sum"),
        ],
        manifest_extra: json!({"engine": "test", "queries": 3}),
        readme_extra: "## Extra section\n\nSpecial notes.".into(),
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qrtl-project-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn every_file_is_written_with_top_clock_and_ports() {
    let dir = temp_dir("files");
    write_project(&dir, &tiny_spec()).unwrap();

    assert_eq!(read(&dir, "rtl/tiny_top.v"), TINY_V);
    assert_eq!(read(&dir, "files.f"), "rtl/tiny_top.v\n");

    let xdc = read(&dir, "constraints/tiny_top.xdc");
    assert!(
        xdc.contains("create_clock -name clk -period 4 [get_ports clk]"),
        "{xdc}"
    );
    assert!(xdc.contains("set io_delay 1.2"), "{xdc}");
    assert!(xdc.contains("set_input_delay -clock clk $io_delay [get_ports {in_byte[*]}]"));
    assert!(xdc.contains("set_input_delay -clock clk $io_delay [get_ports rst]"));
    assert!(xdc.contains("set_output_delay -clock clk $io_delay [get_ports {sum[*]}]"));
    assert!(
        !xdc.contains("[get_ports clk]]"),
        "no input delay on the clock itself"
    );
    let sdc = read(&dir, "constraints/tiny_top.sdc");
    assert!(
        sdc.contains("create_clock -name clk -period 4 [get_ports clk]"),
        "{sdc}"
    );
    assert!(sdc.contains("set_input_delay -clock clk $io_delay [get_ports in_valid]"));
    let lpf = read(&dir, "constraints/tiny_top.lpf");
    assert!(lpf.contains("FREQUENCY PORT \"clk\" 250 MHZ;"), "{lpf}");
    let pcf = read(&dir, "constraints/tiny_top.pcf");
    assert!(pcf.contains("--freq 250"), "{pcf}");
    assert!(pcf.contains("set_io in_byte[0] <pin>"), "{pcf}");
    assert!(
        pcf.lines()
            .all(|l| l.trim().is_empty() || l.starts_with('#')),
        "no board pins are assigned"
    );

    let tcl = read(&dir, "vivado.tcl");
    assert!(tcl.contains("synth_design -top tiny_top -part $qrtl_part -mode out_of_context"));
    assert!(tcl.contains("set qrtl_part xc7a200tsbg484-1"));
    assert!(tcl.contains("read_xdc [file join $here constraints tiny_top.xdc]"));
    assert!(tcl.contains("files.f"));
    for step in [
        "opt_design",
        "place_design",
        "route_design",
        "report_utilization",
    ] {
        assert!(tcl.contains(step), "{step}");
    }
    assert!(tcl.contains("report_timing_summary -max_paths 20 -file [file join $here reports"));

    let xc7 = read(&dir, "synth/xc7.ys");
    assert!(xc7.contains("read_verilog -defer -DQRTL_TARGET_XC7 rtl/tiny_top.v"));
    assert!(xc7.contains("synth_xilinx -family xc7 -top tiny_top"));
    assert!(read(&dir, "synth/xc6v.ys").contains("synth_xilinx -family xc6v -top tiny_top"));
    assert!(read(&dir, "synth/ecp5.ys").contains("synth_ecp5 -top tiny_top -json build/ecp5.json"));
    assert!(
        read(&dir, "synth/ice40.ys").contains("synth_ice40 -top tiny_top -json build/ice40.json")
    );

    let mk = read(&dir, "Makefile");
    assert!(mk.contains("FREQ_MHZ ?= 250"));
    assert!(mk.contains("--lpf constraints/tiny_top.lpf"));
    assert!(mk.contains("--pcf constraints/tiny_top.pcf"));
    assert!(mk.contains("ECP5_DEVICE ?= --85k") && mk.contains("ECP5_PACKAGE ?= CABGA381"));
    assert!(mk.contains("\t$(YOSYS) -q -l build/xc7_yosys.log -s synth/xc7.ys"));

    let core = read(&dir, "tiny.core");
    assert!(core.starts_with("CAPI=2:"));
    assert!(core.contains("name: qrtl:generated:tiny:0.1.0"));
    assert!(core.contains("      - rtl/tiny_top.v"));
    assert!(core.contains("toplevel: tiny_top"));
    assert!(core.contains("      - constraints/tiny_top.xdc"));
    for target in ["  default:", "  sim:", "  synth:"] {
        assert!(core.contains(target), "{target}");
    }

    let readme = read(&dir, "README.md");
    assert!(readme.starts_with("# tiny\n"));
    assert!(readme.contains("| `in_byte` | input | 8 | byte to add |"));
    assert!(readme.contains("250 MHz (period 4 ns)"));
    assert!(readme
        .trim_end()
        .ends_with("## Extra section\n\nSpecial notes."));

    let m: Value = serde_json::from_str(&read(&dir, "manifest.json")).unwrap();
    assert_eq!(m["name"], "tiny");
    assert_eq!(m["top"], "tiny_top");
    assert_eq!(m["clock_mhz"], 250.0);
    assert_eq!(m["files"], json!(["rtl/tiny_top.v"]));
    assert_eq!(m["ports"].as_array().unwrap().len(), 5);
    assert_eq!(
        m["ports"][2],
        json!({"name": "in_byte", "dir": "input", "width": 8, "description": "byte to add"})
    );
    assert_eq!(m["engine"], "test");
    assert_eq!(m["queries"], 3);
    for (_, rel) in m["scripts"].as_object().unwrap() {
        assert!(dir.join(rel.as_str().unwrap()).is_file(), "{rel}");
    }
    assert!(dir.join("build/.gitignore").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn period_follows_clock() {
    let dir = temp_dir("period");
    let mut spec = tiny_spec();
    spec.clock_mhz = 300.0;
    write_project(&dir, &spec).unwrap();
    assert!(read(&dir, "constraints/tiny_top.xdc").contains("-period 3.333 "));
    assert!(read(&dir, "constraints/tiny_top.lpf").contains("\"clk\" 300 MHZ"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The generated Yosys scripts run on the tiny design (yosys is a required
/// tool: this test fails if it is missing).
#[test]
fn yosys_scripts_run() {
    let dir = temp_dir("yosys");
    write_project(&dir, &tiny_spec()).unwrap();
    for family in ["xc7", "xc6v", "ecp5", "ice40"] {
        let out = Command::new("yosys")
            .args(["-q", "-s", &format!("synth/{family}.ys")])
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("yosys not runnable ({e}); apt-get install yosys"));
        assert!(
            out.status.success(),
            "yosys synth/{family}.ys failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let stat = read(&dir, &format!("build/{family}_stat.txt"));
        assert!(stat.contains("tiny_top"), "{stat}");
        let json = read(&dir, &format!("build/{family}.json"));
        assert!(json.contains("\"tiny_top\""));
    }
    // 32 flip-flops for the sum, with a synchronous reset on Xilinx.
    assert!(read(&dir, "build/xc7_stat.txt").contains("FDRE"));
    std::fs::remove_dir_all(&dir).unwrap();
}
