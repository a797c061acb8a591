// Golomb-Rice delimiter insertion pipeline (dissertation 5.4.2.1, Figure 5.3).
// Part of the qrtl Golomb-Rice decoder (rtl-templates/rice_insert.v).
//
// One of the K+1 speculative pipelines: it assumes that the first P bits of
// the chunk are remainder bits of a code begun in an earlier chunk (P = 0:
// the chunk starts aligned or inside a unary quotient) and marks the
// delimiter of every code after them. Block i finds the first
// delimiter-valued bit not yet claimed by blocks 0..i-1 and claims it and
// its K remainder bits; B = ceil(N/(K+1)) blocks mark every delimiter a
// chunk can hold. Bit 0 is the chunk's first bit in stream order.
//
// Pipeline: block i works in stage i and its results are registered (B
// stages, B cycles from delim_bits to the outputs; every register moves
// with advance). The blocks form a chain (block i needs the bits left by
// blocks 0..i-1), and one block is a find-first-set over N bits (a carry
// chain) plus a mask: in one clock, B of them in series were the decoder's
// critical path (~49 ns at N = 32 on ECP5). Nothing here depends on an
// earlier chunk (the assumption P is fixed), so the chain can be split
// into as many stages as it has blocks; the selector FSM after it stays
// the only loop.
//
// It also precomputes what the selector FSM needs to pick the next chunk's
// pipeline: the remainder bits of the last code that fall past the chunk
// (next_rem), whether the chunk ends inside a quotient (last_free: its last
// bit is a continuation bit after the last code), and the position of the
// first delimiter (first_found, first_dpos: the spanning bits of a quotient
// that spans in end at its code). The payload for the integer builders is,
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
    parameter PLW = (POS != 0) ? B * (CW + 1) : 2 * N  // payload bits
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            advance,      // the pipeline moves this cycle
    input  wire [N-1:0]    delim_bits,   // chunk bits holding the delimiter value
    output wire            last_free,    // the last bit is after the last code
    output reg  [SW-1:0]   next_rem,     // remainder bits spanning into the next chunk
    output wire            first_found,  // a delimiter is marked
    output wire [CW-1:0]   first_dpos,   // the first one's bit
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

    genvar i, pb;
    generate
        for (i = 0; i < B; i = i + 1) begin : block
            // Stage i's inputs: the chunk's delimiter-valued bits, the bits
            // after the last claimed code before this block (at first every
            // bit after the P spanning remainder bits, none when P >= N),
            // the delimiters marked so far, and the remainder bits past the
            // chunk claimed so far (bit 0 first).
            wire [N-1:0] bits_in;
            wire [N-1:0] avail_in;
            wire [K:0] past_in;
            if (i == 0) begin : head
                assign bits_in = delim_bits;
                assign avail_in = {N{1'b1}} << P;
                if (P > N) begin : deep
                    assign past_in = ~({(K+1){1'b1}} << (P - N));
                end else begin : shallow
                    assign past_in = {(K+1){1'b0}};
                end
            end else begin : chain
                assign bits_in = block[i-1].fwd.bits_q;
                assign avail_in = block[i-1].fwd.avail_q;
                assign past_in = block[i-1].past_q;
            end
            wire [N-1:0] cand = bits_in & avail_in;
            wire found_here = |cand;
            // One carry chain: cand - 1 flips the bits up to the first
            // candidate (lowest set bit, stream order), so
            // cand ^ (cand - 1) is every bit through it and cand & ~(cand - 1)
            // the candidate alone.
            wire [N-1:0] cand_m1 = cand - {{(N-1){1'b0}}, 1'b1};
            wire [N-1:0] through = cand ^ cand_m1;
            wire [N-1:0] first = cand & ~cand_m1;
            // Every bit up to this code's last remainder bit, past the chunk
            // when the code is cut (used only when a candidate was found).
            wire [X-1:0] stop;
            if (K == 0) begin : k0
                assign stop = {1'b0, through};
            end else begin : kn
                assign stop = ({{(K+1){1'b0}}, through} << K) | {{(X-K){1'b0}}, {K{1'b1}}};
            end
            wire [N-1:0] avail_out = found_here ? ~stop[N-1:0] : avail_in;
            wire [K:0] past_out = past_in | (found_here ? stop[X-1:N] : {(K+1){1'b0}});

            // Stage i's registers (the chunk's bits and the bits left go on
            // to the next block; after the last, the bits after the last
            // code: all of them for the payload, or just the last bit).
            if (i < B - 1) begin : fwd
                reg [N-1:0] bits_q;
                reg [N-1:0] avail_q;
                always @(posedge clk) begin
                    if (rst) begin
                        bits_q <= {N{1'b0}};
                        avail_q <= {N{1'b0}};
                    end else if (advance) begin
                        bits_q <= bits_in;
                        avail_q <= avail_out;
                    end
                end
            end else if (POS != 0) begin : last_bit
                reg free_q;
                always @(posedge clk) begin
                    if (rst) free_q <= 1'b0;
                    else if (advance) free_q <= avail_out[N-1];
                end
            end else begin : all_bits
                reg [N-1:0] free_q;
                always @(posedge clk) begin
                    if (rst) free_q <= {N{1'b0}};
                    else if (advance) free_q <= avail_out;
                end
            end
            reg [K:0] past_q;
            always @(posedge clk) begin
                if (rst) past_q <= {(K+1){1'b0}};
                else if (advance) past_q <= past_out;
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

            // The claimed delimiter's position, for the first L blocks; the
            // positions found so far travel with the chunk (E of them).
            localparam E = (i + 1 < L) ? i + 1 : L;
            reg [E-1:0] found_q;
            reg [E*CW-1:0] dpos_q;
            if (i < L) begin : pos
                wire [CW-1:0] dpos_here;
                for (pb = 0; pb < CW; pb = pb + 1) begin : enc
                    localparam [N-1:0] MASK = index_bit_mask(pb);
                    assign dpos_here[pb] = |(first & MASK);
                end
                wire [E-1:0] found_next;
                wire [E*CW-1:0] dpos_next;
                if (i == 0) begin : head
                    assign found_next = found_here;
                    assign dpos_next = dpos_here;
                end else begin : chain
                    assign found_next = {found_here, block[i-1].found_q};
                    assign dpos_next = {dpos_here, block[i-1].dpos_q};
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
                        found_q <= block[i-1].found_q;
                        dpos_q <= block[i-1].dpos_q;
                    end
                end
            end
        end
    endgenerate

    assign first_found = block[B-1].found_q[0];
    assign first_dpos = block[B-1].dpos_q[CW-1:0];
    generate
        if (POS != 0) begin : positions
            assign last_free = block[B-1].last_bit.free_q;
            assign payload = {block[B-1].found_q, block[B-1].dpos_q};
        end else begin : flags
            assign last_free = block[B-1].all_bits.free_q[N-1];
            assign payload = {block[B-1].all_bits.free_q, block[B-1].flags.delim_q};
        end
    endgenerate

    // The remainder bits past the chunk are contiguous from bit 0; bit K is
    // never set (a code's last remainder bit is at most K past the chunk).
    wire [K:0] past = block[B-1].past_q;
    integer j;
    always @(*) begin
        next_rem = {SW{1'b0}};
        for (j = 0; j < K; j = j + 1)
            if (past[j]) next_rem = j[SW-1:0] + {{(SW-1){1'b0}}, 1'b1};
        if (past[K]) next_rem = {SW{1'b1}};
    end
endmodule
