// Golomb-Rice integer builders and output alignment (dissertation 5.4.2.3,
// 5.4.2.4, Figure 5.5). Part of the qrtl Golomb-Rice decoder
// (rtl-templates/rice_build.v).
//
// B = ceil(N/(K+1)) builders in a chain. Builder b takes the first
// delimiter left valid by builders 0..b-1 (the validation stage) and
// invalidates it for the next; its quotient is the ones count of the unary
// bits before the delimiter (plus the carried count when the code spans in,
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
    input  wire              in_first,
    input  wire              in_last,
    input  wire [CW-1:0]     in_bits,     // valid bits in the chunk (N but on a last beat)
    input  wire [N-1:0]      in_data,     // chunk bits in stream order (invalid bits 0)
    input  wire [N-1:0]      in_delim,    // selected delimiter flags
    input  wire [N-1:0]      in_free,     // continuation bits after the last code
    input  wire [N-1:0]      in_span,     // spanning flags
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

    // ---- carried state between chunks of a packet (cleared by a first chunk)
    reg [PW-1:0] pos_base_r;  // stream bits before this chunk
    reg [PW-1:0] c_start_r;   // offset of the first bit not in a complete code
    reg [PW-1:0] c_q_r;       // unary count of the open code
    reg [KW-1:0] c_rbits_r;   // its remainder bits so far, stream order from bit 0
    reg [SW-1:0] c_rgot_r;
    reg          halted_r;    // a quotient overflowed: nothing more this packet
    reg [PW-1:0] err_at_r;
    reg [PW-1:0] err_q_r;

    wire [PW-1:0] pos_base = in_first ? {PW{1'b0}} : pos_base_r;
    wire [PW-1:0] c_start = in_first ? {PW{1'b0}} : c_start_r;
    wire [PW-1:0] c_q = in_first ? {PW{1'b0}} : c_q_r;
    wire [KW-1:0] c_rbits = in_first ? {KW{1'b0}} : c_rbits_r;
    wire [SW-1:0] c_rgot = in_first ? {SW{1'b0}} : c_rgot_r;
    wire halted = !in_first && halted_r;

    wire [PW-1:0] bits_pw = {{(PW-CW){1'b0}}, in_bits};
    wire [CW-1:0] k_cw = K;
    wire [CW+1:0] bits_x = {2'b00, in_bits};
    wire [CW+1:0] rem_span_x = {{(CW+2-SW){1'b0}}, in_rem_span};

    // One-hot to binary: bit i of a position is the OR of the one-hot bits
    // whose index has bit i set (constant masks).
    function [N-1:0] index_bit_mask;
        input integer bit_i;
        integer j;
        begin
            for (j = 0; j < N; j = j + 1) index_bit_mask[j] = ((j >> bit_i) & 1) == 1;
        end
    endfunction

    // The ones counter: continuation bits after the last code.
    function [CW-1:0] count_ones;
        input [N-1:0] x;
        integer j;
        begin
            count_ones = {CW{1'b0}};
            for (j = 0; j < N; j = j + 1)
                count_ones = count_ones + {{(CW-1){1'b0}}, x[j]};
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

    // The K bits after the delimiter at pos (zeros past the chunk).
    localparam XW = $clog2(N + KW);  // index of a bit of data_x
    function [KW-1:0] rem_after;
        input [XW-1:0] pos;
        input [N+KW-1:0] x;
        integer j;
        begin
            rem_after = {KW{1'b0}};
            for (j = 0; j < K; j = j + 1)
                rem_after[j] = x[pos + j[XW-1:0] + {{(XW-1){1'b0}}, 1'b1}];
        end
    endfunction

    // Chunk bits with zeros past the end, for remainder windows.
    wire [N+KW-1:0] data_x = {{KW{1'b0}}, in_data};
    // (Bits past a last beat's end look like continuation bits: masked.)
    wire [N-1:0] free_valid = in_free & ~({N{1'b1}} << in_bits);
    wire [CW-1:0] ones_after = count_ones(free_valid);
    wire [PW-1:0] ones_after_pw = {{(PW-CW){1'b0}}, ones_after};

    // ---- the carried code completing in this chunk (p = in_rem_span > 0)
    wire span_active = in_rem_span != {SW{1'b0}};
    wire span_done = span_active && rem_span_x <= bits_x;
    wire [KW-1:0] span_rbits = c_rbits | (data_x[KW-1:0] << c_rgot);

    // ---- the builders
    wire [B-1:0] emit;         // builder b's integer goes out
    wire [B*V-1:0] bvals;
    genvar b;
    generate
        for (b = 0; b < B; b = b + 1) begin : builder
            wire [N-1:0] left_in;   // delimiters still valid
            wire [CW-1:0] start;    // first bit of this builder's code in the chunk
            // Reductions over builders 0..b-1: an overflow seen (the first
            // one's offset and quotient), and the last code found.
            wire ovf_in;
            wire [PW-1:0] ovf_at_in, ovf_q_in;
            wire found_in, complete_in;
            wire [PW-1:0] q_in, at_in;
            wire [CW-1:0] end_in, rgot_in;
            wire [KW-1:0] rbits_in;
            if (b == 0) begin : head
                assign left_in = in_delim;
                assign start = in_rem_span[CW-1:0];
                assign ovf_in = 1'b0;
                assign ovf_at_in = {PW{1'b0}};
                assign ovf_q_in = {PW{1'b0}};
                assign found_in = 1'b0;
                assign complete_in = 1'b0;
                assign q_in = {PW{1'b0}};
                assign at_in = {PW{1'b0}};
                assign end_in = {CW{1'b0}};
                assign rgot_in = {CW{1'b0}};
                assign rbits_in = {KW{1'b0}};
            end else begin : chain
                assign left_in = builder[b-1].rest.left_out;
                assign start = builder[b-1].dpos + k_cw + {{(CW-1){1'b0}}, 1'b1};
                assign ovf_in = builder[b-1].ovf_out;
                assign ovf_at_in = builder[b-1].ovf_at_out;
                assign ovf_q_in = builder[b-1].ovf_q_out;
                assign found_in = builder[b-1].found_out;
                assign complete_in = builder[b-1].complete_out;
                assign q_in = builder[b-1].q_out;
                assign at_in = builder[b-1].at_out;
                assign end_in = builder[b-1].end_out;
                assign rgot_in = builder[b-1].rgot_out;
                assign rbits_in = builder[b-1].rbits_out;
            end
            // Validation: take the first valid delimiter, invalidate it.
            wire found = |left_in;
            wire [N-1:0] pick = left_in & (~left_in + {{(N-1){1'b0}}, 1'b1});
            if (b < B - 1) begin : rest
                wire [N-1:0] left_out = left_in & ~pick;
            end
            wire [CW-1:0] dpos;
            genvar pb;
            for (pb = 0; pb < CW; pb = pb + 1) begin : enc
                localparam [N-1:0] MASK = index_bit_mask(pb);
                assign dpos[pb] = |(pick & MASK);
            end
            // A quotient spanning in from earlier chunks adds the carried count.
            wire spanning = |(pick & in_span);
            wire [CW-1:0] q_here = dpos - start;
            wire [PW-1:0] q = {{(PW-CW){1'b0}}, q_here} + (spanning ? c_q : {PW{1'b0}});
            wire [PW-1:0] at = spanning ? c_start : pos_base + {{(PW-CW){1'b0}}, start};
            // The code's last bit, and whether it is in the chunk.
            wire [CW-1:0] code_end = dpos + k_cw;
            wire complete = found && {2'b00, dpos} + {2'b00, k_cw} < bits_x;
            wire ovf = CHECK_OVF != 0 && found && q > MAXQ;
            // Remainder extraction: the K bits after the delimiter (those in
            // the chunk when the code is cut; the rest are 0).
            wire [KW-1:0] rbits = rem_after(dpos[XW-1:0], data_x);
            wire [CW-1:0] rgot = in_bits - dpos - {{(CW-1){1'b0}}, 1'b1};
            wire [V-1:0] value;
            if (K == 0) begin : k0
                if (V > PW) begin : wide
                    assign value = {{(V-PW){1'b0}}, q};
                end else begin : narrow
                    assign value = q[V-1:0];
                end
            end else if (V == K) begin : qnone
                assign value = order_rem(rbits);
            end else if (QW > PW) begin : qwide
                assign value = {{(QW-PW){1'b0}}, q, order_rem(rbits)};
            end else begin : qnarrow
                assign value = {q[QW-1:0], order_rem(rbits)};
            end
            assign emit[b] = complete && !ovf && !ovf_in && !halted;
            assign bvals[b*V +: V] = value;
            wire ovf_out = ovf_in || ovf;
            wire [PW-1:0] ovf_at_out = (ovf && !ovf_in) ? at : ovf_at_in;
            wire [PW-1:0] ovf_q_out = (ovf && !ovf_in) ? q : ovf_q_in;
            wire found_out = found_in || found;
            wire complete_out = found ? complete : complete_in;
            wire [PW-1:0] q_out = found ? q : q_in;
            wire [PW-1:0] at_out = found ? at : at_in;
            wire [CW-1:0] end_out = found ? code_end : end_in;
            wire [CW-1:0] rgot_out = found ? rgot : rgot_in;
            wire [KW-1:0] rbits_out = found ? rbits : rbits_in;
        end
    endgenerate

    wire any_ovf = builder[B-1].ovf_out;
    wire any_found = builder[B-1].found_out;
    wire last_complete = builder[B-1].complete_out;

    // ---- output alignment: the spanning integer first, then the builders'
    wire span_emit = span_done && !halted;
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
    // (When the spanning integer completes, the last builder cannot: its
    // code would need more bits than the chunk has left.)
    wire [B*V-1:0] lanes;
    wire [B-1:0] mask;
    generate
        if (B == 1) begin : one
            assign lanes = span_emit ? span_value : bvals;
            assign mask = span_emit ? 1'b1 : emit;
        end else begin : many
            assign lanes = span_emit ? {bvals[(B-1)*V-1:0], span_value} : bvals;
            assign mask = span_emit ? {emit[B-2:0], 1'b1} : emit;
        end
    endgenerate

    // ---- the open code after this chunk (carried, or the tail on a last chunk)
    reg n_delim;
    reg [PW-1:0] n_q, n_start;
    reg [KW-1:0] n_rbits;
    reg [SW-1:0] n_rgot;
    always @(*) begin
        n_delim = 1'b0;
        n_q = ones_after_pw;
        n_start = c_start;
        n_rbits = {KW{1'b0}};
        n_rgot = {SW{1'b0}};
        if (any_found && !last_complete) begin
            // The last delimiter's remainder is cut.
            n_delim = 1'b1;
            n_q = builder[B-1].q_out;
            n_start = builder[B-1].at_out;
            n_rbits = builder[B-1].rbits_out;
            n_rgot = builder[B-1].rgot_out[SW-1:0];
        end else if (any_found) begin
            n_start = pos_base + {{(PW-CW){1'b0}}, builder[B-1].end_out} + {{(PW-1){1'b0}}, 1'b1};
        end else if (span_active && !span_done) begin
            // The carried remainder goes on past this chunk too.
            n_delim = 1'b1;
            n_q = c_q;
            n_rbits = span_rbits;
            n_rgot = c_rgot + in_bits[SW-1:0];
        end else if (span_active) begin
            n_start = pos_base + {{(PW-SW){1'b0}}, in_rem_span};
        end else begin
            // No delimiter: the open quotient goes on.
            n_q = c_q + ones_after_pw;
        end
    end

    wire stop_now = any_ovf && !halted;

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
            pos_base_r <= {PW{1'b0}};
            c_start_r <= {PW{1'b0}};
            c_q_r <= {PW{1'b0}};
            c_rbits_r <= {KW{1'b0}};
            c_rgot_r <= {SW{1'b0}};
            halted_r <= 1'b0;
            err_at_r <= {PW{1'b0}};
            err_q_r <= {PW{1'b0}};
        end else if (advance) begin
            out_valid <= in_valid;
            if (in_valid) begin
                out_last <= in_last;
                out_lanes <= lanes;
                out_mask <= mask;
                pos_base_r <= pos_base + bits_pw;
                c_start_r <= n_start;
                c_q_r <= n_q;
                c_rbits_r <= n_rbits;
                c_rgot_r <= n_rgot;
                halted_r <= halted || any_ovf;
                if (stop_now) begin
                    err_at_r <= builder[B-1].ovf_at_out;
                    err_q_r <= builder[B-1].ovf_q_out;
                end
                // Status, on the last chunk's beat.
                out_ovf <= in_last && (halted || any_ovf);
                out_ovf_at <= !in_last ? {PW{1'b0}} : stop_now ? builder[B-1].ovf_at_out : halted ? err_at_r : {PW{1'b0}};
                out_ovf_q <= !in_last ? {PW{1'b0}} : stop_now ? builder[B-1].ovf_q_out : halted ? err_q_r : {PW{1'b0}};
                out_tail <= (in_last && !halted && !any_ovf) ? pos_base + bits_pw - n_start : {PW{1'b0}};
                out_tail_delim <= in_last && !halted && !any_ovf && n_delim;
            end
        end
    end
endmodule
