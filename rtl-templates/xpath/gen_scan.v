// qrtl_gen_scan: the value scanner of the programmable XPath engine's
// comparators (--programmable; emitted as is by
// compiler/xpath/src/emit/generic.rs).
`default_nettype none

// ---- the value scanner --------------------------------------------------------
// One for all comparators: the value's number() syntax (vcmp.v's states)
// and its digit counts, which each comparator reads beside its own literal.
// Attribute values and text nodes never overlap, so one scan serves both:
// it restarts at a commit, at a value's start and end, at a text node's end
// and at a document's end, which leaves it fresh at the first unit of each
// value and each text node (a text node starts after a text node's end, a
// value's end or a document's start, and holds nothing but text units).
// The `_cur` outputs are the state that a unit this clock continues (fresh
// with v_start); cnt, fpos, is_nan and neg_nz the state after the last unit.
// The `a_` outputs are the state that next clock's unit will continue,
// from the events due next clock (`a_*` inputs): the comparators address
// their block RAM literals with them a clock ahead. upos counts a value's
// bytes before the unit (a code point unit is its UTF-8 length): a string
// literal's position while the value still equals it.
module qrtl_gen_scan (
    input  wire        clk,
    input  wire        rst,
    input  wire        commit,
    input  wire        in_val_start,
    input  wire        in_val_unit,
    input  wire        in_val_end,
    input  wire        in_text_unit,
    input  wire        in_text_end,
    input  wire        in_doc_end,
    input  wire        in_unit_is_cp,
    input  wire [7:0]  in_unit_byte,
    input  wire [20:0] in_unit_cp,
    // next clock's restarts
    input  wire        a_val_start,
    input  wire        a_val_end,
    input  wire        a_text_end,
    input  wire        a_doc_end,
    output wire        v_start,     // the value restarts this clock
    output wire        v_unit,      // a unit of a value or a text node this clock
    output wire        in_frac,     // the unit continues a fraction
    output wire        frac_digit,  // the unit is a fraction digit
    output wire        sig_digit,   // an integer digit that is not a leading zero
    output wire [3:0]  digit,
    output wire [8:0]  cnt_cur,     // significant integer digits before the unit
    output wire [8:0]  fpos_cur,    // fraction digits before the unit
    output reg  [8:0]  cnt,         // significant integer digits, saturating at CNT_MAX
    output reg  [8:0]  fpos,        // fraction digits, saturating at FPOS_MAX
    output wire        is_nan,      // number() of the value so far is NaN
    output wire        neg_nz,      // the value so far is below zero (-0 is 0)
    // the state before next clock's unit
    output wire [8:0]  a_cnt,
    output wire [8:0]  a_fpos,
    output wire        a_in_frac,
    output wire [8:0]  a_upos,
    output wire [8:0]  upos_cur,    // the value's bytes before the unit
    output reg  [8:0]  upos         // the value's bytes, saturating from 256 on
);
    localparam [2:0] S_LEAD  = 3'd0,  // optional leading whitespace
                     S_MINUS = 3'd1,  // after '-'
                     S_INT   = 3'd2,  // integer digits
                     S_FRAC  = 3'd3,  // after '.'
                     S_TRAIL = 3'd4,  // trailing whitespace
                     S_BAD   = 3'd5;  // not a number: NaN
    localparam [8:0] CNT_MAX = 9'd256, FPOS_MAX = 9'd255;

    assign v_start = commit || in_val_start || in_val_end || in_text_end || in_doc_end;
    assign v_unit  = in_val_unit || in_text_unit;

    reg  [2:0] st;
    reg        saw_digit, neg, nonzero;
    wire [2:0] st_cur        = v_start ? S_LEAD : st;
    wire       saw_digit_cur = v_start ? 1'b0 : saw_digit;
    wire       neg_cur       = v_start ? 1'b0 : neg;
    wire       nonzero_cur   = v_start ? 1'b0 : nonzero;
    assign cnt_cur  = v_start ? 9'd0 : cnt;
    assign fpos_cur = v_start ? 9'd0 : fpos;

    // The unit as a character (code points above U+007F are never numeric).
    wire       ascii    = !in_unit_is_cp || in_unit_cp[20:7] == 14'd0;
    wire [7:0] ch       = in_unit_is_cp ? {1'b0, in_unit_cp[6:0]} : in_unit_byte;
    wire       is_ws    = ascii && (ch == 8'h20 || ch == 8'h09 || ch == 8'h0d || ch == 8'h0a);
    wire       is_digit = ascii && ch >= 8'h30 && ch <= 8'h39;
    wire       is_minus = ascii && ch == 8'h2d;
    wire       is_dot   = ascii && ch == 8'h2e;
    assign digit = ch[3:0];
    wire int_phase = st_cur == S_LEAD || st_cur == S_MINUS || st_cur == S_INT;
    assign in_frac    = st_cur == S_FRAC;
    wire   int_digit  = v_unit && is_digit && int_phase;
    assign frac_digit = v_unit && is_digit && in_frac;
    assign sig_digit  = int_digit && !(cnt_cur == 9'd0 && digit == 4'd0);

    reg [2:0] st_next;
    always @* begin
        case (st_cur)
            S_LEAD:  st_next = is_ws ? S_LEAD : is_minus ? S_MINUS : is_digit ? S_INT : is_dot ? S_FRAC : S_BAD;
            S_MINUS: st_next = is_digit ? S_INT : is_dot ? S_FRAC : S_BAD;
            S_INT:   st_next = is_digit ? S_INT : is_dot ? S_FRAC : is_ws ? S_TRAIL : S_BAD;
            S_FRAC:  st_next = is_digit ? S_FRAC : is_ws ? S_TRAIL : S_BAD;
            S_TRAIL: st_next = is_ws ? S_TRAIL : S_BAD;
            default: st_next = S_BAD;
        endcase
    end

    // A unit's bytes: 1, or a code point's UTF-8 length.
    wire [2:0] ulen = !in_unit_is_cp ? 3'd1 : in_unit_cp[20:7] == 14'd0 ? 3'd1
                    : in_unit_cp[20:11] == 10'd0 ? 3'd2 : in_unit_cp[20:16] == 5'd0 ? 3'd3 : 3'd4;
    assign upos_cur = v_start ? 9'd0 : upos;

    // The registers' next values.
    wire       step   = v_start || v_unit;
    wire [2:0] st_n   = !step ? st : v_unit ? st_next : st_cur;
    wire [8:0] cnt_n  = !step ? cnt : (sig_digit && cnt_cur != CNT_MAX) ? cnt_cur + 9'd1 : cnt_cur;
    wire [8:0] fpos_n = !step ? fpos : (frac_digit && fpos_cur != FPOS_MAX) ? fpos_cur + 9'd1 : fpos_cur;
    wire [8:0] upos_n = !step ? upos : (v_unit && !upos_cur[8]) ? upos_cur + {6'd0, ulen} : upos_cur;
    wire       a_restart = a_val_start || a_val_end || a_text_end || a_doc_end;
    assign a_cnt     = a_restart ? 9'd0 : cnt_n;
    assign a_fpos    = a_restart ? 9'd0 : fpos_n;
    assign a_in_frac = !a_restart && st_n == S_FRAC;
    assign a_upos    = a_restart ? 9'd0 : upos_n;

    always @(posedge clk) begin
        if (rst) begin
            st <= S_LEAD;
            {saw_digit, neg, nonzero} <= 3'd0;
            cnt <= 9'd0;
            fpos <= 9'd0;
            upos <= 9'd0;
        end else begin
            st   <= st_n;
            cnt  <= cnt_n;
            fpos <= fpos_n;
            upos <= upos_n;
            if (step) begin
                saw_digit <= saw_digit_cur || int_digit || frac_digit;
                neg       <= neg_cur || (v_unit && st_cur == S_LEAD && is_minus);
                nonzero   <= nonzero_cur || ((int_digit || frac_digit) && digit != 4'd0);
            end
        end
    end
    assign is_nan = !((st == S_INT || st == S_FRAC || st == S_TRAIL) && saw_digit);
    assign neg_nz = neg && nonzero;
endmodule
