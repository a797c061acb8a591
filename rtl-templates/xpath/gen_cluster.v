// qrtl_gen_cluster: a cluster of the programmable XPath engine
// (--programmable; emitted as is by compiler/xpath/src/emit/generic.rs).
`default_nettype none

// ---- a cluster of generic stack columns ----------------------------------------
// SLOTS slots, each one query node configured by its 64-bit slot word
// (config_words.rs `slot_word`): a name test (a tag code or *), a link (a
// root, or the slot `back` places before it over / or //), the lanes that
// must hold at open, and optionally a pop (twig node) and a flag. The rows
// of the open elements (per slot: exact, carry, reports, accepted reports)
// are a stack: the top row in registers, the rows below in one memory.
module qrtl_gen_cluster #(
    parameter SLOTS = 16,
    parameter WINDOW = 8,
    parameter DEPTH = 32,
    parameter SP_W = 6,     // holds 0..DEPTH
    parameter DA = 5,       // addresses DEPTH rows
    parameter AW = 4,       // addresses SLOTS slots
    parameter CODE_W = 7,
    parameter LANES = 8
) (
    input  wire              clk,
    input  wire              rst,
    // configuration: shadow slot words, made active by in_commit
    input  wire              cfg_we,
    input  wire [AW-1:0]     cfg_addr,
    input  wire [63:0]       cfg_word,
    input  wire              cfg_on,       // the cluster is in use (shadow)
    input  wire              cfg_ordered,  // --ordered (shadow)
    // the event stream (one pipeline stage)
    input  wire              in_commit,
    input  wire              in_open,
    input  wire              in_open_empty,
    input  wire              in_close,
    input  wire              in_doc_end,
    input  wire [CODE_W-1:0] in_code,
    input  wire [LANES-1:0]  in_lanes,     // open-time bits with in_open, text() bits with in_close
    // the document's flags, from the clock after its in_doc_end until the next
    output reg  [SLOTS-1:0]  q_flags
);
    // ---- configuration: shadow words, active fields ----
    reg [63:0]        sh [0:SLOTS-1];
    reg               on_ac, ordered_ac;
    reg [SLOTS-1:0]   ac_on, ac_wild, ac_root, ac_rootdesc, ac_desc, ac_pop, ac_popdesc,
                      ac_up, ac_flag, ac_prev;
    // Each slot's link distance, one-hot (bit d - 1: the parent is d places
    // before); the slot's other wide fields are registers of its own below.
    wire [SLOTS*WINDOW-1:0] ac_back;
    always @(posedge clk) begin
        if (cfg_we) sh[cfg_addr] <= cfg_word;
    end

    // ---- the rows ----
    reg [SP_W-1:0]  sp;                            // depth of the top row (0: the document)
    reg [SLOTS-1:0] top_e, top_a, top_r, top_c;    // exact, carry, reports, accepted
    reg [4*SLOTS-1:0] rows [0:DEPTH-1];            // the rows below the top
    wire [SP_W-1:0]  sp_up = sp - 1'b1;
    wire [4*SLOTS-1:0] below = rows[sp_up[DA-1:0]];
    reg [SLOTS-1:0] flags;

    wire [SLOTS-1:0] fire, new_a;                  // the opening element's row
    wire [SLOTS-1:0] cl_e = in_open_empty ? fire : top_e;
    wire [SLOTS-1:0] cl_r = in_open_empty ? {SLOTS{1'b0}} : top_r;
    wire [SLOTS-1:0] cl_c = in_open_empty ? {SLOTS{1'b0}} : top_c;
    wire [SLOTS-1:0] pa_e = in_open_empty ? top_e : below[SLOTS-1:0];
    wire [SLOTS-1:0] pa_a = in_open_empty ? top_a : below[2*SLOTS-1:SLOTS];
    wire [SLOTS-1:0] pa_r = in_open_empty ? top_r : below[3*SLOTS-1:2*SLOTS];
    wire [SLOTS-1:0] pa_c = in_open_empty ? top_c : below[4*SLOTS-1:3*SLOTS];
    wire [SLOTS-1:0] full, arrive, accept;

    genvar s, d;
    generate
        for (s = 0; s < SLOTS; s = s + 1) begin : slot
            reg [CODE_W-1:0] tag;       // the name test's code
            reg [WINDOW:1]   back;      // one-hot: the parent is back places before
            reg [2*WINDOW:0] prev_at;   // one-hot: the predecessor at offset k - WINDOW
            reg [LANES-1:0]  open_lanes, close_lanes;
            always @(posedge clk) begin
                if (in_commit) begin
                    tag         <= sh[s][CODE_W-1:0];
                    back        <= back_onehot(sh[s][23:18]);
                    prev_at     <= prev_onehot(sh[s][59:53]);
                    open_lanes  <= sh[s][24 +: LANES];
                    close_lanes <= sh[s][36 +: LANES];
                end
            end
            assign ac_back[s * WINDOW +: WINDOW] = back;
            // The parent's bits at the stack top: exact over /, carry over //.
            wire [WINDOW:1] par;
            // This slot's pop children's reports in the closing row.
            wire [WINDOW:1] kid_missing;
            for (d = 1; d <= WINDOW; d = d + 1) begin : link
                if (s >= d) begin : near
                    assign par[d] = ac_desc[s] ? top_a[s - d] : top_e[s - d];
                end else begin : none
                    assign par[d] = 1'b0;
                end
                if (s + d < SLOTS) begin : kid
                    assign kid_missing[d] = ac_pop[s + d] && ac_up[s + d] && ac_back[(s + d) * WINDOW + d - 1]
                        && !(ordered_ac ? cl_c[s + d] : cl_r[s + d]);
                end else begin : nokid
                    assign kid_missing[d] = 1'b0;
                end
            end
            wire [2*WINDOW:0] pred;
            for (d = 0; d <= 2 * WINDOW; d = d + 1) begin : prev
                if (s + d >= WINDOW && s + d - WINDOW < SLOTS && d != WINDOW) begin : near
                    assign pred[d] = pa_c[s + d - WINDOW];
                end else begin : none
                    assign pred[d] = 1'b0;
                end
            end
            wire linked = ac_root[s] ? (ac_rootdesc[s] || sp == {SP_W{1'b0}}) : |(par & back);
            assign fire[s] = on_ac && ac_on[s] && linked
                && (ac_wild[s] || tag == in_code)
                && (open_lanes & ~in_lanes) == {LANES{1'b0}};
            assign new_a[s] = fire[s] || top_a[s];
            assign full[s] = ac_pop[s] && cl_e[s] && kid_missing == {WINDOW{1'b0}}
                && (close_lanes & ~in_lanes) == {LANES{1'b0}};
            assign arrive[s] = full[s] || (ac_popdesc[s] && cl_r[s]);
            assign accept[s] = arrive[s] && (!ac_prev[s] || |(pred & prev_at));
        end
    endgenerate

    // Flags set this clock: a slot without a pop when it fires, a pop root
    // when it is fully matched.
    wire opening = in_open || in_open_empty;
    wire closing = in_close || in_open_empty;
    wire [SLOTS-1:0] flags_now = flags
        | (opening ? fire & ac_flag & ~ac_pop : {SLOTS{1'b0}})
        | (closing ? full & ac_flag : {SLOTS{1'b0}});

    // A link's distance as the one-hot the slots' logic reads.
    function [WINDOW:1] back_onehot;
        input [5:0] back;
        integer b;
        begin
            for (b = 1; b <= WINDOW; b = b + 1) back_onehot[b] = {26'd0, back} == b;
        end
    endfunction
    // An --ordered predecessor's offset (two's complement) as a one-hot over
    // -WINDOW..WINDOW.
    function [2*WINDOW:0] prev_onehot;
        input [6:0] prev;
        integer b;
        begin
            for (b = 0; b <= 2 * WINDOW; b = b + 1)
                prev_onehot[b] = $signed({{25{prev[6]}}, prev}) == b - WINDOW;
        end
    endfunction

    // Slot 0 has no parent and is nobody's child; the row address is DA bits.
    wire unused_slot0 = &{1'b0, ac_desc[0], ac_up[0], cl_c[0], sp_up[SP_W-1:DA]};

    integer k;
    always @(posedge clk) begin
        if (in_open && !in_open_empty) rows[sp[DA-1:0]] <= {top_c, top_r, top_a, top_e};
    end
    always @(posedge clk) begin
        if (rst) begin
            on_ac <= 1'b0;
            ordered_ac <= 1'b0;
            ac_on <= {SLOTS{1'b0}};
        end else if (in_commit) begin
            on_ac <= cfg_on;
            ordered_ac <= cfg_ordered;
            for (k = 0; k < SLOTS; k = k + 1) begin
                ac_on[k]       <= sh[k][63];
                ac_wild[k]     <= sh[k][15:0] == 16'd0;
                ac_root[k]     <= !sh[k][17];
                ac_rootdesc[k] <= !sh[k][17] && sh[k][16];
                ac_desc[k]     <= sh[k][16];
                ac_pop[k]      <= sh[k][48];
                ac_popdesc[k]  <= sh[k][49];
                ac_up[k]       <= sh[k][50];
                ac_flag[k]     <= sh[k][51];
                ac_prev[k]     <= sh[k][52];
            end
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            sp <= {SP_W{1'b0}};
            {top_e, top_a, top_r, top_c} <= {(4 * SLOTS){1'b0}};
            flags <= {SLOTS{1'b0}};
            q_flags <= {SLOTS{1'b0}};
        end else if (in_doc_end) begin
            // A document ends: its flags (with this clock's) are the result;
            // the stack is the document node's again.
            q_flags <= flags_now;
            flags <= {SLOTS{1'b0}};
            sp <= {SP_W{1'b0}};
            {top_e, top_a, top_r, top_c} <= {(4 * SLOTS){1'b0}};
        end else begin
            flags <= flags_now;
            if (in_open && !in_open_empty) begin
                sp <= sp + 1'b1;
                top_e <= fire;
                top_a <= new_a;
                top_r <= {SLOTS{1'b0}};
                top_c <= {SLOTS{1'b0}};
            end else if (closing) begin
                // The parent row, with the reports that arrive from below.
                if (in_close) sp <= sp - 1'b1;
                top_e <= pa_e;
                top_a <= pa_a;
                top_r <= pa_r | arrive;
                top_c <= pa_c | accept;
            end
        end
    end
endmodule
