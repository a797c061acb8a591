// qrtl_gen_decoder: the tag decoder of the programmable XPath engine
// (--programmable; emitted as is by compiler/xpath/src/emit/generic.rs).
`default_nettype none

// ---- the programmable tag decoder -------------------------------------------
// TAGS entries, each a name of up to TAG_BYTES bytes in a small memory of
// two banks: documents read the active bank, the configuration writes the
// other, and a commit swaps them. Each place holds a byte and an end bit:
// a name shorter than TAG_BYTES is followed by an end mark (end bit set,
// byte 0, which no name byte equals; the loader writes it first). Per
// entry an `alive` bit follows the element name byte by byte; at the
// name's end the entry still alive whose next place is the end mark (or
// which is full) gives the code (entry + 1; 0: none): no length register
// or comparator per entry, and the end bit costs no memory (a byte's
// distributed RAM holds a ninth bit).
//
// The code comes LATENCY (2) clocks after in_name_end: the entries' hits
// are registered at the name's end, and their OR the clock after, so
// neither the entry memories nor the OR over every entry shares a clock
// with the events (the top delays the parser's events to match). It is
// held until the next name's code replaces it, which is at least three
// clocks later (a name takes `<`, a byte and the byte that ends it).
module qrtl_gen_decoder #(
    parameter TAGS = 64,
    parameter TAG_BYTES = 32,
    parameter CODE_W = 7,   // holds 0..TAGS
    parameter AW = 5,       // addresses TAG_BYTES bytes
    parameter POS_W = 6     // holds 0..TAG_BYTES
) (
    input  wire              clk,
    input  wire              rst,
    // configuration writes (shadow bank and registers)
    input  wire              w_byte_en,
    input  wire [CODE_W-1:0] w_entry,
    input  wire [AW-1:0]     w_pos,
    input  wire [8:0]        w_byte,      // bit 8: the end mark
    input  wire              w_count_en,
    input  wire [CODE_W-1:0] w_count,
    input  wire              commit,
    // the parser's events
    input  wire              in_name_byte,
    input  wire              in_name_first,
    input  wire              in_name_end,
    input  wire [7:0]        in_byte,
    // the code of the last name that ended, LATENCY clocks after its
    // in_name_end (the top's localparam DECODER_LATENCY), until the next
    output wire [CODE_W-1:0] code
);
    reg              bank;        // the active bank
    reg [CODE_W-1:0] count_sh, count_ac;
    reg [POS_W-1:0]  pos;         // name bytes seen, saturating at TAG_BYTES
    wire             full = pos == TAG_BYTES[POS_W-1:0];
    reg [TAGS-1:0]   hit_q;       // the entries' hits at the last name's end
    reg              ended;       // hit_q is new this clock
    // Not a state machine (Yosys would extract one over every entry's hit).
    (* fsm_encoding = "none" *)
    reg [CODE_W-1:0] code_q;
    wire [POS_W-1:0] pos_cur = in_name_first ? {POS_W{1'b0}} : pos;
    wire [TAGS-1:0]  hit;         // entry e matches the whole name

    genvar e;
    generate
        for (e = 0; e < TAGS; e = e + 1) begin : entry
            reg [8:0] name [0:(2 << AW) - 1];
            reg       alive;
            always @(posedge clk) begin
                if (w_byte_en && w_entry == e) name[{~bank, w_pos}] <= w_byte;
            end
            // The entry's place at the name's next byte (past its last
            // byte at the name's end: the end mark if the lengths agree).
            wire [8:0] at = name[{bank, pos_cur[AW-1:0]}];
            always @(posedge clk) begin
                if (rst) alive <= 1'b0;
                else if (in_name_byte)
                    alive <= (in_name_first || alive) && at[7:0] == in_byte
                             && pos_cur != TAG_BYTES[POS_W-1:0];
            end
            assign hit[e] = alive && (full || at[8]) && e < count_ac;
        end
    endgenerate

    // At most one entry of the active configuration holds a name.
    reg [CODE_W-1:0] found;
    integer i;
    always @* begin
        found = {CODE_W{1'b0}};
        for (i = 0; i < TAGS; i = i + 1)
            if (hit_q[i]) found = found | i[CODE_W-1:0] + 1'b1;
    end

    always @(posedge clk) begin
        if (rst) begin
            bank     <= 1'b0;
            count_sh <= {CODE_W{1'b0}};
            count_ac <= {CODE_W{1'b0}};
            pos      <= {POS_W{1'b0}};
            hit_q    <= {TAGS{1'b0}};
            ended    <= 1'b0;
            code_q   <= {CODE_W{1'b0}};
        end else begin
            if (w_count_en) count_sh <= w_count;
            if (commit) begin
                bank     <= ~bank;
                count_ac <= count_sh;
            end
            if (in_name_byte && pos_cur != TAG_BYTES[POS_W-1:0]) pos <= pos_cur + 1'b1;
            else if (in_name_byte) pos <= pos_cur;
            ended <= in_name_end;
            if (in_name_end) hit_q <= hit;
            if (ended) code_q <= found;
        end
    end
    assign code = code_q;
endmodule
