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
// It also precomputes what the selector FSM needs to pick the next chunk's
// pipeline: the remainder bits of the last code that fall past the chunk
// (next_rem) and the continuation bits after the last code (free_flags; the
// chunk ends inside a quotient when its last bit is one of them).
module rice_insert #(
    parameter N = 32,  // chunk bits (--width)
    parameter K = 3,   // remainder bits (--k)
    parameter P = 0,   // remainder bits assumed to span into the chunk
    parameter B = 8,   // blocks: ceil(N / (K + 1))
    parameter SW = 8   // width of remainder-bit counts
) (
    input  wire [N-1:0]  delim_bits,   // chunk bits holding the delimiter value
    output wire [N-1:0]  delim_flags,  // delimiters under this assumption
    output wire [N-1:0]  free_flags,   // bits after the last code (continuation)
    output reg  [SW-1:0] next_rem      // remainder bits spanning into the next chunk
);
    // Chunk bits, the remainder of a code cut at the end, and one more bit
    // (the delimiter at bit N-1 shifted past the remainder) so that stop
    // never wraps.
    localparam X = N + K + 1;

    genvar i;
    generate
        for (i = 0; i < B; i = i + 1) begin : block
            // Bits after the last claimed code before this block (at first
            // every bit after the P spanning remainder bits, none when
            // P >= N), and the delimiters marked so far.
            wire [N-1:0] avail_in;
            wire [N-1:0] delim_in;
            // Remainder bits past the chunk claimed so far (bit 0 first).
            wire [K:0] past_in;
            if (i == 0) begin : head
                assign avail_in = {N{1'b1}} << P;
                assign delim_in = {N{1'b0}};
                if (P > N) begin : deep
                    assign past_in = ~({(K+1){1'b1}} << (P - N));
                end else begin : shallow
                    assign past_in = {(K+1){1'b0}};
                end
            end else begin : chain
                assign avail_in = block[i-1].avail_out;
                assign delim_in = block[i-1].delim_out;
                assign past_in = block[i-1].past_out;
            end
            wire [N-1:0] cand = delim_bits & avail_in;
            wire found = |cand;
            // The first candidate in stream order (lowest set bit).
            wire [N-1:0] first = cand & (~cand + {{(N-1){1'b0}}, 1'b1});
            wire [X-1:0] first_x = {{(K+1){1'b0}}, first};
            // Every bit up to this code's last remainder bit, past the chunk
            // when the code is cut (all ones when no delimiter is left).
            wire [X-1:0] stop = (first_x << (K + 1)) - {{(X-1){1'b0}}, 1'b1};
            wire [N-1:0] avail_out = found ? ~stop[N-1:0] : avail_in;
            wire [N-1:0] delim_out = delim_in | first;
            wire [K:0] past_out = past_in | (found ? stop[X-1:N] : {(K+1){1'b0}});
        end
    endgenerate

    assign delim_flags = block[B-1].delim_out;
    assign free_flags = block[B-1].avail_out;

    // The remainder bits past the chunk are contiguous from bit 0; bit K is
    // never set (a code's last remainder bit is at most K past the chunk).
    wire [K:0] past = block[B-1].past_out;
    integer j;
    always @(*) begin
        next_rem = {SW{1'b0}};
        for (j = 0; j < K; j = j + 1)
            if (past[j]) next_rem = j[SW-1:0] + {{(SW-1){1'b0}}, 1'b1};
        if (past[K]) next_rem = {SW{1'b1}};
    end
endmodule
