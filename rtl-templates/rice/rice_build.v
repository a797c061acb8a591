// Golomb-Rice integer builders and output alignment (dissertation 5.4.2.3,
// 5.4.2.4, Figure 5.5). Part of the qrtl Golomb-Rice decoder
// (rtl-templates/rice/rice_build.v).
//
// B = ceil(N/(K+1)) builders. Builder b takes the b-th delimiter of the
// chunk (the insertion pipeline's block b found it: in_found, in_dpos, so
// the dissertation's validation chain, a find-first-set per builder in
// series, is not repeated here); its quotient is the count of unary bits
// before the delimiter (plus the carried count when the code spans in,
// told by the spanning flags), its remainder the K bits after it. A code
// whose remainder runs past the chunk is carried (quotient, remainder bits
// so far, start offset) and completed by the next chunk(s): the output
// alignment puts that spanning integer first, before the builders' integers
// of the chunk. Lane i of a beat holds the i-th integer completed in the
// chunk; mask bit i marks it valid (lanes fill from 0).
//
// Status (valid on a packet's last beat): a quotient above MAXQ (the
// largest that fits V-bit values) stops the packet's decoding, reporting
// the bit offset and quotient of that code; otherwise the bits after the
// last complete code are reported (count, and whether they hold a
// delimiter: a cut remainder).
//
// Pipeline (six stages, every register moves with advance):
//   P  per builder, in parallel, from its delimiter position alone: the
//      code's end and the first bit after it (the next builder's start),
//      the window holding the K remainder bits (a mux on the position's
//      high bits), whether the code spans in, and which builder is the
//      last with a delimiter.
//   A  per builder, one adder or comparator on stage P's registers each:
//      unary count (position - start), completeness, remainder bits in
//      the chunk, the remainder bits (a small mux on the position's low
//      bits), the continuation bits after its code, the bits from its
//      start to the chunk's end (start -> count was one stage and the
//      longest path, ~10 ns on ECP5 at N = 32).
//   L  reductions over the builders, still chunk-local: the counts of the
//      last builder that found a delimiter (its code may be cut) and of
//      the first whose quotient overflows, AND-OR selections on one-hot
//      flags, and the flags of the cases below.
//   B  what the carried state becomes, expressed as "carried value or 0,
//      plus a chunk-local offset": a multiplexer over the cases on stage
//      L's registers.
//   C  the only stage that reads the state carried from the previous chunk
//      (stream offset, open quotient, cut remainder, halted): one adder or
//      comparator and a multiplexer per state register, so the loop
//      state -> state is short (the overflow test compares the carried
//      quotient with MAXQ minus builder 0's count, computed in B, instead
//      of adding first: an add then a compare was the longest path). A
//      packet's last chunk clears the state, so the next packet's first
//      chunk reads zeros with no multiplexer before the adders.
//   D  the output beat: lanes and mask gated by the overflow and halted
//      flags of C, the status fields, the error report kept for the
//      packet's last beat.
// Only builder 0 can hold a code that spans in (the spanning bits end at
// its code), so only its quotient adds the carried count.
module rice_build #(
    parameter N = 32,         // chunk bits
    parameter K = 3,          // remainder bits
    parameter B = 8,          // builders: ceil(N / (K + 1))
    parameter V = 32,         // value bits
    parameter PW = 40,        // bit offsets, counts and quotients
    parameter SW = 8,         // remainder-bit counts
    parameter CW = 8,         // bit positions within a chunk
    parameter MSB_FIRST = 1,  // remainder most significant bit first
    parameter CHECK_OVF = 1,  // quotients can exceed MAXQ
    parameter [PW-1:0] MAXQ = 40'd0
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              advance,
    input  wire              in_valid,
    input  wire              in_last,
    input  wire [CW-1:0]     in_bits,     // valid bits in the chunk (N but on a last beat)
    input  wire [N-1:0]      in_data,     // chunk bits in stream order (invalid bits 0)
    input  wire [B-1:0]      in_found,    // builder b's delimiter exists
    input  wire [B*CW-1:0]   in_dpos,     // its position (0 when none)
    input  wire              in_span,     // builder 0's code spans in (a quotient spanning in ends at its delimiter)
    input  wire [SW-1:0]     in_rem_span, // remainder bits of the carried code in this chunk
    output reg               out_valid,
    output reg               out_last,
    output reg  [B*V-1:0]    out_lanes,
    output reg  [B-1:0]      out_mask,
    output reg               out_ovf,      // status: quotient overflow
    output reg  [PW-1:0]     out_ovf_at,   // its code's bit offset
    output reg  [PW-1:0]     out_ovf_q,    // its quotient
    output reg  [PW-1:0]     out_tail,     // trailing bits after the last code
    output reg               out_tail_delim // they hold a delimiter
);
    localparam KW = (K > 0) ? K : 1;   // remainder registers (unused bit when K = 0)
    localparam QW = (V > K) ? V - K : 1;
    localparam [CW-1:0] K_CW = K;
    localparam [CW-1:0] ONE_CW = 1;
    localparam IW = (N > 1) ? $clog2(N) : 1;  // index of a chunk bit

    // The K bits after the delimiter at pos = (h << LB) + l (zeros past
    // the chunk), a mux on the position split over two stages: stage P
    // takes the window of WW bits after position h << LB (a balanced mux
    // on h, N / 2^LB inputs), stage A the K bits at l within it (2^LB
    // inputs). One N:1 mux on the whole position, fanned out to every
    // builder, was the longest path (~7 ns at N = 32 on ECP5).
    localparam LB = IW / 2;                 // position bits muxed in stage A
    localparam HB = IW - LB;                // and in stage P
    localparam NG = ((N - 1) >> LB) + 1;    // windows (values of h)
    localparam WW = (1 << LB) + KW - 1;     // window bits
    localparam XW = (NG << LB) + WW + 1;    // zero-extended data bits
    function [WW-1:0] rem_window;
        input [HB-1:0] h;
        input [XW-1:0] x;
        integer j, g;
        reg [NG-1:0] column;
        begin
            for (j = 0; j < WW; j = j + 1) begin
                for (g = 0; g < NG; g = g + 1) column[g] = x[(g << LB) + j + 1];
                rem_window[j] = column[h];
            end
        end
    endfunction
    function [KW-1:0] rem_in_window;
        input [LB-1:0] l;
        input [WW-1:0] w;
        integer j, t;
        reg [(1<<LB)-1:0] column;
        begin
            rem_in_window = {KW{1'b0}};
            for (j = 0; j < K; j = j + 1) begin
                for (t = 0; t < (1 << LB); t = t + 1) column[t] = w[t + j];
                rem_in_window[j] = column[l];
            end
        end
    endfunction

    // Remainder bits in stream order -> value bits.
    function [KW-1:0] order_rem;
        input [KW-1:0] r;
        integer j;
        begin
            order_rem = r;
            if (MSB_FIRST != 0)
                for (j = 0; j < K; j = j + 1) order_rem[K-1-j] = r[j];
        end
    endfunction



    // ==== stage P: per builder, from the delimiter positions alone ========
    wire [XW-1:0] data_x = {{(XW-N){1'b0}}, in_data};

    wire [B*CW-1:0] p_after_w, p_end_w;
    wire [B*WW-1:0] p_rwin_w;
    genvar b;
    generate
        for (b = 0; b < B; b = b + 1) begin : sp
            wire [CW-1:0] dpos = in_dpos[b*CW +: CW];
            // The code's last bit, and the first bit after it (the next
            // builder's start).
            assign p_end_w[b*CW +: CW] = dpos + K_CW;
            assign p_after_w[b*CW +: CW] = dpos + K_CW + ONE_CW;
            // Remainder extraction, first half: the window holding the K
            // bits after the delimiter (those in the chunk when the code is
            // cut; the rest are 0).
            assign p_rwin_w[b*WW +: WW] = rem_window(dpos[IW-1:LB], data_x);
            // The distance from the previous builder's delimiter: its code
            // ends K bits after that one, so this quotient is gap - K - 1
            // and stage A tells an overflow by comparing the gap with a
            // constant (no adder before the comparison).
            if (b > 0) begin : gap
                reg [CW-1:0] q;
                always @(posedge clk) begin
                    if (rst) q <= {CW{1'b0}};
                    else if (advance) q <= dpos - in_dpos[(b-1)*CW +: CW];
                end
            end
            // The chunk's bit count, one register per builder (keep:
            // synthesis would merge the copies): one register fanned out to
            // every builder's comparators and subtractors of stage A was on
            // the longest path.
            reg [CW-1:0] bits_q;
            (* keep *)
            always @(posedge clk) begin
                if (rst) bits_q <= {CW{1'b0}};
                else if (advance) bits_q <= in_bits;
            end
        end
    endgenerate
    // The last builder that found a delimiter (found is monotone: builder b
    // finds one only if b-1 did).
    wire [B-1:0] p_last_hot_w = in_found & ~(in_found >> 1);

    reg p_valid, p_last;
    reg [CW-1:0] p_bits;
    reg [KW-1:0] p_data_lo;  // the chunk's first bits (the carried remainder's end)
    reg [SW-1:0] p_rem_span;
    reg [B-1:0] p_found, p_last_hot;
    reg [B*CW-1:0] p_dpos, p_after, p_end;
    reg [B*WW-1:0] p_rwin;
    reg p_spanning0;
    reg p_span_active, p_span_done;
    always @(posedge clk) begin
        if (rst) begin
            p_valid <= 1'b0;
            p_last <= 1'b0;
            p_bits <= {CW{1'b0}};
            p_data_lo <= {KW{1'b0}};
            p_rem_span <= {SW{1'b0}};
            p_found <= {B{1'b0}};
            p_last_hot <= {B{1'b0}};
            p_dpos <= {B*CW{1'b0}};
            p_after <= {B*CW{1'b0}};
            p_end <= {B*CW{1'b0}};
            p_rwin <= {B*WW{1'b0}};
            p_spanning0 <= 1'b0;
            p_span_active <= 1'b0;
            p_span_done <= 1'b0;
        end else if (advance) begin
            p_valid <= in_valid;
            p_last <= in_last;
            p_bits <= in_bits;
            p_data_lo <= data_x[KW-1:0];
            p_rem_span <= in_rem_span;
            p_found <= in_found;
            p_last_hot <= p_last_hot_w;
            p_dpos <= in_dpos;
            p_after <= p_after_w;
            p_end <= p_end_w;
            p_rwin <= p_rwin_w;
            p_spanning0 <= in_span;
            p_span_active <= in_rem_span != {SW{1'b0}};
            p_span_done <= in_rem_span != {SW{1'b0}} && {{(CW+2-SW){1'b0}}, in_rem_span} <= {2'b00, in_bits};
        end
    end

    // ==== stage A: per builder, the counts (one adder or comparator each) ==
    wire [B*CW-1:0] a_start_w, a_qh_w, a_rgot_w, a_tail_cut_w;
    wire [B-1:0] a_complete_w, a_ovf_local_w;
    // A quotient above MAXQ: a gap above MAXQ + K + 1, possible only when
    // that is below the largest CW-bit gap (else the comparison is left
    // out: synthesis does not fold a comparison with a constant that a
    // register can never exceed, and it was on the longest path).
    localparam [PW:0] GAP_MAX = {1'b0, MAXQ} + K + 1;
    localparam GAP_OVF = CHECK_OVF != 0 && GAP_MAX < {{(PW+1-CW){1'b0}}, {CW{1'b1}}};
    wire [B*KW-1:0] a_rbits_w;
    generate
        for (b = 0; b < B; b = b + 1) begin : sa
            wire [CW-1:0] dpos = p_dpos[b*CW +: CW];
            // First bit of this builder's code: after the carried remainder,
            // or after the previous builder's code.
            wire [CW-1:0] start;
            if (b == 0) begin : head
                assign start = p_rem_span[CW-1:0];
            end else begin : chain
                assign start = p_after[(b-1)*CW +: CW];
            end
            assign a_start_w[b*CW +: CW] = start;
            assign a_qh_w[b*CW +: CW] = dpos - start;
            wire [CW-1:0] bits = sp[b].bits_q;
            assign a_complete_w[b] = p_found[b] && p_end[b*CW +: CW] < bits;
            // Builder b >= 1's quotient (no carried count) overflows.
            if (b == 0) begin : head_ovf
                assign a_ovf_local_w[b] = 1'b0;
            end else begin : chain_ovf
                assign a_ovf_local_w[b] = GAP_OVF != 0 && p_found[b] &&
                    sp[b].gap.q > GAP_MAX[CW-1:0];
            end
            // Remainder bits in the chunk when the code is cut:
            // bits - dpos - 1 = bits + ~dpos.
            assign a_rgot_w[b*CW +: CW] = bits + ~dpos;
            // Stream bits from the code's start to the chunk's end (the
            // tail when the code is cut).
            assign a_tail_cut_w[b*CW +: CW] = bits - start;
            // Remainder extraction, second half: the K bits within the
            // window.
            assign a_rbits_w[b*KW +: KW] = rem_in_window(dpos[LB-1:0], p_rwin[b*WW +: WW]);
        end
    endgenerate

    // The continuation bits after the last code (counted into the next
    // quotient) run from the bit after it to the chunk's end: the count is
    // in_bits - f for f past builder b's code, or past the carried
    // remainder when no builder found a delimiter (stage B picks one). An
    // adder tree counting the flags was the longest path here.
    wire [CW-1:0] ones_none_w = ({{(CW+1-SW){1'b0}}, p_rem_span} < {1'b0, p_bits}) ?
        p_bits - p_rem_span[CW-1:0] : {CW{1'b0}};
    wire [B*CW-1:0] a_ones_w;
    generate
        for (b = 0; b < B; b = b + 1) begin : so
            wire [CW-1:0] after = p_after[b*CW +: CW];
            wire [CW-1:0] bits = sp[b].bits_q;
            assign a_ones_w[b*CW +: CW] = (after < bits) ? bits - after : {CW{1'b0}};
        end
    endgenerate

    reg a_valid, a_last;
    reg [CW-1:0] a_bits;
    reg [KW-1:0] a_data_lo;
    reg [SW-1:0] a_rem_span;
    reg a_any_found;  // builder 0 found a delimiter
    reg [B-1:0] a_last_hot, a_complete, a_ovf_local;
    reg [B*CW-1:0] a_start, a_qh, a_after, a_rgot, a_tail_cut;
    reg [B*KW-1:0] a_rbits;
    reg a_spanning0;
    reg [B*CW-1:0] a_ones;
    reg [CW-1:0] a_ones_none;
    reg a_span_active, a_span_done;
    always @(posedge clk) begin
        if (rst) begin
            a_valid <= 1'b0;
            a_last <= 1'b0;
            a_bits <= {CW{1'b0}};
            a_data_lo <= {KW{1'b0}};
            a_rem_span <= {SW{1'b0}};
            a_any_found <= 1'b0;
            a_last_hot <= {B{1'b0}};
            a_complete <= {B{1'b0}};
            a_ovf_local <= {B{1'b0}};
            a_start <= {B*CW{1'b0}};
            a_qh <= {B*CW{1'b0}};
            a_after <= {B*CW{1'b0}};
            a_rgot <= {B*CW{1'b0}};
            a_tail_cut <= {B*CW{1'b0}};
            a_rbits <= {B*KW{1'b0}};
            a_spanning0 <= 1'b0;
            a_ones <= {B*CW{1'b0}};
            a_ones_none <= {CW{1'b0}};
            a_span_active <= 1'b0;
            a_span_done <= 1'b0;
        end else if (advance) begin
            a_valid <= p_valid;
            a_last <= p_last;
            a_bits <= p_bits;
            a_data_lo <= p_data_lo;
            a_rem_span <= p_rem_span;
            a_any_found <= p_found[0];
            a_last_hot <= p_last_hot;
            a_complete <= a_complete_w;
            a_ovf_local <= a_ovf_local_w;
            a_start <= a_start_w;
            a_qh <= a_qh_w;
            a_after <= p_after;
            a_rgot <= a_rgot_w;
            a_tail_cut <= a_tail_cut_w;
            a_rbits <= a_rbits_w;
            a_spanning0 <= p_spanning0;
            a_ones <= a_ones_w;
            a_ones_none <= ones_none_w;
            a_span_active <= p_span_active;
            a_span_done <= p_span_done;
        end
    end

    // ==== stage L: selections over the builders, chunk-local ================
    // The last builder that found a delimiter (stage P found it), and the
    // first builder from 1 on whose quotient (no carried count) overflows
    // (stage A compared it): AND-OR selections of their counts, registered
    // before the cases of stage B (selection then cases in one stage was
    // the longest path, ~7 ns at N = 32 on ECP5).
    wire [B-1:0] last_hot = a_last_hot;
    wire [B-1:0] ok_upto;
    wire [B-1:0] first_ovf_hot;
    wire [B*V-1:0] val_w;      // builder b's integer, no carried count
    generate
        for (b = 0; b < B; b = b + 1) begin : sb
            // ok: no builder in 1..b overflows (a prefix AND over the builders)
            wire ok;
            if (b == 0) begin : head
                assign ok = 1'b1;
                assign first_ovf_hot[b] = 1'b0;
            end else begin : chain
                assign ok = sb[b-1].ok && !a_ovf_local[b];
                assign first_ovf_hot[b] = a_ovf_local[b] && sb[b-1].ok;
            end
            assign ok_upto[b] = ok;
            if (K == 0) begin : k0
                if (V > CW) begin : wide
                    assign val_w[b*V +: V] = {{(V-CW){1'b0}}, a_qh[b*CW +: CW]};
                end else begin : narrow
                    assign val_w[b*V +: V] = a_qh[b*CW +: V];
                end
            end else if (V == K) begin : qnone
                assign val_w[b*V +: V] = order_rem(a_rbits[b*KW +: KW]);
            end else if (QW > CW) begin : qwide
                assign val_w[b*V +: V] = {{(QW-CW){1'b0}}, a_qh[b*CW +: CW], order_rem(a_rbits[b*KW +: KW])};
            end else begin : qnarrow
                assign val_w[b*V +: V] = {a_qh[b*CW +: QW], order_rem(a_rbits[b*KW +: KW])};
            end
        end
    endgenerate

    // One-hot selections (AND-OR).
    reg [CW-1:0] l_qh_w, l_start_w, l_after_w, l_rgot_w, l_ones_w, l_tail_cut_w, f_qh_w, f_start_w;
    reg [KW-1:0] l_rbits_w;
    integer s;
    always @(*) begin
        l_qh_w = {CW{1'b0}};
        l_start_w = {CW{1'b0}};
        l_after_w = {CW{1'b0}};
        l_tail_cut_w = {CW{1'b0}};
        l_rgot_w = {CW{1'b0}};
        l_ones_w = {CW{1'b0}};
        l_rbits_w = {KW{1'b0}};
        f_qh_w = {CW{1'b0}};
        f_start_w = {CW{1'b0}};
        for (s = 0; s < B; s = s + 1) begin
            l_qh_w = l_qh_w | (a_qh[s*CW +: CW] & {CW{last_hot[s]}});
            l_start_w = l_start_w | (a_start[s*CW +: CW] & {CW{last_hot[s]}});
            l_after_w = l_after_w | (a_after[s*CW +: CW] & {CW{last_hot[s]}});
            l_tail_cut_w = l_tail_cut_w | (a_tail_cut[s*CW +: CW] & {CW{last_hot[s]}});
            l_rgot_w = l_rgot_w | (a_rgot[s*CW +: CW] & {CW{last_hot[s]}});
            l_ones_w = l_ones_w | (a_ones[s*CW +: CW] & {CW{last_hot[s]}});
            l_rbits_w = l_rbits_w | (a_rbits[s*KW +: KW] & {KW{last_hot[s]}});
            f_qh_w = f_qh_w | (a_qh[s*CW +: CW] & {CW{first_ovf_hot[s]}});
            f_start_w = f_start_w | (a_start[s*CW +: CW] & {CW{first_ovf_hot[s]}});
        end
    end

    // The open code after this chunk, in cases (the carried state is
    // "carried value or 0, plus a chunk-local part"):
    //   cut       the last delimiter's remainder is cut: its quotient,
    //             start, remainder bits so far
    //   done      the last code is complete: the ones after it
    //   span_on   the carried remainder goes on past this chunk too
    //   span_end  the carried code completes, no delimiter after it
    //   open      no delimiter: the open quotient goes on
    // (the flags here, the multiplexers in stage B)
    wire any_found = a_any_found;
    wire case_cut_w = any_found && !(|(a_complete & last_hot));
    wire case_span_on_w = !any_found && a_span_active && !a_span_done;

    reg l_valid, l_last;
    reg [CW-1:0] l_bits;
    reg [KW-1:0] l_data_lo;
    reg [SW-1:0] l_rem_span;
    reg [B-1:0] l_complete_ok;  // complete, and no builder 1..b overflows
    reg l_spanning0;
    reg [CW-1:0] l_start0, l_qh0;
    reg [B*V-1:0] l_val;
    reg l_any_local_ovf;
    reg [CW-1:0] l_qh, l_start, l_after, l_rgot, l_ones, l_tail_cut, l_f_qh, l_f_start;
    reg [KW-1:0] l_rbits;
    reg [CW-1:0] l_ones_none;
    reg l_any_found, l_last_spanning, l_case_cut, l_case_span_on, l_span_active, l_span_done;
    always @(posedge clk) begin
        if (rst) begin
            l_valid <= 1'b0;
            l_last <= 1'b0;
            l_bits <= {CW{1'b0}};
            l_data_lo <= {KW{1'b0}};
            l_rem_span <= {SW{1'b0}};
            l_complete_ok <= {B{1'b0}};
            l_spanning0 <= 1'b0;
            l_start0 <= {CW{1'b0}};
            l_qh0 <= {CW{1'b0}};
            l_val <= {B*V{1'b0}};
            l_any_local_ovf <= 1'b0;
            l_qh <= {CW{1'b0}};
            l_start <= {CW{1'b0}};
            l_after <= {CW{1'b0}};
            l_rgot <= {CW{1'b0}};
            l_ones <= {CW{1'b0}};
            l_tail_cut <= {CW{1'b0}};
            l_f_qh <= {CW{1'b0}};
            l_f_start <= {CW{1'b0}};
            l_rbits <= {KW{1'b0}};
            l_ones_none <= {CW{1'b0}};
            l_any_found <= 1'b0;
            l_last_spanning <= 1'b0;
            l_case_cut <= 1'b0;
            l_case_span_on <= 1'b0;
            l_span_active <= 1'b0;
            l_span_done <= 1'b0;
        end else if (advance) begin
            l_valid <= a_valid;
            l_last <= a_last;
            l_bits <= a_bits;
            l_data_lo <= a_data_lo;
            l_rem_span <= a_rem_span;
            l_complete_ok <= a_complete & ok_upto;
            l_spanning0 <= a_spanning0;
            l_start0 <= a_start[CW-1:0];
            l_qh0 <= a_qh[CW-1:0];
            l_val <= val_w;
            l_any_local_ovf <= |a_ovf_local;
            l_qh <= l_qh_w;
            l_start <= l_start_w;
            l_after <= l_after_w;
            l_rgot <= l_rgot_w;
            l_ones <= l_ones_w;
            l_tail_cut <= l_tail_cut_w;
            l_f_qh <= f_qh_w;
            l_f_start <= f_start_w;
            l_rbits <= l_rbits_w;
            l_ones_none <= a_ones_none;
            l_any_found <= any_found;
            l_last_spanning <= last_hot[0] && a_spanning0;
            l_case_cut <= case_cut_w;
            l_case_span_on <= case_span_on_w;
            l_span_active <= a_span_active;
            l_span_done <= a_span_done;
        end
    end

    // ==== stage B: the cases, on stage L's registers ========================
    // n_q = (use_cq ? c_q : 0) + q_add; n_start = rel ? pos_base +
    // start_off : c_start, and then the tail (stream bits from n_start to
    // the chunk's end) is tail_rel, chosen from stage A's differences (no
    // adder here).
    wire [CW-1:0] ones_after = l_any_found ? l_ones : l_ones_none;
    reg b_use_cq;
    reg [CW-1:0] b_q_add;
    reg b_rel;
    reg [CW-1:0] b_start_off;
    reg [CW-1:0] b_tail_rel_w;
    always @(*) begin
        if (l_case_cut) begin
            b_use_cq = l_last_spanning;
            b_q_add = l_qh;
            b_rel = !l_last_spanning;
            b_start_off = l_start;
            b_tail_rel_w = l_tail_cut;
        end else if (l_any_found) begin
            // complete: the next code starts after it, at most at the end
            b_use_cq = 1'b0;
            b_q_add = ones_after;
            b_rel = 1'b1;
            b_start_off = l_after;
            b_tail_rel_w = l_ones;
        end else if (l_case_span_on) begin
            b_use_cq = 1'b1;
            b_q_add = {CW{1'b0}};
            b_rel = 1'b0;
            b_start_off = {CW{1'b0}};
            b_tail_rel_w = {CW{1'b0}};
        end else if (l_span_active) begin
            // span_end: the carried remainder ends inside the chunk
            b_use_cq = 1'b0;
            b_q_add = ones_after;
            b_rel = 1'b1;
            b_start_off = l_rem_span[CW-1:0];
            b_tail_rel_w = l_ones_none;
        end else begin
            b_use_cq = 1'b1;
            b_q_add = ones_after;
            b_rel = 1'b0;
            b_start_off = {CW{1'b0}};
            b_tail_rel_w = {CW{1'b0}};
        end
    end

    reg b_valid, b_last;
    reg [CW-1:0] b_bits;
    reg [KW-1:0] b_data_lo;
    reg [B-1:0] b_complete_ok;
    reg b_spanning0;
    reg [CW-1:0] b_start0;
    reg [CW-1:0] b_qh0;
    reg [B*V-1:0] b_val;
    reg b_any_local_ovf;
    reg [CW-1:0] b_f_qh, b_f_start;
    reg b_span_done, b_case_cut, b_case_span_on;
    reg b_use_cq_q, b_rel_q;
    reg [CW-1:0] b_q_add_q;
    reg [CW-1:0] b_start_off_q;
    reg [CW-1:0] b_tail_rel;   // bits after n_start when it is chunk-relative
    reg [KW-1:0] b_l_rbits;
    reg [SW-1:0] b_l_rgot;
    always @(posedge clk) begin
        if (rst) begin
            b_valid <= 1'b0;
            b_last <= 1'b0;
            b_bits <= {CW{1'b0}};
            b_data_lo <= {KW{1'b0}};
            b_complete_ok <= {B{1'b0}};
            b_spanning0 <= 1'b0;
            b_start0 <= {CW{1'b0}};
            b_qh0 <= {CW{1'b0}};
            b_val <= {B*V{1'b0}};
            b_any_local_ovf <= 1'b0;
            b_f_qh <= {CW{1'b0}};
            b_f_start <= {CW{1'b0}};
            b_span_done <= 1'b0;
            b_case_cut <= 1'b0;
            b_case_span_on <= 1'b0;
            b_use_cq_q <= 1'b0;
            b_rel_q <= 1'b0;
            b_q_add_q <= {CW{1'b0}};
            b_start_off_q <= {CW{1'b0}};
            b_tail_rel <= {CW{1'b0}};
            b_l_rbits <= {KW{1'b0}};
            b_l_rgot <= {SW{1'b0}};
        end else if (advance) begin
            b_valid <= l_valid;
            b_last <= l_last;
            b_bits <= l_bits;
            b_data_lo <= l_data_lo;
            b_complete_ok <= l_complete_ok;
            b_spanning0 <= l_spanning0;
            b_start0 <= l_start0;
            b_qh0 <= l_qh0;
            b_val <= l_val;
            b_any_local_ovf <= l_any_local_ovf;
            b_f_qh <= l_f_qh;
            b_f_start <= l_f_start;
            b_span_done <= l_span_done;
            b_case_cut <= l_case_cut;
            b_case_span_on <= l_case_span_on;
            b_use_cq_q <= b_use_cq;
            b_rel_q <= b_rel;
            b_q_add_q <= b_q_add;
            b_start_off_q <= b_start_off;
            b_tail_rel <= b_tail_rel_w;
            b_l_rbits <= l_rbits;
            b_l_rgot <= l_rgot[SW-1:0];
        end
    end

    // ==== stage C: the state carried between chunks of a packet ============
    reg [PW-1:0] pos_base_r;  // stream bits before this chunk
    reg [PW-1:0] c_start_r;   // offset of the first bit not in a complete code
    reg [PW-1:0] c_open_r;    // stream bits from there to this chunk
    reg [PW-1:0] c_q_r;       // unary count of the open code
    reg [KW-1:0] c_rbits_r;   // its remainder bits so far, stream order from bit 0
    reg [SW-1:0] c_rgot_r;
    reg          halted_r;    // a quotient overflowed: nothing more this packet

    // A packet's first chunk finds them all 0: reset clears them, and so
    // does every packet's last chunk (below), so no multiplexer on the
    // first-chunk flag sits before this stage's adders.
    wire [PW-1:0] pos_base = pos_base_r;
    wire [PW-1:0] c_start = c_start_r;
    wire [PW-1:0] c_open = c_open_r;
    wire [PW-1:0] c_q = c_q_r;
    wire [KW-1:0] c_rbits = c_rbits_r;
    wire [SW-1:0] c_rgot = c_rgot_r;
    wire halted = halted_r;

    wire [PW-1:0] bits_pw = {{(PW-CW){1'b0}}, b_bits};

    // Builder 0's quotient: a spanning quotient adds the carried count. It
    // overflows when its own count does, or when the carried count exceeds
    // the room left (one comparison on the state, no adder before it). A
    // packet's first chunk never spans in, so spanning reads the carried
    // registers directly; and as the room is at most MAXQ = 2^QW - 1, the
    // comparison is "any carried bit from QW on, or the low QW bits above
    // the room": a QW-bit carry chain beside an OR, not a PW-bit chain.
    // (The adders take the registers as they are and the multiplexer
    // follows the carry chain, where it shares the LUT with the next
    // register's input: a multiplexer before the chain was the longest
    // path, ~6.3 ns at N = 32 on ECP5.)
    wire [PW-1:0] qh0_pw = {{(PW-CW){1'b0}}, b_qh0};
    wire [PW-1:0] q0 = b_spanning0 ? c_q_r + qh0_pw : qh0_pw;
    wire ovf0;
    generate
        if (CHECK_OVF != 0) begin : ovf_check
            // (stage L) builder 0's own count overflows; MAXQ minus it, the
            // room for the carried count (QW bits: when the count is at most
            // MAXQ, its bits from QW on are 0); stage B hands them on
            wire [QW-1:0] qh0_qw;
            if (QW > CW) begin : wide
                assign qh0_qw = {{(QW-CW){1'b0}}, a_qh[CW-1:0]};
            end else begin : narrow
                assign qh0_qw = a_qh[QW-1:0];
            end
            // (a CW-bit count exceeds MAXQ only when MAXQ < 2^CW - 1)
            localparam QH_OVF = MAXQ < {{(PW-CW){1'b0}}, {CW{1'b1}}};
            reg found0_l, qh0_ovf_l, found0_q, qh0_ovf_q;
            reg [QW-1:0] room_l, room_q;
            always @(posedge clk) begin
                if (rst) begin
                    found0_l <= 1'b0;
                    qh0_ovf_l <= 1'b0;
                    room_l <= {QW{1'b0}};
                    found0_q <= 1'b0;
                    qh0_ovf_q <= 1'b0;
                    room_q <= {QW{1'b0}};
                end else if (advance) begin
                    found0_l <= a_any_found;
                    qh0_ovf_l <= QH_OVF != 0 && a_qh[CW-1:0] > MAXQ[CW-1:0];
                    room_l <= MAXQ[QW-1:0] - qh0_qw;
                    found0_q <= found0_l;
                    qh0_ovf_q <= qh0_ovf_l;
                    room_q <= room_l;
                end
            end
            wire carried_above = c_q_r[PW-1:QW] != {(PW-QW){1'b0}} ||
                c_q_r[QW-1:0] > room_q;
            assign ovf0 = found0_q && (qh0_ovf_q || (b_spanning0 && carried_above));
        end else begin : no_ovf
            assign ovf0 = 1'b0;
        end
    endgenerate
    wire any_ovf = ovf0 || b_any_local_ovf;
    // The overflowing code's offset and quotient, both candidates (builder
    // 0's, or the first overflowing builder's from 1 on): stage D picks
    // one by ovf0, so no adder waits for the comparison.
    wire [PW-1:0] ovf_at0 = b_spanning0 ? c_start : pos_base + {{(PW-CW){1'b0}}, b_start0};
    wire [PW-1:0] ovf_atf = pos_base + {{(PW-CW){1'b0}}, b_f_start};

    // The builders' integers: builder 0's quotient field takes the carried
    // count when its code spans in.
    wire [V-1:0] val0_span;
    generate
        if (K == 0) begin : v0k0
            if (V > PW) begin : wide
                assign val0_span = {{(V-PW){1'b0}}, q0};
            end else begin : narrow
                assign val0_span = q0[V-1:0];
            end
        end else if (V == K) begin : v0qnone
            assign val0_span = b_val[V-1:0];
        end else if (QW > PW) begin : v0qwide
            assign val0_span = {{(QW-PW){1'b0}}, q0, b_val[K-1:0]};
        end else begin : v0qnarrow
            assign val0_span = {q0[QW-1:0], b_val[K-1:0]};
        end
    endgenerate
    wire [B*V-1:0] bvals;
    generate
        if (B == 1) begin : one
            assign bvals = b_spanning0 ? val0_span : b_val;
        end else begin : many
            assign bvals = {b_val[B*V-1:V], b_spanning0 ? val0_span : b_val[V-1:0]};
        end
    endgenerate

    // The integer completing the carried code.
    wire [KW-1:0] span_rbits = c_rbits | (b_data_lo << c_rgot);
    wire [V-1:0] span_value;
    generate
        if (K == 0) begin : sv0
            // No remainder: a code never spans by its remainder.
            assign span_value = {V{1'b0}};
        end else if (V == K) begin : svq
            assign span_value = order_rem(span_rbits);
        end else if (QW > PW) begin : svw
            assign span_value = {{(QW-PW){1'b0}}, c_q, order_rem(span_rbits)};
        end else begin : svn
            assign span_value = {c_q[QW-1:0], order_rem(span_rbits)};
        end
    endgenerate

    // ---- the open code after this chunk (carried, or the tail on a last chunk)
    wire [PW-1:0] q_add_pw = {{(PW-CW){1'b0}}, b_q_add_q};
    wire [PW-1:0] n_q = b_use_cq_q ? c_q + q_add_pw : q_add_pw;
    wire [PW-1:0] n_start = b_rel_q ? pos_base + {{(PW-CW){1'b0}}, b_start_off_q} : c_start;
    // Stream bits from n_start to the chunk's end.
    wire [PW-1:0] n_open = b_rel_q ? {{(PW-CW){1'b0}}, b_tail_rel} : c_open + bits_pw;
    wire n_delim = b_case_cut || b_case_span_on;
    wire [KW-1:0] n_rbits = b_case_cut ? b_l_rbits : b_case_span_on ? span_rbits : {KW{1'b0}};
    wire [SW-1:0] n_rgot = b_case_cut ? b_l_rgot : b_case_span_on ? c_rgot + b_bits[SW-1:0] : {SW{1'b0}};

    // What stage D needs to form the beat.
    reg d_valid, d_last;
    reg d_halted, d_ovf0, d_any_ovf;
    reg [B*V-1:0] d_bvals;
    reg [V-1:0] d_span_value;
    reg d_span_done;
    reg [B-1:0] d_complete_ok;  // complete, and no builder 1..b overflows
    reg [PW-1:0] d_ovf_at0, d_ovf_atf, d_q0, d_tail;
    reg [CW-1:0] d_f_qh;
    reg d_tail_delim;
    always @(posedge clk) begin
        if (rst) begin
            pos_base_r <= {PW{1'b0}};
            c_start_r <= {PW{1'b0}};
            c_open_r <= {PW{1'b0}};
            c_q_r <= {PW{1'b0}};
            c_rbits_r <= {KW{1'b0}};
            c_rgot_r <= {SW{1'b0}};
            halted_r <= 1'b0;
            d_valid <= 1'b0;
            d_last <= 1'b0;
            d_halted <= 1'b0;
            d_ovf0 <= 1'b0;
            d_any_ovf <= 1'b0;
            d_bvals <= {B*V{1'b0}};
            d_span_value <= {V{1'b0}};
            d_span_done <= 1'b0;
            d_complete_ok <= {B{1'b0}};
            d_ovf_at0 <= {PW{1'b0}};
            d_ovf_atf <= {PW{1'b0}};
            d_q0 <= {PW{1'b0}};
            d_f_qh <= {CW{1'b0}};
            d_tail <= {PW{1'b0}};
            d_tail_delim <= 1'b0;
        end else if (advance) begin
            d_valid <= b_valid;
            if (b_valid && b_last) begin
                // the packet ends: the next packet's first chunk starts
                // from a clean state
                pos_base_r <= {PW{1'b0}};
                c_start_r <= {PW{1'b0}};
                c_open_r <= {PW{1'b0}};
                c_q_r <= {PW{1'b0}};
                c_rbits_r <= {KW{1'b0}};
                c_rgot_r <= {SW{1'b0}};
                halted_r <= 1'b0;
            end else if (b_valid) begin
                pos_base_r <= pos_base + bits_pw;
                c_start_r <= n_start;
                c_open_r <= n_open;
                c_q_r <= n_q;
                c_rbits_r <= n_rbits;
                c_rgot_r <= n_rgot;
                halted_r <= halted || any_ovf;
            end
            if (b_valid) begin
                d_last <= b_last;
                d_halted <= halted;
                d_ovf0 <= ovf0;
                d_any_ovf <= any_ovf;
                d_bvals <= bvals;
                d_span_value <= span_value;
                d_span_done <= b_span_done;
                d_complete_ok <= b_complete_ok;
                d_ovf_at0 <= ovf_at0;
                d_ovf_atf <= ovf_atf;
                d_q0 <= q0;
                d_f_qh <= b_f_qh;
                d_tail <= n_open;
                d_tail_delim <= n_delim;
            end
        end
    end

    // ==== stage D: the output beat ==========================================
    // (Gating by the overflow and halted flags of stage C, and the error
    // report kept for a packet's last beat: read only while halted, so
    // never a previous packet's.)
    reg [PW-1:0] err_at_r;
    reg [PW-1:0] err_q_r;
    wire stop_now = d_any_ovf && !d_halted;
    wire [PW-1:0] d_ovf_at = d_ovf0 ? d_ovf_at0 : d_ovf_atf;
    wire [PW-1:0] d_ovf_q = d_ovf0 ? d_q0 : {{(PW-CW){1'b0}}, d_f_qh};
    wire [B-1:0] emit = d_complete_ok & {B{!d_ovf0 && !d_halted}};
    // ---- output alignment: the spanning integer first, then the builders'
    wire span_emit = d_span_done && !d_halted;
    // (When the spanning integer completes, the last builder cannot: its
    // code would need more bits than the chunk has left.)
    wire [B*V-1:0] lanes;
    wire [B-1:0] mask;
    generate
        if (B == 1) begin : one_lane
            assign lanes = span_emit ? d_span_value : d_bvals;
            assign mask = span_emit ? 1'b1 : emit;
        end else begin : many_lanes
            assign lanes = span_emit ? {d_bvals[(B-1)*V-1:0], d_span_value} : d_bvals;
            assign mask = span_emit ? {emit[B-2:0], 1'b1} : emit;
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            out_valid <= 1'b0;
            out_last <= 1'b0;
            out_lanes <= {B*V{1'b0}};
            out_mask <= {B{1'b0}};
            out_ovf <= 1'b0;
            out_ovf_at <= {PW{1'b0}};
            out_ovf_q <= {PW{1'b0}};
            out_tail <= {PW{1'b0}};
            out_tail_delim <= 1'b0;
            err_at_r <= {PW{1'b0}};
            err_q_r <= {PW{1'b0}};
        end else if (advance) begin
            out_valid <= d_valid;
            if (d_valid) begin
                out_last <= d_last;
                out_lanes <= lanes;
                out_mask <= mask;
                if (stop_now) begin
                    err_at_r <= d_ovf_at;
                    err_q_r <= d_ovf_q;
                end
                // Status, on the last chunk's beat.
                out_ovf <= d_last && (d_halted || d_any_ovf);
                out_ovf_at <= !d_last ? {PW{1'b0}} : stop_now ? d_ovf_at : d_halted ? err_at_r : {PW{1'b0}};
                out_ovf_q <= !d_last ? {PW{1'b0}} : stop_now ? d_ovf_q : d_halted ? err_q_r : {PW{1'b0}};
                out_tail <= (d_last && !d_halted && !d_any_ovf) ? d_tail : {PW{1'b0}};
                out_tail_delim <= d_last && !d_halted && !d_any_ovf && d_tail_delim;
            end
        end
    end
endmodule
