// Golomb-Rice selector and spanning-bits marker (dissertation 5.4.2.2,
// Figure 5.4). Part of the qrtl Golomb-Rice decoder
// (rtl-templates/rice_select.v).
//
// The FSM is in one of K+2 states: aligned (no bits of an earlier code in
// the chunk), unary spanning (the chunk starts inside a quotient), or p
// remainder bits spanning (1 <= p <= K). It picks the matching speculative
// pipeline (pipeline 0 for aligned and unary spanning), and the next state
// is that pipeline's precomputed next_rem / last_free: the loop from the
// state through the multiplexer back to the state is all that depends on the
// previous chunk. A packet's first chunk is aligned.
//
// Spanning flags mark the chunk bits that belong to a code begun in an
// earlier chunk: none when aligned, the first p bits when p remainder bits
// span, and when a quotient spans every bit up to the first delimiter and
// its K remainder bits.
//
// Timing: everything the FSM reads is a register of the insertion
// pipelines (next_rem, last_free), so the loop is register ->
// (K+1)-way mux -> register. The spanning flags come from the selected
// pipeline's first delimiter position (its block 0, found by the insertion
// pipeline) through a comparison per bit, not from a find-first scan over
// the selected flags: no carry chain after the multiplexer.
module rice_select #(
    parameter N = 32,  // chunk bits
    parameter K = 3,   // remainder bits
    parameter SW = 8,  // width of remainder-bit counts
    parameter CW = 8   // bit positions within a chunk
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              advance,     // the pipeline moves this cycle
    input  wire              in_valid,    // a chunk is at this stage
    input  wire              in_first,    // it is the first chunk of a packet
    input  wire [K:0]        in_last_free,  // pipeline p's chunk ends inside a quotient
    input  wire [(K+1)*SW-1:0] in_next_rem,
    input  wire [K:0]        in_first_found,  // pipeline p found a delimiter
    input  wire [(K+1)*CW-1:0] in_first_dpos, // at this bit (its first)
    output wire [N-1:0]      span,        // spanning bits
    output wire [SW-1:0]     rem_span     // state: remainder bits spanning in (0: none)
);
    // State after the previous chunk of the packet.
    reg [SW-1:0] st_rem;
    reg st_unary;

    assign rem_span = in_first ? {SW{1'b0}} : st_rem;
    wire unary_span = !in_first && st_unary;

    // The multiplexer over the K+1 pipelines.
    reg sel_last_free;
    reg [SW-1:0] sel_next_rem;
    reg sel_first_found;
    reg [CW-1:0] sel_first_dpos;
    integer p;
    always @(*) begin
        sel_last_free = in_last_free[0];
        sel_next_rem = in_next_rem[SW-1:0];
        sel_first_found = in_first_found[0];
        sel_first_dpos = in_first_dpos[CW-1:0];
        for (p = 1; p <= K; p = p + 1) begin
            if (rem_span == p[SW-1:0]) begin
                sel_last_free = in_last_free[p];
                sel_next_rem = in_next_rem[p*SW +: SW];
                sel_first_found = in_first_found[p];
                sel_first_dpos = in_first_dpos[p*CW +: CW];
            end
        end
    end

    // Spanning bits. A quotient spans in: every bit through the first
    // delimiter's remainder (all bits when there is none, or when that code
    // is cut at the end).
    localparam [CW:0] KP1 = K + 1;
    wire [CW:0] first_end = {1'b0, sel_first_dpos} + KP1;  // first bit after it
    reg [N-1:0] unary_bits;
    integer u;
    always @(*) begin
        for (u = 0; u < N; u = u + 1)
            unary_bits[u] = !sel_first_found || u[CW:0] < first_end;
    end
    wire [N-1:0] rem_bits = ~({N{1'b1}} << rem_span);
    assign span = unary_span ? unary_bits : rem_bits;

    always @(posedge clk) begin
        if (rst) begin
            st_rem <= {SW{1'b0}};
            st_unary <= 1'b0;
        end else if (advance && in_valid) begin
            st_rem <= sel_next_rem;
            st_unary <= sel_last_free;
        end
    end
endmodule
