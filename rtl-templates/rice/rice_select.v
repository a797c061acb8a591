// Golomb-Rice selector and spanning-bits marker (dissertation 5.4.2.2,
// Figure 5.4). Part of the qrtl Golomb-Rice decoder
// (rtl-templates/rice/rice_select.v).
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
// pipelines (next_rem, last_free) or one LUT after one, and the state is
// kept one-hot too, so the loop is register -> (K+1)-way AND-OR ->
// register. The spanning flags are the selected pipeline's registered
// first_span (its block 0's delimiter, compared per bit in the insertion
// pipeline, or with SPW = 1 just whether it exists): no carry chain or
// comparison after the multiplexer. The select output for the payload
// multiplexer comes from a copy of the one-hot state.
module rice_select #(
    parameter N = 32,  // chunk bits
    parameter K = 3,   // remainder bits
    parameter SW = 8,  // width of remainder-bit counts
    parameter SPW = N  // spanning flags: N bits, or 1 (builder 0's code spans in)
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              advance,     // the pipeline moves this cycle
    input  wire              in_valid,    // a chunk is at this stage
    input  wire              in_first,    // it is the first chunk of a packet
    input  wire [K:0]        in_last_free,  // pipeline p's chunk ends inside a quotient
    input  wire [(K+1)*SW-1:0] in_next_rem,
    input  wire [(K+1)*(K+1)-1:0] in_next_hot, // the same, one-hot
    input  wire [(K+1)*SPW-1:0] in_first_span,  // pipeline p's bits through its first code (SPW = 1: it has one)
    output wire [SPW-1:0]    span,        // spanning bits (SPW = 1: builder 0's code spans in)
    output wire [SW-1:0]     rem_span,    // state: remainder bits spanning in (0: none)
    output wire [K:0]        sel          // the pipeline picked, one-hot (from a copy of the state)
);
    // State after the previous chunk of the packet: the remainder bits
    // spanning in, binary (for the builders) and one-hot (the multiplexers'
    // select), and whether a quotient spans in.
    reg [SW-1:0] st_rem;
    reg [K:0] st_hot;
    reg st_unary;

    assign rem_span = in_first ? {SW{1'b0}} : st_rem;
    wire [K:0] sel_loop = in_first ? {{K{1'b0}}, 1'b1} : st_hot;
    wire unary_span = !in_first && st_unary;

    // The multiplexer over the K+1 pipelines (AND-OR on the one-hot state).
    reg sel_last_free;
    reg [SW-1:0] sel_next_rem;
    reg [K:0] sel_next_hot;
    reg [SPW-1:0] sel_first_span;
    integer p;
    always @(*) begin
        sel_last_free = 1'b0;
        sel_next_rem = {SW{1'b0}};
        sel_next_hot = {(K+1){1'b0}};
        sel_first_span = {SPW{1'b0}};
        for (p = 0; p <= K; p = p + 1) begin
            sel_last_free = sel_last_free | (in_last_free[p] & sel_loop[p]);
            sel_next_rem = sel_next_rem | (in_next_rem[p*SW +: SW] & {SW{sel_loop[p]}});
            sel_next_hot = sel_next_hot | (in_next_hot[p*(K+1) +: K+1] & {(K+1){sel_loop[p]}});
            sel_first_span = sel_first_span | (in_first_span[p*SPW +: SPW] & {SPW{sel_loop[p]}});
        end
    end

    // Spanning bits: a quotient spans in, every bit through the first
    // delimiter's remainder (all bits when there is none, or when that code
    // is cut at the end); else the p remainder bits. With SPW = 1, whether
    // a quotient spans in and ends at the first delimiter (pipeline 0's:
    // the p remainder bits never hold one).
    generate
        if (SPW == 1) begin : spanning0
            assign span = unary_span && sel_first_span[0];
        end else begin : bits
            reg [N-1:0] rem_bits;  // the first p bits when p remainder bits span
            integer q;
            always @(*) begin
                rem_bits = {N{1'b0}};
                for (q = 0; q <= K; q = q + 1)
                    rem_bits = rem_bits | (~({N{1'b1}} << q) & {N{sel_loop[q]}});
            end
            assign span = unary_span ? sel_first_span : rem_bits;
        end
    endgenerate

    // A copy of the one-hot state for the multiplexer of the builders'
    // payload outside this module (keep: synthesis would merge the copies),
    // so the loop's registers drive only the loop, and the copy can sit by
    // the wide payload multiplexer.
    reg [K:0] st_hot_copy;
    (* keep *)
    always @(posedge clk) begin
        if (rst) st_hot_copy <= {{K{1'b0}}, 1'b1};
        else if (advance && in_valid) st_hot_copy <= sel_next_hot;
    end
    assign sel = in_first ? {{K{1'b0}}, 1'b1} : st_hot_copy;

    // (keep here too: of two equal registers, synthesis would drop the one
    // without it)
    (* keep *)
    always @(posedge clk) begin
        if (rst) begin
            st_rem <= {SW{1'b0}};
            st_hot <= {{K{1'b0}}, 1'b1};
            st_unary <= 1'b0;
        end else if (advance && in_valid) begin
            st_rem <= sel_next_rem;
            st_hot <= sel_next_hot;
            st_unary <= sel_last_free;
        end
    end
endmodule
