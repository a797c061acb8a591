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
//
// Two kinds of slot: the first SLOTS - GENERAL are chain slots (a root or
// the slot just before as parent, no pop, no reports: a name test, a
// two-way link, a lane test and two bits a row), the last GENERAL are
// general slots (window links, pops, --ordered predecessors). `configure`
// never writes a chain slot a general slot's word (config_words.rs
// `is_chain_slot`).
//
// Configuration: the slot words are written, narrowed to the fields this
// size reads, into a shadow memory (distributed RAM) while documents
// stream. A commit (in_commit, between documents) copies them into the
// slots' active fields in SLOTS + WINDOW + 1 clocks: one word a clock
// through one decoder, which also finds each twig slot's children (the
// later slots within the window that report to it), and the slots' fields
// form one shift register, so a slot holds no decoder of its own. No event
// may reach the cluster while it copies (the top holds the input).
module qrtl_gen_cluster #(
    parameter SLOTS = 16,
    parameter GENERAL = 4,  // the last GENERAL slots are general
    parameter WINDOW = 8,
    parameter DEPTH = 32,
    parameter SP_W = 6,     // holds 0..DEPTH
    parameter DA = 5,       // addresses DEPTH rows
    parameter AW = 4,       // addresses SLOTS slots
    parameter CODE_W = 7,
    parameter LANES = 8,
    parameter BW = 4,       // holds 0..WINDOW (a link's distance)
    parameter PW = 5        // holds 0..2*WINDOW (a predecessor's place)
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
    input  wire              in_close,     // never with in_open (an empty element: open, then close)
    input  wire              in_doc_end,
    // the event of the stage before, due here next clock: its tag code and
    // lanes (open-time bits with an open, text() bits with a close), which
    // the slots' name and lane tests read a clock ahead
    input  wire [CODE_W-1:0] pre_code,
    input  wire [LANES-1:0]  pre_lanes,
    // the document's flags, from the clock after its in_doc_end until the next
    output reg  [SLOTS-1:0]  q_flags
);
    // ---- a slot's fields, narrowed from its word ----
    localparam F_TAG   = 0;                  // CODE_W bits: the tag code
    localparam F_WILD  = F_TAG + CODE_W;     // the name test is *
    localparam F_LINK  = F_WILD + 1;         // 2 bits: 0 / root, 1 // root, 2 / parent, 3 // parent
    localparam F_BACK  = F_LINK + 2;         // BW bits: the parent is back places before
    localparam F_OPEN  = F_BACK + BW;        // LANES bits: open-time lanes
    localparam F_CLOSE = F_OPEN + LANES;     // LANES bits: close-time lanes (a pop's)
    localparam F_POP   = F_CLOSE + LANES;    // a twig node
    localparam F_PDESC = F_POP + 1;          // the pop passes its reports up (//)
    localparam F_FLAG  = F_PDESC + 1;        // the slot sets a flag
    localparam F_PREV  = F_FLAG + 1;         // --ordered: a predecessor
    localparam F_PAT   = F_PREV + 1;         // PW bits: it is PAT - WINDOW places away
    localparam F_ON    = F_PAT + PW;         // the slot is in use
    localparam F_UP    = F_ON + 1;           // (the word only) reports to its parent
    localparam SW      = F_UP + 1;           // a shadow word
    localparam F_KIDS  = F_ON + 1;           // (active only) WINDOW bits: children d places after
    localparam AF      = F_KIDS + WINDOW;    // a general slot's active fields
    // A chain slot's: tag, *, link, open-time lanes, flag, on.
    localparam C_TAG   = 0;
    localparam C_WILD  = C_TAG + CODE_W;
    localparam C_LINK  = C_WILD + 1;
    localparam C_OPEN  = C_LINK + 2;
    localparam C_FLAG  = C_OPEN + LANES;
    localparam C_ON    = C_FLAG + 1;
    localparam CF      = C_ON + 1;
    localparam CHAIN   = SLOTS - GENERAL;
    localparam TW      = CHAIN * CF + GENERAL * AF;
    // The rows' report bits are the general slots' only (at least one
    // bit wide: a cluster of chain slots keeps one unused).
    localparam GW      = GENERAL > 0 ? GENERAL : 1;

    // The word's fields (config_words.rs): the prev offset becomes a place
    // in the 2*WINDOW+1 slots around the slot.
    wire [6:0] prev_pat = cfg_word[59:53] + WINDOW[6:0];
    wire [SW-1:0] narrow = {cfg_word[50], cfg_word[63], prev_pat[PW-1:0], cfg_word[52],
                            cfg_word[51], cfg_word[49], cfg_word[48], cfg_word[36 +: LANES],
                            cfg_word[24 +: LANES], cfg_word[18 +: BW], cfg_word[17:16],
                            cfg_word[15:0] == 16'd0, cfg_word[CODE_W-1:0]};
    reg [SW-1:0] sh [0:SLOTS-1];
    always @(posedge clk) begin
        if (cfg_we) sh[cfg_addr] <= narrow;
    end

    // ---- the copy at a commit ----
    reg [AW+1:0]  cp;                // the word read now (0..SLOTS+WINDOW)
    reg           copying;
    reg           on_ac, ordered_ac;
    wire [AW+1:0] cp_last = SLOTS + WINDOW;
    wire [SW-1:0] rd = cp < SLOTS ? sh[cp[AW-1:0]] : {SW{1'b0}};
    // hist[d]: the word read d + 1 clocks ago; the slot leaving hist[WINDOW]
    // has its children among hist[WINDOW-1..0].
    reg [SW-1:0]  hist [0:WINDOW];
    wire          shift = copying && cp > WINDOW;
    wire [WINDOW:1] kids_in;
    wire [AF-1:0] act_in = {kids_in, hist[WINDOW][F_ON:0]};
    genvar s, d;
    generate
        for (d = 1; d <= WINDOW; d = d + 1) begin : kid
            assign kids_in[d] = hist[WINDOW - d][F_POP] && hist[WINDOW - d][F_UP]
                && hist[WINDOW - d][F_BACK +: BW] == d;
        end
    endgenerate
    integer h;
    always @(posedge clk) begin
        if (copying) begin
            hist[0] <= rd;
            for (h = 1; h <= WINDOW; h = h + 1) hist[h] <= hist[h - 1];
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            copying <= 1'b0;
            cp <= {(AW + 2){1'b0}};
            on_ac <= 1'b0;
            ordered_ac <= 1'b0;
        end else if (in_commit) begin
            copying <= 1'b1;
            cp <= {(AW + 2){1'b0}};
            on_ac <= cfg_on;
            ordered_ac <= cfg_ordered;
        end else if (copying) begin
            cp <= cp + 1'b1;
            if (cp == cp_last) copying <= 1'b0;
        end
    end

    // ---- the rows ----
    reg [SP_W-1:0]  sp;                            // depth of the top row (0: the document)
    reg [SLOTS-1:0] top_e, top_a, top_r, top_c;    // exact, carry, reports, accepted
    // The rows below the top: exact and carry bits of every slot, report
    // bits of the last GW slots (the general ones).
    localparam GB = SLOTS - GW;                    // the first of those
    reg [2*SLOTS-1:0] rows_ea [0:DEPTH-1];
    reg [2*GW-1:0]    rows_rc [0:DEPTH-1];
    wire [SP_W-1:0]  sp_up = sp - 1'b1;
    wire [2*SLOTS-1:0] below = rows_ea[sp_up[DA-1:0]];
    wire [2*GW-1:0]    below_rc = rows_rc[sp_up[DA-1:0]];
    reg [SLOTS-1:0] flags;

    wire [SLOTS-1:0] fire, new_a;                  // the opening element's row
    // The closing element's row is the top; its parent's, the one below.
    wire [SLOTS-1:0] pa_e = below[SLOTS-1:0];
    wire [SLOTS-1:0] pa_a = below[2*SLOTS-1:SLOTS];
    wire [SLOTS-1:0] pa_r, pa_c;
    wire [2*GW-1:0]  top_rc;
    genvar g;
    generate
        for (g = 0; g < SLOTS; g = g + 1) begin : rc
            if (g >= GB) begin : kept
                assign pa_r[g] = below_rc[g - GB];
                assign pa_c[g] = below_rc[GW + g - GB];
                assign top_rc[g - GB] = top_r[g];
                assign top_rc[GW + g - GB] = top_c[g];
            end else begin : chain
                assign pa_r[g] = 1'b0;
                assign pa_c[g] = 1'b0;
            end
        end
    endgenerate
    // A slot's report as its twig parent reads it.
    wire [SLOTS-1:0] rep = ordered_ac ? top_c : top_r;
    wire [SLOTS-1:0] full, arrive, accept, is_pop, is_flag;
    wire sp0 = sp == {SP_W{1'b0}};
    // The slots' active fields: chain slot s at acts[s*CF +: CF], general
    // slot s at acts[CHAIN*CF + (s-CHAIN)*AF +: AF]; the copy shifts each
    // slot's fields one slot down (a chain slot keeping its fields of a
    // general word) and the decoded word in at the top.
    // A general slot's fields as a chain slot keeps them.
    function [CF-1:0] chain_fields(input [AF-1:0] a);
        chain_fields = {a[F_ON], a[F_FLAG], a[F_OPEN +: LANES], a[F_LINK +: 2], a[F_WILD],
                        a[F_TAG +: CODE_W]};
    endfunction
    reg  [TW-1:0] acts;
    wire [TW-1:0] acts_next;
    always @(posedge clk) begin
        if (rst) acts <= {TW{1'b0}};
        else if (shift) acts <= acts_next;
    end

    generate
        for (s = 0; s < SLOTS; s = s + 1) begin : slot
            // This slot's fields, and the word the copy shifts into them.
            localparam integer O = s < CHAIN ? s * CF : CHAIN * CF + (s - CHAIN) * AF;
            localparam integer ON = s + 1 < CHAIN ? (s + 1) * CF : CHAIN * CF + (s + 1 - CHAIN) * AF;
            if (s < CHAIN) begin : chain
                wire [CF-1:0] act = acts[O +: CF];
                wire [1:0]    link = act[C_LINK +: 2];
                if (s + 1 < CHAIN) begin : from_chain
                    assign acts_next[O +: CF] = acts[ON +: CF];
                end else if (s == SLOTS - 1) begin : from_word
                    assign acts_next[O +: CF] = chain_fields(act_in);
                end else begin : from_general
                    assign acts_next[O +: CF] = chain_fields(acts[ON +: AF]);
                end
                // The parent is the slot just before (none before slot 0).
                wire pe, pa;
                if (s > 0) begin : parent
                    assign pe = top_e[s - 1];
                    assign pa = top_a[s - 1];
                end else begin : first
                    assign pe = 1'b0;
                    assign pa = 1'b0;
                end
                wire linked = link[1] ? (link[0] ? pa : pe) : (link[0] || sp0);
                // The name and lane tests of the event due next clock.
                reg named;
                always @(posedge clk) begin
                    named <= (act[C_WILD] || act[C_TAG +: CODE_W] == pre_code)
                        && (act[C_OPEN +: LANES] & ~pre_lanes) == {LANES{1'b0}};
                end
                assign fire[s] = on_ac && act[C_ON] && linked && named;
                assign full[s] = 1'b0;
                assign arrive[s] = 1'b0;
                assign accept[s] = 1'b0;
                assign is_pop[s] = 1'b0;
                assign is_flag[s] = act[C_FLAG];
            end else begin : general
                wire [AF-1:0]     act = acts[O +: AF];
                wire [CODE_W-1:0] tag = act[F_TAG +: CODE_W];
                wire [1:0]        link = act[F_LINK +: 2];
                wire [BW-1:0]     back = act[F_BACK +: BW];
                wire [PW-1:0]     pat = act[F_PAT +: PW];
                wire [WINDOW:1]   kids = act[F_KIDS +: WINDOW];
                if (s == SLOTS - 1) begin : from_word
                    assign acts_next[O +: AF] = act_in;
                end else begin : from_general
                    assign acts_next[O +: AF] = acts[ON +: AF];
                end
                // The window around the slot: the parent's exact and carry bits
                // at the stack top (place d: d slots before), its children's
                // reports in the closing row (place d: d slots after), the
                // accepted reports in the parent row (place k: k - WINDOW).
                wire [(1<<BW)-1:0] win_e, win_a;
                wire [WINDOW:1]    kid_rep;
                wire [(1<<PW)-1:0] win_c;
                for (d = 0; d < (1 << BW); d = d + 1) begin : up
                    if (d >= 1 && d <= WINDOW && s >= d) begin : near
                        assign win_e[d] = top_e[s - d];
                        assign win_a[d] = top_a[s - d];
                    end else begin : none
                        assign win_e[d] = 1'b0;
                        assign win_a[d] = 1'b0;
                    end
                end
                for (d = 1; d <= WINDOW; d = d + 1) begin : down
                    if (s + d < SLOTS) begin : near
                        assign kid_rep[d] = rep[s + d];
                    end else begin : none
                        assign kid_rep[d] = 1'b1;
                    end
                end
                for (d = 0; d < (1 << PW); d = d + 1) begin : around
                    if (d <= 2 * WINDOW && s + d >= WINDOW && s + d - WINDOW < SLOTS && d != WINDOW)
                    begin : near
                        assign win_c[d] = pa_c[s + d - WINDOW];
                    end else begin : none
                        assign win_c[d] = 1'b0;
                    end
                end
                wire linked = link[1] ? (link[0] ? win_a[back] : win_e[back])
                                      : (link[0] || sp0);
                // The name and open-time lane tests, and the close-time lane
                // test, of the event due next clock.
                reg named, closing;
                always @(posedge clk) begin
                    named <= (act[F_WILD] || tag == pre_code)
                        && (act[F_OPEN +: LANES] & ~pre_lanes) == {LANES{1'b0}};
                    closing <= (act[F_CLOSE +: LANES] & ~pre_lanes) == {LANES{1'b0}};
                end
                assign fire[s] = on_ac && act[F_ON] && linked && named;
                assign full[s] = act[F_POP] && top_e[s] && (kids & ~kid_rep) == {WINDOW{1'b0}}
                    && closing;
                assign arrive[s] = full[s] || (act[F_PDESC] && top_r[s]);
                assign accept[s] = arrive[s] && (!act[F_PREV] || win_c[pat]);
                assign is_pop[s] = act[F_POP];
                assign is_flag[s] = act[F_FLAG];
            end
            assign new_a[s] = fire[s] || top_a[s];
        end
    endgenerate

    // Flags set this clock: a slot without a pop when it fires, a pop root
    // when it is fully matched.
    wire [SLOTS-1:0] flags_now = flags
        | (in_open ? fire & is_flag & ~is_pop : {SLOTS{1'b0}})
        | (in_close ? full & is_flag : {SLOTS{1'b0}});

    // The copy reads past the last slot; the row address is DA bits; the
    // word's tag bits above the code and its unused bits are not read.
    // Chain slots read no reports and keep a few of a word's fields.
    wire unused_bits = &{1'b0, sp_up, cfg_word, prev_pat, hist[WINDOW][F_UP], rep, top_r, top_c,
                         act_in};

    always @(posedge clk) begin
        if (in_open) begin
            rows_ea[sp[DA-1:0]] <= {top_a, top_e};
            rows_rc[sp[DA-1:0]] <= top_rc;
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
            if (in_open) begin
                sp <= sp + 1'b1;
                top_e <= fire;
                top_a <= new_a;
                top_r <= {SLOTS{1'b0}};
                top_c <= {SLOTS{1'b0}};
            end else if (in_close) begin
                // The parent row, with the reports that arrive from below.
                sp <= sp - 1'b1;
                top_e <= pa_e;
                top_a <= pa_a;
                top_r <= pa_r | arrive;
                top_c <= pa_c | accept;
            end
        end
    end
endmodule
