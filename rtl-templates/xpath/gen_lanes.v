// qrtl_gen_lanes: a cluster's condition lanes in the programmable XPath
// engine (--programmable; emitted as is by compiler/xpath/src/emit/generic.rs).
`default_nettype none

// ---- a cluster's lanes ---------------------------------------------------------
// LANES selections of a unit bit, from the cluster's LANES record (one data
// word per lane: a comparator's index, or bit 63 and a counter's; lanes
// past the record's are off and read 0), shadow and active; in_commit (the
// cluster's stage) makes the shadow active. lanes[l] is the selected bit of
// in_bits, the unit bits travelling with the cluster's events.
module qrtl_gen_lanes #(
    parameter LANES = 8,
    parameter NU = 12,        // unit bits: KW comparators, then counters
    parameter KW = 8,
    parameter SEL_W = 4,      // holds 0..NU-1
    parameter CLUSTER = 0
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             u_hdr_en,
    input  wire             u_data_en,
    input  wire [7:0]       u_kind,
    input  wire [15:0]      u_index,
    input  wire [15:0]      u_at,
    input  wire [63:0]      u_word,
    input  wire             in_commit,
    input  wire [NU-1:0]    in_bits,
    output reg  [LANES-1:0] lanes
);
    localparam [7:0] K_LANES = 8'h06;
    reg [SEL_W-1:0] sel_sh [0:LANES-1];
    reg [SEL_W-1:0] sel_ac [0:LANES-1];
    reg [LANES-1:0] on_sh, on_ac;
    wire mine = u_kind == K_LANES && u_index == CLUSTER;
    wire [SEL_W-1:0] sel_in = u_word[63] ? KW[SEL_W-1:0] + u_word[SEL_W-1:0] : u_word[SEL_W-1:0];
    wire unused_word = &{1'b0, u_word[62:SEL_W], u_at[15:8]};
    integer l, u;
    always @(posedge clk) begin
        if (rst) begin
            on_sh <= {LANES{1'b0}};
            on_ac <= {LANES{1'b0}};
        end else begin
            if (u_hdr_en && mine) on_sh <= {LANES{1'b0}};
            for (l = 0; l < LANES; l = l + 1) begin
                if (u_data_en && mine && u_at[7:0] == l[7:0]) begin
                    on_sh[l] <= 1'b1;
                    sel_sh[l] <= sel_in;
                end
                if (in_commit) sel_ac[l] <= sel_sh[l];
            end
            if (in_commit) on_ac <= on_sh;
        end
    end
    always @* begin
        lanes = {LANES{1'b0}};
        for (l = 0; l < LANES; l = l + 1)
            for (u = 0; u < NU; u = u + 1)
                if (on_ac[l] && sel_ac[l] == u[SEL_W-1:0]) lanes[l] = in_bits[u];
    end
endmodule
