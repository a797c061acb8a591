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
    output wire        neg_nz       // the value so far is below zero (-0 is 0)
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

    always @(posedge clk) begin
        if (rst) begin
            st <= S_LEAD;
            {saw_digit, neg, nonzero} <= 3'd0;
            cnt <= 9'd0;
            fpos <= 9'd0;
        end else if (v_start || v_unit) begin
            st        <= v_unit ? st_next : st_cur;
            saw_digit <= saw_digit_cur || int_digit || frac_digit;
            neg       <= neg_cur || (v_unit && st_cur == S_LEAD && is_minus);
            nonzero   <= nonzero_cur || ((int_digit || frac_digit) && digit != 4'd0);
            cnt       <= (sig_digit && cnt_cur != CNT_MAX) ? cnt_cur + 9'd1 : cnt_cur;
            fpos      <= (frac_digit && fpos_cur != FPOS_MAX) ? fpos_cur + 9'd1 : fpos_cur;
        end
    end
    assign is_nan = !((st == S_INT || st == S_FRAC || st == S_TRAIL) && saw_digit);
    assign neg_nz = neg && nonzero;
endmodule
