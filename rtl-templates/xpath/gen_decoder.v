// qrtl_gen_decoder: the tag decoder of the programmable XPath engine
// (--programmable; emitted as is by compiler/xpath/src/emit/generic.rs).
`default_nettype none

// ---- the programmable tag decoder: a perfect hash, then one name compared ----
// The host finds, per configuration, a seed and per-bucket displacements
// under which every tag name has a slot of its own (ir/tag_hash.rs; the
// TAGHASH record). As an element name's bytes arrive, the decoder hashes
// them (x = rotl(h, 5) ^ byte, h = x + rotl(x, 13), from h = seed) and
// keeps them, zero after the last, in a capture register. At the name's
// end two more rounds finish the hash (f), then it reads the bucket's
// displacement ((f >> 16) mod B, a row of four in block RAM), then the
// code in slot (f mod M) XOR displacement (a row of four in block RAM), then the one name of that code (the name store:
// TAG_BYTES / 8 block RAMs of 64-bit words, zero after the name's last
// byte), and compares it with the captured name: equal, the element gets
// the code; else, or for a name longer than TAG_BYTES, 0. No name holds a
// zero byte, so equal words mean equal names.
//
// LATENCY (8) clocks from in_name_end to the code: the two rounds, the
// displacement, the slot, the slot's row, the code, the name's words and
// the compare each take a clock (a block RAM's output never drives a
// block RAM's address). Names end at least three clocks apart (`<`, a
// byte, the byte that ends it), so each stage holds one name, and the
// captured name is copied three times on the way. The code is held until the next name's replaces it.
//
// Everything the configuration writes has two banks: documents read the
// active one, the loader writes the other, a commit swaps them.
module qrtl_gen_decoder #(
    parameter TAG_BYTES = 32,
    parameter CODE_W = 7,   // holds 0..TAGS
    parameter EAW = 6,      // addresses the TAGS entries
    parameter AW = 5,       // addresses TAG_BYTES bytes
    parameter POS_W = 6,    // holds 0..TAG_BYTES
    parameter TRW = 6,      // addresses the slot table's rows (at least 1)
    parameter DRW = 4       // addresses the displacement table's rows (at least 1)
) (
    input  wire              clk,
    input  wire              rst,
    // the loader's name bytes: byte w_pos of entry w_entry, w_last on a
    // name's last byte
    input  wire              w_byte_en,
    input  wire [CODE_W-1:0] w_entry,
    input  wire [AW-1:0]     w_pos,
    input  wire [7:0]        w_byte,
    input  wire              w_last,
    // the loader's unit records (the TAGHASH record's header and words)
    input  wire              u_hdr_en,
    input  wire              u_data_en,
    input  wire [7:0]        u_kind,
    input  wire [15:0]       u_low,
    input  wire [15:0]       u_at,
    input  wire [63:0]       u_word,
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
    localparam [7:0] K_TAGHASH = 8'h0C;
    localparam NW = (TAG_BYTES + 7) / 8;     // the name store's words
    localparam CAP = 8 * TAG_BYTES;

    // ---- configuration: the seed and the table sizes (shadow and
    // active), the tables and the names (two banks) ----
    reg         bank;
    reg  [31:0] seed_sh, seed_ac;
    reg  [4:0]  slot_bits_sh, bucket_bits_sh;
    reg  [15:0] slot_mask, bucket_mask;      // active: M - 1, B - 1
    wire        hash_rec = u_kind == K_TAGHASH;
    wire [15:0] at_m1 = u_at - 16'd1;
    // The displacement rows come first: B / 4 of them (at least one).
    wire [15:0] d_rows = bucket_bits_sh < 5'd2 ? 16'd1 : 16'd1 << (bucket_bits_sh - 5'd2);
    wire [15:0] t_at = at_m1 - d_rows;
    (* ram_style = "block" *)
    reg  [63:0] dmem [0:(2 << DRW) - 1];     // {bank, row}: 4 displacements a row
    (* ram_style = "block" *)
    reg  [63:0] tmem [0:(2 << TRW) - 1];     // {bank, row}: 4 codes a row
    always @(posedge clk) begin
        if (u_data_en && hash_rec && u_at != 16'd0) begin
            if (at_m1 < d_rows) dmem[{~bank, at_m1[DRW-1:0]}] <= u_word;
            else tmem[{~bank, t_at[TRW-1:0]}] <= u_word;
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            bank <= 1'b0;
            seed_ac <= 32'd0;
            slot_mask <= 16'd1;
            bucket_mask <= 16'd0;
        end else begin
            if (u_hdr_en && hash_rec) begin
                slot_bits_sh <= u_low[12:8];
                bucket_bits_sh <= u_low[4:0];
            end
            if (u_data_en && hash_rec && u_at == 16'd0) seed_sh <= u_word[31:0];
            if (commit) begin
                bank <= ~bank;
                seed_ac <= seed_sh;
                slot_mask <= ~(16'hFFFF << slot_bits_sh);
                bucket_mask <= ~(16'hFFFF << bucket_bits_sh);
            end
        end
    end
    wire unused_cfg = &{1'b0, u_low[15:13], u_low[7:5], t_at[15:TRW], u_word[63:32]};

    // The name store: a name's bytes gather in `acc` and go out a word at a
    // time; its last byte also zeroes the words after it.
    wire [7:0]  wp = {{(8 - AW){1'b0}}, w_pos};
    reg  [63:0] acc;
    wire [63:0] acc_next = acc | ({56'd0, w_byte} << {wp[2:0], 3'b000});
    wire        flush = w_byte_en && (wp[2:0] == 3'd7 || w_last);
    always @(posedge clk) begin
        if (rst || flush) acc <= 64'd0;
        else if (w_byte_en) acc <= acc_next;
    end

    // ---- the name as it arrives: its hash, its bytes, its length ----
    reg  [31:0]      h;
    reg  [CAP-1:0]   cap;
    reg  [POS_W-1:0] pos;         // name bytes seen, saturating at TAG_BYTES
    reg              long;        // more than TAG_BYTES bytes
    wire [POS_W-1:0] pos_cur = in_name_first ? {POS_W{1'b0}} : pos;
    wire [31:0]      h_cur = in_name_first ? seed_ac : h;
    wire [31:0]      x = {h_cur[26:0], h_cur[31:27]} ^ {24'd0, in_byte};
    wire             at_end = pos_cur == TAG_BYTES[POS_W-1:0];
    always @(posedge clk) begin
        if (rst) begin
            pos <= {POS_W{1'b0}};
            long <= 1'b0;
        end else if (in_name_byte) begin
            h <= x + {x[18:0], x[31:19]};
            pos <= at_end ? pos_cur : pos_cur + 1'b1;
            long <= (!in_name_first && long) || at_end;
        end
    end
    genvar k;
    generate
        for (k = 0; k < TAG_BYTES; k = k + 1) begin : byte_k
            always @(posedge clk) begin
                if (in_name_byte && pos_cur == k) cap[8 * k +: 8] <= in_byte;
                else if (in_name_byte && in_name_first) cap[8 * k +: 8] <= 8'd0;
            end
        end
    endgenerate

    // ---- the lookup: one name per stage ----
    // The hash's two final rounds (tag_hash.rs `finish`), a clock each.
    function [31:0] round_a;
        input [31:0] v;
        reg   [31:0] y;
        begin
            y = v + {v[14:0], v[31:15]};
            round_a = y ^ {y[24:0], y[31:25]};
        end
    endfunction
    function [31:0] round_b;
        input [31:0] v;
        reg   [31:0] y;
        begin
            y = v + {v[20:0], v[31:21]};
            round_b = y ^ {y[8:0], y[31:9]};
        end
    endfunction
    reg  [31:0]    f1, f2, f3;
    reg  [CAP-1:0] cap1, cap3, cap5;
    reg            v1, v2, v3, v4, v5, v6, v7;
    reg            long1, long2, long3, long4, long5, long6, long7;
    reg  [63:0]    d_row, t_row;
    // The bucket's row of displacements, then the slot.
    wire [15:0]    bucket2 = f2[31:16] & bucket_mask;
    always @(posedge clk) begin
        d_row <= dmem[{bank, bucket2[DRW+1:2]}];
    end
    wire [15:0] bucket3 = f3[31:16] & bucket_mask;
    wire [15:0] disp = d_row[16 * bucket3[1:0] +: 16];
    reg  [15:0] slot4;
    // Then the slot's row of codes, and the code.
    always @(posedge clk) begin
        t_row <= tmem[{bank, slot4[TRW+1:2]}];
    end
    reg  [1:0]        sel5;
    reg  [CODE_W-1:0] code6, code7;
    wire [CODE_W-1:0] code_t = t_row[16 * sel5 +: CODE_W];
    wire [CODE_W-1:0] entry6 = code6 - 1'b1;
    reg  [CODE_W-1:0] code_q;
    wire              same;       // the stored name is the captured one
    always @(posedge clk) begin
        if (rst) begin
            {v1, v2, v3, v4, v5, v6, v7} <= 7'd0;
            code_q <= {CODE_W{1'b0}};
        end else begin
            {v1, v2, v3, v4, v5, v6, v7} <= {in_name_end, v1, v2, v3, v4, v5, v6};
            if (v7) code_q <= (!long7 && code7 != {CODE_W{1'b0}} && same) ? code7 : {CODE_W{1'b0}};
        end
        if (in_name_end) begin
            f1 <= round_a(h);
            cap1 <= cap;
            long1 <= long;
        end
        if (v1) begin
            f2 <= round_b(f1);
            long2 <= long1;
        end
        if (v2) begin
            f3 <= f2;
            cap3 <= cap1;
            long3 <= long2;
        end
        if (v3) begin
            slot4 <= (f3[15:0] ^ disp) & slot_mask;
            long4 <= long3;
        end
        if (v4) begin
            sel5 <= slot4[1:0];
            cap5 <= cap3;
            long5 <= long4;
        end
        if (v5) begin
            code6 <= code_t;
            long6 <= long5;
        end
        if (v6) begin
            code7 <= code6;
            long7 <= long6;
        end
    end
    wire [CODE_W:0] entry6_x = {1'b0, entry6};
    wire unused_lookup = &{1'b0, bucket2[15:DRW+2], bucket2[1:0], bucket3[15:2],
                           slot4[15:TRW+2], entry6_x[CODE_W:EAW]};

    // ---- the name store, one block RAM per 8 bytes ----
    wire [64*NW-1:0] stored;
    genvar w;
    generate
        for (w = 0; w < NW; w = w + 1) begin : word
            (* ram_style = "block" *)
            reg  [63:0] nmem [0:(2 << EAW) - 1];
            reg  [63:0] q;
            wire        mine = wp[7:3] == w;
            wire        after;       // a word after the name's last byte
            if (w == 0) begin : first
                assign after = 1'b0;
            end else begin : later
                assign after = wp[7:3] < w;
            end
            always @(posedge clk) begin
                if (flush && (mine || (w_last && after)))
                    nmem[{~bank, w_entry[EAW-1:0]}] <= mine ? acc_next : 64'd0;
                q <= nmem[{bank, entry6_x[EAW-1:0]}];
            end
            assign stored[64 * w +: 64] = q;
        end
    endgenerate
    assign same = stored == {{(64 * NW - CAP){1'b0}}, cap5};
    wire unused_entry = &{1'b0, w_entry};
    assign code = code_q;
endmodule
