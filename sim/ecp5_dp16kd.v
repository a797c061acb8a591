// A simulation model of the Lattice ECP5 DP16KD block RAM (true dual port,
// 16 Kbit), for tests only: it lets Verilator run RTL that instantiates the
// primitive (qrtl_sax under QRTL_TARGET_ECP5) against the same reference
// model as the inferred RAM. Yosys and nextpnr use the real cell.
//
// Covered, after the ECP5 sysMEM usage guide (TN1264): DATA_WIDTH 9 on both
// ports (2048 x 9, address on AD[13:3]), chip select decoding, WRITEMODE
// NORMAL (a write leaves the port's read latch as it was) and
// READBEFOREWRITE, REGMODE NOREG (DO is the read latch, loaded when CE) and
// OUTREG (DO is a second register, loaded from the latch when OCE), a
// synchronous RST clearing both. Any other parameter value stops the
// simulation at time 0 instead of being modelled wrongly.
//
// Lint: the primitive's string parameters are compared with literals of
// other lengths (WIDTH), two of them mean nothing in simulation
// (UNUSEDPARAM), and the module is named after the cell, not the file.
/* verilator lint_off WIDTH */
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off DECLFILENAME */
`default_nettype none

module DP16KD #(
    parameter integer DATA_WIDTH_A = 18,
    parameter integer DATA_WIDTH_B = 18,
    parameter REGMODE_A = "NOREG",
    parameter REGMODE_B = "NOREG",
    parameter RESETMODE = "SYNC",
    parameter ASYNC_RESET_RELEASE = "SYNC",
    parameter CSDECODE_A = "0b000",
    parameter CSDECODE_B = "0b000",
    parameter WRITEMODE_A = "NORMAL",
    parameter WRITEMODE_B = "NORMAL",
    parameter GSR = "ENABLED"
) (
    input  wire DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9,
    input  wire DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
    input  wire ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7,
    input  wire ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
    input  wire CEA, OCEA, CLKA, WEA, RSTA,
    input  wire CSA2, CSA1, CSA0,
    output wire DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9,
    output wire DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
    input  wire DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9,
    input  wire DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
    input  wire ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7,
    input  wire ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
    input  wire CEB, OCEB, CLKB, WEB, RSTB,
    input  wire CSB2, CSB1, CSB0,
    output wire DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9,
    output wire DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
    // Chip select: the port is enabled when CS[2:0] equals CSDECODE
    // ("0bXYZ": its last three characters).
    function [2:0] cs_code(input [8*3-1:0] s);
        begin
            cs_code = {s[23:16] == "1", s[15:8] == "1", s[7:0] == "1"};
        end
    endfunction
    localparam [2:0] CS_A = cs_code(CSDECODE_A);
    localparam [2:0] CS_B = cs_code(CSDECODE_B);

    initial begin
        if (DATA_WIDTH_A != 9 || DATA_WIDTH_B != 9) begin
            $display("DP16KD model: only DATA_WIDTH 9 is modelled");
            $stop;
        end
        if ((REGMODE_A != "NOREG" && REGMODE_A != "OUTREG")
            || (REGMODE_B != "NOREG" && REGMODE_B != "OUTREG")) begin
            $display("DP16KD model: REGMODE must be NOREG or OUTREG");
            $stop;
        end
        if ((WRITEMODE_A != "NORMAL" && WRITEMODE_A != "READBEFOREWRITE")
            || (WRITEMODE_B != "NORMAL" && WRITEMODE_B != "READBEFOREWRITE")) begin
            $display("DP16KD model: WRITEMODE must be NORMAL or READBEFOREWRITE");
            $stop;
        end
        if (RESETMODE != "SYNC") begin
            $display("DP16KD model: only RESETMODE SYNC is modelled");
            $stop;
        end
    end

    reg  [8:0] mem [0:2047];

    wire [10:0] ad_a = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3};
    wire [10:0] ad_b = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3};
    wire [8:0]  di_a = {DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
    wire [8:0]  di_b = {DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
    wire        sel_a = {CSA2, CSA1, CSA0} == CS_A;
    wire        sel_b = {CSB2, CSB1, CSB0} == CS_B;
    // Pins of the widths this model does not cover (x18 data, x1..x4 address bits).
    wire unused_pins = &{1'b0, ADA2, ADA1, ADA0, ADB2, ADB1, ADB0,
                         DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9,
                         DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9};

    reg  [8:0] latch_a, latch_b; // the read registers
    reg  [8:0] out_a, out_b;     // the output registers (OUTREG)
    always @(posedge CLKA) begin
        if (CEA && sel_a) begin
            if (RSTA) begin
                latch_a <= 9'd0;
            end else if (!WEA || WRITEMODE_A == "READBEFOREWRITE") begin
                latch_a <= mem[ad_a];
            end
            if (WEA) mem[ad_a] <= di_a;
        end
        if (RSTA) begin
            out_a <= 9'd0;
        end else if (OCEA) begin
            out_a <= latch_a;
        end
    end
    always @(posedge CLKB) begin
        if (CEB && sel_b) begin
            if (RSTB) begin
                latch_b <= 9'd0;
            end else if (!WEB || WRITEMODE_B == "READBEFOREWRITE") begin
                latch_b <= mem[ad_b];
            end
            if (WEB) mem[ad_b] <= di_b;
        end
        if (RSTB) begin
            out_b <= 9'd0;
        end else if (OCEB) begin
            out_b <= latch_b;
        end
    end
    wire [8:0] do_a = (REGMODE_A == "OUTREG") ? out_a : latch_a;
    wire [8:0] do_b = (REGMODE_B == "OUTREG") ? out_b : latch_b;
    assign {DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = do_a;
    assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9} = 9'd0;
    assign {DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = do_b;
    assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9} = 9'd0;
endmodule

`default_nettype wire
