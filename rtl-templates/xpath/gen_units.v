// qrtl_gen_units: the condition units of the programmable XPath engine
// (--programmable; emitted as is by compiler/xpath/src/emit/generic.rs).
`default_nettype none

// ---- the condition units (stage 0) ---------------------------------------------
// K programmable value comparators (qrtl_gen_cmp) and P positional
// counters, configured by the COMPARATOR, VALUE, COUNTER and POSITION
// records (config_words.rs) that the loader passes on (u_*): shadow
// registers and memory banks, made active by `commit` (between documents).
// q_bits is this event's bit per unit, comparator k at bit k, counter j at
// bit KW + j: with in_open / in_open_empty the open-time bits (attribute
// tests of the opening element; counters: the element is counted and its
// count passes the test), with in_close the text() bits of the closing
// element (a text node child passed the test); an element closed by `/>`
// has no text. KW and PW are K and P, at least 1 (padding bits are 0).
module qrtl_gen_units #(
    parameter K = 8,
    parameter P = 4,
    parameter KW = 8,        // K, at least 1
    parameter PW = 4,        // P, at least 1
    parameter NAME_BYTES = 32,
    parameter NAW = 2,       // addresses a name's 64-bit words, at least 1
    parameter LAW = 6,       // addresses a literal's entries, at least 2
    parameter CODE_W = 7,
    parameter DEPTH = 32,
    parameter SP_W = 6,      // holds 0..DEPTH
    parameter DA = 5         // addresses DEPTH rows
) (
    input  wire              clk,
    input  wire              rst,
    // the loader's unit records: a header (u_hdr_en) or data word u_at
    // (u_data_en) of record u_kind for unit u_index; u_low the header's
    // payload
    input  wire              u_hdr_en,
    input  wire              u_data_en,
    input  wire [7:0]        u_kind,
    input  wire [15:0]       u_index,
    input  wire [15:0]       u_low,
    input  wire [15:0]       u_at,
    input  wire [63:0]       u_word,
    input  wire              commit,
    // the parser's events (stage 0) and the tag decoder's code
    input  wire [7:0]        in_byte,
    input  wire              in_name_first,
    input  wire              in_attr_name_byte,
    input  wire              in_attr_name_first,
    input  wire              in_val_start,
    input  wire              in_val_unit,
    input  wire              in_val_end,
    input  wire              in_text_unit,
    input  wire              in_text_end,
    input  wire              in_unit_is_cp,
    input  wire [7:0]        in_unit_byte,
    input  wire [20:0]       in_unit_cp,
    input  wire              in_open,
    input  wire              in_open_empty,
    input  wire              in_close,
    input  wire              in_doc_end,
    input  wire [CODE_W-1:0] in_code,
    // the events due next clock that the comparators' reads ahead need
    input  wire              a_attr_name_byte,
    input  wire              a_attr_name_first,
    input  wire              a_val_start,
    input  wire              a_val_end,
    input  wire              a_text_end,
    input  wire              a_doc_end,
    output wire [KW+PW-1:0]  q_bits
);
    localparam [7:0] K_COMPARATOR = 8'h04, K_COUNTER = 8'h05, K_VALUE = 8'h09,
                     K_POSITION = 8'h0A;
    localparam CW = 32;       // a sibling count, saturating

    wire cmp_rec = u_kind == K_COMPARATOR;
    wire val_rec = u_kind == K_VALUE;
    wire cnt_rec = u_kind == K_COUNTER;
    wire pos_rec = u_kind == K_POSITION;
    wire [15:0] at_m1 = u_at - 16'd1;
    // A COMPARATOR record's name: data words 1..ceil(name bytes / 8).
    wire [8:0]  name_up = {1'b0, u_low[7:0]} + 9'd7;
    wire name_word = u_data_en && cmp_rec && u_at != 16'd0 && at_m1 < {10'd0, name_up[8:3]};
    wire unused_name = &{1'b0, name_up[2:0]};

    // ---- comparators ----
    wire [KW-1:0] open_bits;   // the opening element's attribute tests
    wire [KW-1:0] text_hits;   // with in_text_end: the text node passed the test
    // The value scanner every comparator reads (unread without comparators).
    wire       v_start, v_unit, in_frac, frac_digit, sig_digit, is_nan, neg_nz, a_in_frac;
    wire [3:0] digit;
    wire [8:0] cnt_cur, fpos_cur, cnt, fpos, upos_cur, upos, a_cnt, a_fpos, a_upos;
    qrtl_gen_scan u_scan (
        .clk(clk), .rst(rst), .commit(commit),
        .in_val_start(in_val_start), .in_val_unit(in_val_unit), .in_val_end(in_val_end),
        .in_text_unit(in_text_unit), .in_text_end(in_text_end), .in_doc_end(in_doc_end),
        .in_unit_is_cp(in_unit_is_cp), .in_unit_byte(in_unit_byte), .in_unit_cp(in_unit_cp),
        .a_val_start(a_val_start), .a_val_end(a_val_end), .a_text_end(a_text_end),
        .a_doc_end(a_doc_end),
        .v_start(v_start), .v_unit(v_unit), .in_frac(in_frac), .frac_digit(frac_digit),
        .sig_digit(sig_digit), .digit(digit), .cnt_cur(cnt_cur), .fpos_cur(fpos_cur),
        .cnt(cnt), .fpos(fpos), .is_nan(is_nan), .neg_nz(neg_nz),
        .a_cnt(a_cnt), .a_fpos(a_fpos), .a_in_frac(a_in_frac), .a_upos(a_upos),
        .upos_cur(upos_cur), .upos(upos)
    );

    // The attribute name's byte position, for every comparator: this
    // byte's (n_pos_cur), the bytes so far (n_pos, saturating at
    // NAME_BYTES), and the word next clock's name byte reads.
    reg  [8:0] n_pos;
    wire [8:0] n_pos_cur = in_attr_name_first ? 9'd0 : n_pos;
    wire [8:0] n_pos_n = !in_attr_name_byte ? n_pos
                       : n_pos_cur == NAME_BYTES[8:0] ? n_pos_cur : n_pos_cur + 9'd1;
    wire [8:0] a_n_pos = a_attr_name_first ? 9'd0 : n_pos_n;
    always @(posedge clk) begin
        if (rst) n_pos <= 9'd0;
        else n_pos <= n_pos_n;
    end
    wire unused_n_pos = &{1'b0, a_n_pos[8:NAW+3], a_n_pos[2:0]};
    genvar g;
    generate
        for (g = 0; g < K; g = g + 1) begin : cmp
            wire mine = u_index == g;
            qrtl_gen_cmp #(
                .NAW(NAW), .LAW(LAW)
            ) u_cmp (
                .clk(clk), .rst(rst),
                .w_hdr(u_hdr_en && cmp_rec && mine),
                .w_name_we(name_word && mine), .w_name_at(at_m1[NAW-1:0]),
                .w_plan_we(u_data_en && val_rec && mine && u_at == 16'd0),
                .w_lit_we(u_data_en && val_rec && mine && u_at != 16'd0),
                .w_lit_at(at_m1[LAW-2:0]),
                .w_low(u_low), .w_word(u_word), .commit(commit),
                .in_byte(in_byte), .in_name_first(in_name_first),
                .in_attr_name_byte(in_attr_name_byte), .in_attr_name_first(in_attr_name_first),
                .in_val_end(in_val_end), .n_pos_cur(n_pos_cur), .n_pos(n_pos),
                .in_unit_is_cp(in_unit_is_cp), .in_unit_byte(in_unit_byte), .in_unit_cp(in_unit_cp),
                .s_v_start(v_start), .s_v_unit(v_unit), .s_in_frac(in_frac),
                .s_frac_digit(frac_digit), .s_sig_digit(sig_digit), .s_digit(digit),
                .s_cnt_cur(cnt_cur), .s_fpos_cur(fpos_cur), .s_cnt(cnt), .s_fpos(fpos),
                .s_is_nan(is_nan), .s_neg_nz(neg_nz),
                .s_upos_cur(upos_cur), .s_upos(upos),
                .a_name(a_attr_name_byte), .a_nword(a_n_pos[NAW+2:3]), .a_cnt(a_cnt),
                .a_fpos(a_fpos), .a_in_frac(a_in_frac), .a_upos(a_upos),
                .open_bit(open_bits[g]), .text_hit(text_hits[g])
            );
        end
        if (K == 0) begin : no_cmp
            assign open_bits = 1'b0;
            assign text_hits = 1'b0;
            wire unused_cmp = &{1'b0, name_word, val_rec, in_byte, in_name_first,
                                in_attr_name_byte, in_attr_name_first, in_val_end,
                                v_start, v_unit, in_frac, frac_digit, sig_digit, is_nan,
                                neg_nz, digit, cnt_cur, fpos_cur, cnt, fpos, upos_cur, upos,
                                a_cnt, a_fpos, a_in_frac, a_upos, a_attr_name_byte,
                                n_pos_cur, n_pos, a_n_pos};
        end
    endgenerate

    // ---- the rows of the open elements: per comparator a text() bit, per
    // counter its count of the element's children; the top row in
    // registers, the rows below in one memory ----
    reg  [SP_W-1:0]    sp;
    reg  [KW-1:0]      texts;
    reg  [CW*PW-1:0]   counts;
    reg  [KW+CW*PW-1:0] rows [0:DEPTH-1];
    wire [SP_W-1:0]    sp_up = sp - 1'b1;
    wire [KW+CW*PW-1:0] below = rows[sp_up[DA-1:0]];
    wire [CW*PW-1:0]   counts_next;   // the top row's counts after counting the opening element
    wire [PW-1:0]      hits;          // the opening element's counter bits
    wire push = in_open && !in_open_empty;

    // ---- positional counters ----
    generate
        if (P > 0) begin : counters
            reg [CODE_W-1:0] test_sh [0:P-1];
            reg [CODE_W-1:0] test_ac [0:P-1];
            reg [KW-1:0]     gc_sh [0:P-1];     // guard: comparators that must hold
            reg [KW-1:0]     gc_ac [0:P-1];
            reg [PW-1:0]     gp_sh [0:P-1];     // guard: earlier counters that must hold
            reg [PW-1:0]     gp_ac [0:P-1];
            reg [CW-1:0]     least_sh [0:P-1];
            reg [CW-1:0]     least_ac [0:P-1];
            reg [CW-1:0]     most_sh [0:P-1];
            reg [CW-1:0]     most_ac [0:P-1];
            reg [P-1:0]      wild_sh, wild_ac, neg_sh, neg_ac;
            // The guard bit a data word names, one-hot.
            reg [KW-1:0] guard_k;
            reg [PW-1:0] guard_p;
            integer b, i;
            always @* begin
                for (b = 0; b < KW; b = b + 1) guard_k[b] = u_word[15:0] == b[15:0];
                for (b = 0; b < PW; b = b + 1) guard_p[b] = u_word[15:0] == b[15:0];
            end
            always @(posedge clk) begin
                for (i = 0; i < P; i = i + 1) begin
                    if (u_hdr_en && cnt_rec && u_index == i[15:0]) begin
                        gc_sh[i] <= {KW{1'b0}};
                        gp_sh[i] <= {PW{1'b0}};
                    end
                    if (u_data_en && cnt_rec && u_index == i[15:0]) begin
                        if (u_at == 16'd0) begin
                            test_sh[i] <= u_word[CODE_W-1:0];
                            wild_sh[i] <= u_word[15:0] == 16'd0;
                        end else if (u_at != 16'd1) begin
                            if (u_word[63]) gp_sh[i] <= gp_sh[i] | guard_p;
                            else gc_sh[i] <= gc_sh[i] | guard_k;
                        end
                    end
                    if (u_data_en && pos_rec && u_index == i[15:0]) begin
                        least_sh[i] <= u_word[31:0];
                        most_sh[i]  <= u_word[63:32];
                        neg_sh[i]   <= u_low[0];
                    end
                    if (commit) begin
                        test_ac[i]  <= test_sh[i];
                        gc_ac[i]    <= gc_sh[i];
                        gp_ac[i]    <= gp_sh[i];
                        least_ac[i] <= least_sh[i];
                        most_ac[i]  <= most_sh[i];
                    end
                end
                if (commit) begin
                    wild_ac <= wild_sh;
                    neg_ac  <= neg_sh;
                end
            end

            // Per counter, what does not wait for the other counters: whether
            // the element counts by its tag and the comparators' bits
            // (`local_ok`) and its count if it does (saturating, `inc`).
            reg [P-1:0]      local_ok;
            reg [CW*PW-1:0]  inc;
            reg [CW-1:0]     c;
            integer j;
            always @* begin
                local_ok = {P{1'b0}};
                inc = counts;
                for (j = 0; j < P; j = j + 1) begin
                    c = counts[CW * j +: CW];
                    inc[CW * j +: CW] = c == {CW{1'b1}} ? c : c + 1'b1;
                    local_ok[j] = (wild_ac[j] || test_ac[j] == in_code)
                        && (gc_ac[j] & ~open_bits) == {KW{1'b0}};
                end
            end
            // Whether that count is in the predicate's range, a clock late:
            // the counts change only at an open, a close and a document's
            // end, and the next open comes at least three bytes (clocks)
            // after any of them (`<a>`, `</a>`, `<a/>`; stalls only add
            // clocks), so at an open `in_range` is that of the counts it
            // reads.
            reg [P-1:0] in_range;
            integer r;
            always @(posedge clk) begin
                for (r = 0; r < P; r = r + 1)
                    in_range[r] <= (inc[CW * r +: CW] >= least_ac[r]
                                    && inc[CW * r +: CW] <= most_ac[r]) != neg_ac[r];
            end
            // In counter order: a guard reads earlier counters' bits, so the
            // chain through the counters is these ANDs alone.
            reg [PW-1:0]     bits;
            reg [CW*PW-1:0]  next;
            reg              counted;
            integer m;
            always @* begin
                bits = {PW{1'b0}};
                next = counts;
                for (m = 0; m < P; m = m + 1) begin
                    counted = local_ok[m] && (gp_ac[m] & ~bits) == {PW{1'b0}};
                    if (counted) next[CW * m +: CW] = inc[CW * m +: CW];
                    bits[m] = counted && in_range[m];
                end
            end
            assign counts_next = next;
            assign hits = bits;
            wire unused_word = &{1'b0, u_word[62:32], u_low[15:1]};
        end else begin : no_counters
            assign counts_next = counts;
            assign hits = 1'b0;
            wire unused_counters = &{1'b0, cnt_rec, pos_rec, in_code};
        end
    endgenerate

    always @(posedge clk) begin
        if (push) rows[sp[DA-1:0]] <= {counts_next, texts};
    end
    always @(posedge clk) begin
        if (rst || in_doc_end) begin
            sp <= {SP_W{1'b0}};
            texts <= {KW{1'b0}};
            counts <= {(CW * PW){1'b0}};
        end else if (push) begin
            sp <= sp + 1'b1;
            texts <= {KW{1'b0}};
            counts <= {(CW * PW){1'b0}};
        end else if (in_open_empty) begin
            counts <= counts_next;
        end else if (in_close) begin
            sp <= sp_up;
            {counts, texts} <= below;
        end else if (in_text_end) begin
            texts <= texts | text_hits;
        end
    end

    assign q_bits = in_close ? {{PW{1'b0}}, texts} : {hits, open_bits};
    wire unused_units = &{1'b0, sp_up[SP_W-1:DA], u_low[15:8]};
endmodule
