// Golomb-Rice delimiter insertion pipeline (dissertation 5.4.2.1, Figure 5.3).
// Part of the qrtl Golomb-Rice decoder (rtl-templates/rice/rice_insert.v).
//
// One of the K+1 speculative pipelines: it assumes that the first P bits of
// the chunk are remainder bits of a code begun in an earlier chunk (P = 0:
// the chunk starts aligned or inside a unary quotient) and marks the
// delimiter of every code after them. Block i finds the first
// delimiter-valued bit not yet claimed by blocks 0..i-1 and claims it and
// its K remainder bits; B = ceil(N/(K+1)) blocks mark every delimiter a
// chunk can hold. Bit 0 is the chunk's first bit in stream order.
//
// Pipeline: block i works in stage i and its results are registered;
// stage j encodes block j-1's mark (one-hot) into a position, so the
// outputs come B+1 cycles after delim_bits (every register moves with
// advance). The blocks form a chain (block i needs the bits left by blocks
// 0..i-1), and one block is a find-first-set over N bits (a carry chain)
// plus one LUT making the next block's candidates: in one clock, B of them
// in series were the decoder's critical path (~49 ns at N = 32 on ECP5).
// Nothing here depends on an earlier chunk (the assumption P is fixed), so
// the chain can be split into as many stages as it has blocks; the
// selector FSM after it stays the only loop.
//
// It also precomputes what the selector FSM needs to pick the next chunk's
// pipeline: the remainder bits of the last code that fall past the chunk
// (next_rem, and one-hot as next_hot), whether the chunk ends inside a
// quotient (last_free: its last bit is a continuation bit after the last
// code), and the bits a quotient spanning in covers (first_span: through
// the first delimiter's code; with POS = 1 just whether that delimiter
// exists). The payload for the integer builders is,
// with POS = 0, the continuation bits after the last code and the
// delimiter flags ({free, delim}: the single builder scans them), with
// POS = 1 the position of each block's delimiter (found bits at
// [B*CW +: B], positions at [b*CW +: CW], 0 when none), so that the
// no-stall builders need no find-first chain of their own.
module rice_insert #(
    parameter N = 32,  // chunk bits (--width)
    parameter K = 3,   // remainder bits (--k)
    parameter P = 0,   // remainder bits assumed to span into the chunk
    parameter B = 8,   // blocks: ceil(N / (K + 1))
    parameter POS = 1, // payload: 1 the blocks' delimiter positions, 0 the flags
    parameter SW = 8,  // width of remainder-bit counts
    parameter CW = 8,  // bit positions within a chunk
    parameter PLW = (POS != 0) ? B * (CW + 1) : 2 * N,  // payload bits
    parameter SPW = (POS != 0) ? 1 : N  // first_span bits
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            advance,      // the pipeline moves this cycle
    input  wire [N-1:0]    delim_bits,   // chunk bits holding the delimiter value
    output wire            last_free,    // the last bit is after the last code
    output reg  [SW-1:0]   next_rem,     // remainder bits spanning into the next chunk
    output wire [K:0]      next_hot,     // next_rem one-hot (bit j: j bits)
    output wire [SPW-1:0]  first_span,   // bits through the first code (all: none), or (POS = 1) whether it exists
    output wire [PLW-1:0]  payload       // for the builders (see above)
);
    // Blocks whose delimiter position travels with the chunk.
    localparam L = (POS != 0) ? B : 1;
    // Chunk bits, the remainder of a code cut at the end, and one more bit
    // (the delimiter at bit N-1 shifted past the remainder) so that stop
    // never wraps.
    localparam X = N + K + 1;

    // One-hot to binary: bit i of a position is the OR of the one-hot bits
    // whose index has bit i set (constant masks).
    function [N-1:0] index_bit_mask;
        input integer bit_i;
        integer j;
        begin
            for (j = 0; j < N; j = j + 1) index_bit_mask[j] = ((j >> bit_i) & 1) == 1;
        end
    endfunction

    // Bits of the free flags that travel with the chunk: all of them for
    // the payload (POS = 0), else just the last.
    localparam FW = (POS != 0) ? 1 : N;

    genvar i, j, pb;
    generate
        for (i = 0; i < B; i = i + 1) begin : block
            // Stage i's inputs: the chunk's delimiter-valued bits, the
            // candidates (those after the last claimed code before this
            // block: at first every one after the P spanning remainder
            // bits, none when P >= N), the top FW free flags (bits after the
            // last claimed code), and the remainder bits past the chunk
            // claimed so far (bit 0 first).
            wire [N-1:0] cand;
            wire [FW-1:0] free_in;
            wire [K:0] past_in;
            if (i == 0) begin : head
                wire [N-1:0] avail0 = {N{1'b1}} << P;
                assign cand = delim_bits & avail0;
                assign free_in = avail0[N-1 -: FW];
                if (P > N) begin : deep
                    assign past_in = ~({(K+1){1'b1}} << (P - N));
                end else begin : shallow
                    assign past_in = {(K+1){1'b0}};
                end
            end else begin : chain
                assign cand = block[i-1].fwd.cand_q;
                assign free_in = block[i-1].free_acc;
                assign past_in = block[i-1].past_acc;
            end
            wire found_here = |cand;
            // One carry chain: cand - 1 flips the bits up to the first
            // candidate (lowest set bit, stream order), so
            // cand ^ (cand - 1) is every bit through it and cand & ~(cand - 1)
            // the candidate alone.
            wire [N-1:0] cand_m1 = cand - {{(N-1){1'b0}}, 1'b1};
            wire [N-1:0] first = cand & ~cand_m1;
            // Every bit up to this code's last remainder bit (stop), past the
            // chunk when the code is cut. With no candidate, through and so
            // stop cover every bit: nothing is left for the next block, as
            // it should be. The last block needs only stop's bit N-1 and the
            // bits past the chunk.
            wire stop_last;
            wire [K:0] stop_past;
            if (i < B - 1 || POS == 0 || B == 1) begin : full
                wire [N-1:0] through = cand ^ cand_m1;
                wire [X-1:0] stop;
                if (K == 0) begin : k0
                    assign stop = {1'b0, through};
                end else begin : kn
                    assign stop = ({{(K+1){1'b0}}, through} << K) | {{(X-K){1'b0}}, {K{1'b1}}};
                end
                assign stop_last = stop[N-1];
                assign stop_past = stop[X-1:N];
            end else begin : part
                // (B > 1, so K + 1 < N) through's bits N-1-K .. N-1
                wire [K:0] through_top = cand[N-1 -: K+1] ^ cand_m1[N-1 -: K+1];
                assign stop_last = through_top[0];
                if (K == 0) begin : k0
                    assign stop_past = 1'b0;
                end else begin : kn
                    assign stop_past = {1'b0, through_top[K:1]};
                end
            end
            // The free flags after this code, and the remainder bits past the
            // chunk (both apply when a candidate was found).
            wire [FW-1:0] free_here;
            if (POS != 0) begin : free1
                assign free_here = !stop_last;
            end else begin : free_all
                assign free_here = ~{stop_last, full.stop[N-2:0]};
            end

            // Stage i's registers: the chunk's bits and the next block's
            // candidates (the bits after this code: one LUT after the carry
            // chain, none before the next one), the free flags, the
            // remainder bits past the chunk, and this block's mark (one-hot,
            // encoded to a position in the next stage, beside the next
            // block's carry chain).
            if (i < B - 1) begin : fwd
                wire [N-1:0] bits_in;
                if (i == 0) begin : head
                    assign bits_in = delim_bits;
                end else begin : chain
                    assign bits_in = block[i-1].fwd.keep.bits_q;
                end
                if (i < B - 2) begin : keep
                    // (each pipeline keeps its own copy: shared, every
                    // stage's next candidates would route to all K+1)
                    reg [N-1:0] bits_q;
                    (* keep *)
                    always @(posedge clk) begin
                        if (rst) bits_q <= {N{1'b0}};
                        else if (advance) bits_q <= bits_in;
                    end
                end
                reg [N-1:0] cand_q;
                always @(posedge clk) begin
                    if (rst) cand_q <= {N{1'b0}};
                    else if (advance) cand_q <= bits_in & ~full.stop[N-1:0];
                end
            end
            // The free flags and past bits go on as they came in, beside
            // this block's own (found_q, free_here_q, stop_past_q): the next
            // stage combines them (free_acc, past_acc), so the wide OR that
            // tells whether a candidate exists ends at a register, not at a
            // multiplexer.
            reg [FW-1:0] free_q, free_here_q;
            reg [K:0] past_q, stop_past_q;
            reg found_q;
            always @(posedge clk) begin
                if (rst) begin
                    free_q <= {FW{1'b0}};
                    free_here_q <= {FW{1'b0}};
                    past_q <= {(K+1){1'b0}};
                    stop_past_q <= {(K+1){1'b0}};
                    found_q <= 1'b0;
                end else if (advance) begin
                    free_q <= free_in;
                    free_here_q <= free_here;
                    past_q <= past_in;
                    stop_past_q <= stop_past;
                    found_q <= found_here;
                end
            end
            wire [FW-1:0] free_acc = found_q ? free_here_q : free_q;
            wire [K:0] past_acc = past_q | (found_q ? stop_past_q : {(K+1){1'b0}});
            if (i < L) begin : mark
                reg [N-1:0] first_q;
                always @(posedge clk) begin
                    if (rst) first_q <= {N{1'b0}};
                    else if (advance) first_q <= first;
                end
            end
            // The delimiter flags marked so far (payload of POS = 0).
            if (POS == 0) begin : flags
                wire [N-1:0] delim_in;
                if (i == 0) begin : head
                    assign delim_in = {N{1'b0}};
                end else begin : chain
                    assign delim_in = block[i-1].flags.delim_q;
                end
                reg [N-1:0] delim_q;
                always @(posedge clk) begin
                    if (rst) delim_q <= {N{1'b0}};
                    else if (advance) delim_q <= delim_in | first;
                end
            end
        end

        // Stage j (1..B) encodes block j-1's mark into a position (the first
        // L blocks); the positions found so far travel with the chunk (E of
        // them). Stage B, after the last block, also hands on what the
        // selector reads.
        for (j = 1; j <= B; j = j + 1) begin : posn
            localparam E = (j < L) ? j : L;
            reg [E-1:0] found_q;
            reg [E*CW-1:0] dpos_q;
            if (j <= L) begin : enc
                wire [CW-1:0] dpos_here;
                for (pb = 0; pb < CW; pb = pb + 1) begin : bit_
                    localparam [N-1:0] MASK = index_bit_mask(pb);
                    assign dpos_here[pb] = |(block[j-1].mark.first_q & MASK);
                end
                wire [E-1:0] found_next;
                wire [E*CW-1:0] dpos_next;
                if (j == 1) begin : head
                    assign found_next = block[0].found_q;
                    assign dpos_next = dpos_here;
                end else begin : chain
                    assign found_next = {block[j-1].found_q, posn[j-1].found_q};
                    assign dpos_next = {dpos_here, posn[j-1].dpos_q};
                end
                always @(posedge clk) begin
                    if (rst) begin
                        found_q <= {E{1'b0}};
                        dpos_q <= {E*CW{1'b0}};
                    end else if (advance) begin
                        found_q <= found_next;
                        dpos_q <= dpos_next;
                    end
                end
            end else begin : carry
                always @(posedge clk) begin
                    if (rst) begin
                        found_q <= {E{1'b0}};
                        dpos_q <= {E*CW{1'b0}};
                    end else if (advance) begin
                        found_q <= posn[j-1].found_q;
                        dpos_q <= posn[j-1].dpos_q;
                    end
                end
            end
        end
    endgenerate

    // Stage B: the last block's free flags, remainder bits past the chunk
    // and (POS = 0) delimiter flags, one stage on.
    reg [FW-1:0] free_t;
    reg [K:0] past_t;
    always @(posedge clk) begin
        if (rst) begin
            free_t <= {FW{1'b0}};
            past_t <= {(K+1){1'b0}};
        end else if (advance) begin
            free_t <= block[B-1].free_acc;
            past_t <= block[B-1].past_acc;
        end
    end
    assign last_free = free_t[FW-1];
    generate
        if (POS != 0) begin : positions
            assign payload = {posn[B].found_q, posn[B].dpos_q};
        end else begin : flags
            reg [N-1:0] delim_t;
            always @(posedge clk) begin
                if (rst) delim_t <= {N{1'b0}};
                else if (advance) delim_t <= block[B-1].flags.delim_q;
            end
            assign payload = {free_t, delim_t};
        end
    endgenerate

    // What a quotient spanning in would cover. The single builder (POS = 0)
    // takes the bits: every bit through the first delimiter's K remainder
    // bits (all bits when there is none), a comparison of its position with
    // a constant per bit (u < pos + K + 1, i.e. pos >= u - K), on the last
    // stage's registers (its front end is not timing critical). The
    // no-stall builders (POS = 1) need only whether there is a first
    // delimiter (builder 0's code is then the spanning one): block 0's
    // found flag, carried with the positions.
    function [N-1:0] span_mask;
        input found;
        input [CW-1:0] pos;
        integer u;
        begin
            for (u = 0; u < N; u = u + 1)
                span_mask[u] = !found || u <= K || {{(32-CW){1'b0}}, pos} >= u - K;
        end
    endfunction
    generate
        if (POS == 0) begin : span_bits
            assign first_span = span_mask(posn[B].found_q[0], posn[B].dpos_q[CW-1:0]);
        end else begin : span_found
            assign first_span = posn[B].found_q[0];
        end
    endgenerate

    // The remainder bits past the chunk are contiguous from bit 0; bit K is
    // never set (a code's last remainder bit is at most K past the chunk).
    wire [K:0] past = past_t;
    generate
        for (i = 0; i <= K; i = i + 1) begin : hot
            if (i == 0) begin : none
                assign next_hot[i] = !past[0];
            end else begin : some
                assign next_hot[i] = past[i-1] && !past[i];
            end
        end
    endgenerate
    integer r;
    always @(*) begin
        next_rem = {SW{1'b0}};
        for (r = 0; r < K; r = r + 1)
            if (past[r]) next_rem = r[SW-1:0] + {{(SW-1){1'b0}}, 1'b1};
        if (past[K]) next_rem = {SW{1'b1}};
    end
endmodule
