// qrtl_gen_cmp: a value comparator of the programmable XPath engine
// (--programmable; emitted as is by compiler/xpath/src/emit/generic.rs).
`default_nettype none

// ---- one value comparator ------------------------------------------------------
// Its COMPARATOR record gives the kind (an attribute test or a text() test)
// and the attribute's name (64-bit words, matched byte by byte like a tag
// entry); its VALUE record the value test (a plan word and literal words
// of two 32-bit entries: config_words.rs `value_words`): never, always,
// string = / != ("equal so far", and a code point unit must equal the
// literal's character at the value's byte position), or a number (XPath
// 1.0: number(v) OP c as the position of the value's decimal D against c's
// rounding bounds, compared digit by digit as rtl-templates/xpath/vcmp.v
// does, with the digits and their counts from the scanner (s_*) and the
// bounds' digits read from the literal). Its state restarts with the
// scanner's; an attribute test records a hit at in_val_end, a text() test
// reports at in_text_end.
//
// The name and the literal share one block RAM of two banks (documents
// read the active one, the configuration writes the other, a commit swaps
// them) with a registered read: the address is formed a clock ahead from
// the state the scanner and the attribute name's position will have (a_*),
// since a name byte and a value unit never come in the same clock.
module qrtl_gen_cmp #(
    parameter NAW = 2,
    parameter LAW = 6
) (
    input  wire           clk,
    input  wire           rst,
    input  wire           w_hdr,       // COMPARATOR header: w_low = kind, operator, name bytes
    input  wire           w_name_we,   // a name word
    input  wire [NAW-1:0] w_name_at,
    input  wire           w_plan_we,   // the VALUE plan word
    input  wire           w_lit_we,    // a VALUE literal word (entries 2j, 2j + 1)
    input  wire [LAW-2:0] w_lit_at,
    input  wire [15:0]    w_low,
    input  wire [63:0]    w_word,
    input  wire           commit,
    input  wire [7:0]     in_byte,
    input  wire           in_name_first,
    input  wire           in_attr_name_byte,
    input  wire           in_attr_name_first,
    input  wire           in_val_end,
    // the attribute name's byte position (qrtl_gen_units): this byte's and
    // the bytes so far
    input  wire [8:0]     n_pos_cur,
    input  wire [8:0]     n_pos,
    input  wire           in_unit_is_cp,
    input  wire [7:0]     in_unit_byte,
    input  wire [20:0]    in_unit_cp,
    // the scanner (qrtl_gen_scan)
    input  wire           s_v_start,
    input  wire           s_v_unit,
    input  wire           s_in_frac,
    input  wire           s_frac_digit,
    input  wire           s_sig_digit,
    input  wire [3:0]     s_digit,
    input  wire [8:0]     s_cnt_cur,
    input  wire [8:0]     s_fpos_cur,
    input  wire [8:0]     s_cnt,
    input  wire [8:0]     s_fpos,
    input  wire           s_is_nan,
    input  wire           s_neg_nz,
    input  wire [8:0]     s_upos_cur,
    input  wire [8:0]     s_upos,
    // next clock's read: a name byte (its word) or a value unit (the
    // scanner's state before it)
    input  wire           a_name,
    input  wire [NAW-1:0] a_nword,
    input  wire [8:0]     a_cnt,
    input  wire [8:0]     a_fpos,
    input  wire           a_in_frac,
    input  wire [8:0]     a_upos,
    output reg            open_bit,    // the current start tag has a matching attribute
    output wire           text_hit     // with in_text_end: the text node passes
);
    localparam [2:0] M_TRUE = 3'd1, M_STR_EQ = 3'd2, M_STR_NE = 3'd3, M_NUM = 3'd4;
    localparam [2:0] OP_EQ = 3'd0, OP_NE = 3'd1, OP_LT = 3'd2, OP_LE = 3'd3, OP_GT = 3'd4;
    localparam [1:0] C_EQ = 2'd0, C_LT = 2'd1, C_GT = 2'd2;  // |D| against a bound

    // A region's address bits: the name's words, or the literal's.
    localparam RW = (NAW > LAW - 1) ? NAW : LAW - 1;

    // ---- configuration: shadow and active ----
    reg        bank;          // the active memory bank
    // {bank, literal, word}: the name's words, then the literal's
    (* ram_style = "block" *)
    reg [63:0] mem [0:(4 << RW) - 1];
    reg [1:0]  kind_sh, kind_ac;   // bit 0: an attribute test, bit 1: a text() test
    reg [7:0]  nlen_sh, nlen_ac;   // the attribute name's bytes
    reg [55:0] plan_sh, plan_ac;
    wire [RW-1:0] w_at = w_lit_we ? {{(RW - LAW + 1){1'b0}}, w_lit_at}
                                  : {{(RW - NAW){1'b0}}, w_name_at};
    always @(posedge clk) begin
        if (rst) begin
            bank <= 1'b0;
            kind_ac <= 2'd0;
            nlen_ac <= 8'd0;
            plan_ac <= 56'd0;
        end else begin
            if (w_hdr) begin
                // Kinds 0, 1: [@a], [@a OP v]; 2, 3: [text()], [text() OP v].
                kind_sh <= {w_low[15:13] == 3'd1, w_low[15:13] == 3'd0};
                nlen_sh <= w_low[7:0];
            end
            if (w_plan_we) plan_sh <= w_word[55:0];
            if (commit) begin
                bank <= ~bank;
                kind_ac <= kind_sh;
                nlen_ac <= nlen_sh;
                plan_ac <= plan_sh;
            end
        end
    end
    wire       is_attr = kind_ac[0];
    wire       is_text = kind_ac[1];
    wire [2:0] mode    = plan_ac[2:0];
    wire [2:0] op      = plan_ac[6:4];
    wire       lo_on   = plan_ac[8],  lo_neg = plan_ac[9],  lo_in = plan_ac[10];
    wire       hi_on   = plan_ac[11], hi_neg = plan_ac[12], hi_in = plan_ac[13];
    wire [7:0] len     = plan_ac[23:16];   // a string's bytes, a number's integer entries
    wire [7:0] lo_ni   = plan_ac[31:24], lo_nf = plan_ac[39:32];
    wire [7:0] hi_ni   = plan_ac[47:40], hi_nf = plan_ac[55:48];
    wire unused_cfg = &{1'b0, plan_ac[3], plan_ac[7], plan_ac[15:14], w_low[12:8], w_word[63:56]};

    // ---- the memory's read, a clock ahead ----
    // The literal entry next clock's unit reads: the string's byte at its
    // position, or the bounds' integer digit cnt / fraction digit fpos.
    wire        is_num = mode == M_NUM;
    wire [8:0]  a_addr = !is_num ? a_upos : a_in_frac ? {1'b0, len} + a_fpos : a_cnt;
    wire [RW-1:0] a_at = a_name ? {{(RW - NAW){1'b0}}, a_nword}
                                : {{(RW - LAW + 1){1'b0}}, a_addr[LAW-1:1]};
    reg  [63:0] word;          // the name's or the literal's word this clock
    reg         half;          // the literal entry's half of it
    always @(posedge clk) begin
        if (w_name_we || w_lit_we) mem[{~bank, w_lit_we, w_at}] <= w_word;
        word <= mem[{bank, !a_name, a_at}];
        half <= a_addr[0];
    end
    wire unused_addr = &{1'b0, a_addr[8:LAW]};

    // ---- the attribute name, byte by byte ----
    reg         alive;         // the bytes so far are the name's
    wire        name_in  = n_pos_cur < {1'b0, nlen_ac};
    wire        name_hit = alive && n_pos == {1'b0, nlen_ac};
    always @(posedge clk) begin
        if (rst) alive <= 1'b0;
        else if (in_attr_name_byte)
            alive <= (in_attr_name_first || alive) && name_in
                     && word[8 * n_pos_cur[2:0] +: 8] == in_byte;
    end

    // ---- the value ----
    reg  [1:0] lo_icmp, lo_fcmp, hi_icmp, hi_fcmp;   // first differences
    reg        ok;
    wire [1:0] lo_icmp_cur = s_v_start ? C_EQ : lo_icmp;
    wire [1:0] lo_fcmp_cur = s_v_start ? C_EQ : lo_fcmp;
    wire [1:0] hi_icmp_cur = s_v_start ? C_EQ : hi_icmp;
    wire [1:0] hi_fcmp_cur = s_v_start ? C_EQ : hi_fcmp;
    wire       ok_cur      = s_v_start ? 1'b1 : ok;
    wire [31:0] entry      = half ? word[63:32] : word[31:0];

    // -- string: while the value equals the literal so far, its byte
    // position (the scanner's upos) is the literal's
    wire       s_more     = s_upos_cur < {1'b0, len};
    wire       byte_match = s_more && entry[7:0] == in_unit_byte;
    wire       cp_match   = s_more && entry[8] && entry[31:11] == in_unit_cp;
    wire       unit_match = in_unit_is_cp ? cp_match : byte_match;
    wire       str_eq     = ok && s_upos == {1'b0, len};
    wire unused_entry = &{1'b0, entry[10:9]};

    // -- number: the bounds' digits here (0 past a bound's digits)
    wire [3:0] lo_d = (s_in_frac ? s_fpos_cur < {1'b0, lo_nf} : s_cnt_cur < {1'b0, lo_ni})
                      ? entry[3:0] : 4'd0;
    wire [3:0] hi_d = (s_in_frac ? s_fpos_cur < {1'b0, hi_nf} : s_cnt_cur < {1'b0, hi_ni})
                      ? entry[7:4] : 4'd0;

    function [1:0] digit_cmp;
        input [3:0] a;
        input [3:0] b;
        begin
            digit_cmp = (a < b) ? C_LT : (a > b) ? C_GT : C_EQ;
        end
    endfunction

    always @(posedge clk) begin
        if (rst) begin
            {lo_icmp, lo_fcmp, hi_icmp, hi_fcmp} <= {4{C_EQ}};
            ok <= 1'b1;
        end else if (s_v_start || s_v_unit) begin
            lo_icmp <= (s_sig_digit && lo_icmp_cur == C_EQ) ? digit_cmp(s_digit, lo_d) : lo_icmp_cur;
            hi_icmp <= (s_sig_digit && hi_icmp_cur == C_EQ) ? digit_cmp(s_digit, hi_d) : hi_icmp_cur;
            lo_fcmp <= (s_frac_digit && lo_fcmp_cur == C_EQ) ? digit_cmp(s_digit, lo_d) : lo_fcmp_cur;
            hi_fcmp <= (s_frac_digit && hi_fcmp_cur == C_EQ) ? digit_cmp(s_digit, hi_d) : hi_fcmp_cur;
            ok      <= ok_cur && (!s_v_unit || unit_match);
        end
    end

    // |D| against a bound's magnitude, from the state.
    function [1:0] mag;
        input [8:0] n_int;
        input [8:0] n_frac;
        input [1:0] icmp;
        input [1:0] fcmp;
        begin
            mag = (s_cnt > n_int) ? C_GT
                : (s_cnt < n_int) ? C_LT
                : (icmp != C_EQ) ? icmp
                : (fcmp != C_EQ) ? fcmp
                : (s_fpos < n_frac) ? C_LT
                : C_EQ;
        end
    endfunction
    wire [1:0] lo_mag = mag({1'b0, lo_ni}, {1'b0, lo_nf}, lo_icmp, lo_fcmp);
    wire [1:0] hi_mag = mag({1'b0, hi_ni}, {1'b0, hi_nf}, hi_icmp, hi_fcmp);
    // number(v) < c: D below the lower bound (or at it, outside);
    // number(v) > c: D above the upper bound (or at it, outside).
    wire below = lo_on && (!lo_neg
        ? s_neg_nz || lo_mag == C_LT || (!lo_in && lo_mag == C_EQ)
        : s_neg_nz && (lo_mag == C_GT || (!lo_in && lo_mag == C_EQ)));
    wire above = hi_on && (!hi_neg
        ? !s_neg_nz && (hi_mag == C_GT || (!hi_in && hi_mag == C_EQ))
        : !s_neg_nz || hi_mag == C_LT || (!hi_in && hi_mag == C_EQ));
    reg num_ok;
    always @* begin
        case (op)
            OP_EQ:   num_ok = !s_is_nan && !below && !above;
            OP_NE:   num_ok = s_is_nan || below || above;
            OP_LT:   num_ok = !s_is_nan && below;
            OP_LE:   num_ok = !s_is_nan && !above;
            OP_GT:   num_ok = !s_is_nan && above;
            default: num_ok = !s_is_nan && !below;   // >=
        endcase
    end

    reg value_ok;
    always @* begin
        case (mode)
            M_TRUE:   value_ok = 1'b1;
            M_STR_EQ: value_ok = str_eq;
            M_STR_NE: value_ok = !str_eq;
            M_NUM:    value_ok = num_ok;
            default:  value_ok = 1'b0;
        endcase
    end

    // An attribute test holds from the matching attribute's closing quote
    // until the next start tag begins.
    always @(posedge clk) begin
        if (rst || in_name_first) open_bit <= 1'b0;
        else if (in_val_end && is_attr && name_hit && value_ok) open_bit <= 1'b1;
    end
    assign text_hit = is_text && value_ok;
endmodule
