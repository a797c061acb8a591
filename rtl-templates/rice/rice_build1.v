// Golomb-Rice single (modified) integer builder of the one-integer-per-cycle
// decoder (dissertation 5.4.3, Figure 5.6). Part of the qrtl Golomb-Rice
// decoder (rtl-templates/rice/rice_build1.v).
//
// It takes one selected chunk at a time (delimiter, continuation and
// spanning flags from the selector) and spends one cycle per integer on
// it: first the integer completing a code carried from earlier chunks,
// then one delimiter per cycle (the first still valid, then invalidated),
// then one cycle closing the chunk (the carried code for the next chunk, or
// on a packet's last chunk the status beat). While it works, in_ready is
// low and the pipeline before it holds (back pressure to the input).
// Each output beat is one integer (lane 1) or the status beat (lane 0,
// tlast); quotient, remainder and status rules are rice_build's.
module rice_build1 #(
    parameter N = 32,         // chunk bits
    parameter K = 3,          // remainder bits
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
    input  wire              in_valid,
    output wire              in_ready,
    input  wire              in_first,
    input  wire              in_last,
    input  wire [CW-1:0]     in_bits,
    input  wire [N-1:0]      in_data,
    input  wire [N-1:0]      in_delim,
    input  wire [N-1:0]      in_free,
    input  wire [N-1:0]      in_span,
    input  wire [SW-1:0]     in_rem_span,
    output reg               out_valid,
    input  wire              out_ready,
    output reg               out_last,
    output reg               out_lane,     // the beat holds an integer
    output reg  [V-1:0]      out_value,
    output reg               out_ovf,
    output reg  [PW-1:0]     out_ovf_at,
    output reg  [PW-1:0]     out_ovf_q,
    output reg  [PW-1:0]     out_tail,
    output reg               out_tail_delim
);
    localparam KW = (K > 0) ? K : 1;
    localparam QW = (V > K) ? V - K : 1;
    localparam XW = $clog2(N + KW);

    // ---- the chunk being worked on
    reg hold;
    reg h_last;
    reg [CW-1:0] h_bits;
    reg [N-1:0] h_data, h_delim, h_free, h_span;
    reg [SW-1:0] h_rem_span;
    reg span_todo;            // the carried code's integer is still to send
    reg [CW-1:0] cur_start;   // first bit of the next code in the chunk
    // the last delimiter taken in this chunk
    reg l_found, l_complete;
    reg [PW-1:0] l_q, l_at;
    reg [CW-1:0] l_end, l_rgot;
    reg [KW-1:0] l_rbits;
    // ---- carried between chunks of a packet
    reg [PW-1:0] pos_base, c_start, c_q;
    reg [KW-1:0] c_rbits;
    reg [SW-1:0] c_rgot;
    reg halted;
    reg [PW-1:0] err_at, err_q;

    assign in_ready = !hold;
    wire slot_free = !out_valid || out_ready;

    function [N-1:0] index_bit_mask;
        input integer bit_i;
        integer j;
        begin
            for (j = 0; j < N; j = j + 1) index_bit_mask[j] = ((j >> bit_i) & 1) == 1;
        end
    endfunction

    function [CW-1:0] count_ones;
        input [N-1:0] x;
        integer j;
        begin
            count_ones = {CW{1'b0}};
            for (j = 0; j < N; j = j + 1)
                count_ones = count_ones + {{(CW-1){1'b0}}, x[j]};
        end
    endfunction

    function [KW-1:0] order_rem;
        input [KW-1:0] r;
        integer j;
        begin
            order_rem = r;
            if (MSB_FIRST != 0)
                for (j = 0; j < K; j = j + 1) order_rem[K-1-j] = r[j];
        end
    endfunction

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

    wire [CW-1:0] k_cw = K;
    wire [CW+1:0] bits_x = {2'b00, h_bits};
    wire [CW+1:0] rem_span_x = {{(CW+2-SW){1'b0}}, h_rem_span};
    wire [PW-1:0] bits_pw = {{(PW-CW){1'b0}}, h_bits};
    wire [N+KW-1:0] data_x = {{KW{1'b0}}, h_data};
    wire [N-1:0] free_valid = h_free & ~({N{1'b1}} << h_bits);
    wire [PW-1:0] ones_after_pw = {{(PW-CW){1'b0}}, count_ones(free_valid)};

    // ---- the carried code completing in this chunk
    wire span_active = h_rem_span != {SW{1'b0}};
    wire span_done = span_active && rem_span_x <= bits_x;
    wire [KW-1:0] span_rbits = c_rbits | (data_x[KW-1:0] << c_rgot);

    // ---- the one builder: the first delimiter still valid
    wire found = |h_delim;
    wire [N-1:0] pick = h_delim & (~h_delim + {{(N-1){1'b0}}, 1'b1});
    wire [CW-1:0] dpos;
    genvar pb;
    generate
        for (pb = 0; pb < CW; pb = pb + 1) begin : enc
            localparam [N-1:0] MASK = index_bit_mask(pb);
            assign dpos[pb] = |(pick & MASK);
        end
    endgenerate
    wire spanning = |(pick & h_span);
    wire [PW-1:0] q = {{(PW-CW){1'b0}}, dpos - cur_start} + (spanning ? c_q : {PW{1'b0}});
    wire [PW-1:0] at = spanning ? c_start : pos_base + {{(PW-CW){1'b0}}, cur_start};
    wire complete = {2'b00, dpos} + {2'b00, k_cw} < bits_x;
    wire ovf = CHECK_OVF != 0 && q > MAXQ;
    wire [KW-1:0] rbits = rem_after(dpos[XW-1:0], data_x);
    wire [CW-1:0] rgot = h_bits - dpos - {{(CW-1){1'b0}}, 1'b1};

    wire [V-1:0] value;
    wire [V-1:0] span_value;
    generate
        if (K == 0) begin : k0
            if (V > PW) begin : wide
                assign value = {{(V-PW){1'b0}}, q};
            end else begin : narrow
                assign value = q[V-1:0];
            end
            assign span_value = {V{1'b0}};
        end else if (V == K) begin : qnone
            assign value = order_rem(rbits);
            assign span_value = order_rem(span_rbits);
        end else if (QW > PW) begin : qwide
            assign value = {{(QW-PW){1'b0}}, q, order_rem(rbits)};
            assign span_value = {{(QW-PW){1'b0}}, c_q, order_rem(span_rbits)};
        end else begin : qnarrow
            assign value = {q[QW-1:0], order_rem(rbits)};
            assign span_value = {c_q[QW-1:0], order_rem(span_rbits)};
        end
    endgenerate

    // ---- closing the chunk: the open code after it
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
        if (l_found && !l_complete) begin
            n_delim = 1'b1;
            n_q = l_q;
            n_start = l_at;
            n_rbits = l_rbits;
            n_rgot = l_rgot[SW-1:0];
        end else if (l_found) begin
            n_start = pos_base + {{(PW-CW){1'b0}}, l_end} + {{(PW-1){1'b0}}, 1'b1};
        end else if (span_active && !span_done) begin
            n_delim = 1'b1;
            n_q = c_q;
            n_rbits = span_rbits;
            n_rgot = c_rgot + h_bits[SW-1:0];
        end else if (span_active) begin
            n_start = pos_base + {{(PW-SW){1'b0}}, h_rem_span};
        end else begin
            n_q = c_q + ones_after_pw;
        end
    end

    // Beat contents.
    task send_value;
        input [V-1:0] v;
        begin
            out_valid <= 1'b1;
            out_last <= 1'b0;
            out_lane <= 1'b1;
            out_value <= v;
            out_ovf <= 1'b0;
            out_ovf_at <= {PW{1'b0}};
            out_ovf_q <= {PW{1'b0}};
            out_tail <= {PW{1'b0}};
            out_tail_delim <= 1'b0;
        end
    endtask

    always @(posedge clk) begin
        if (rst) begin
            hold <= 1'b0;
            h_last <= 1'b0;
            h_bits <= {CW{1'b0}};
            h_data <= {N{1'b0}};
            h_delim <= {N{1'b0}};
            h_free <= {N{1'b0}};
            h_span <= {N{1'b0}};
            h_rem_span <= {SW{1'b0}};
            span_todo <= 1'b0;
            cur_start <= {CW{1'b0}};
            l_found <= 1'b0;
            l_complete <= 1'b0;
            l_q <= {PW{1'b0}};
            l_at <= {PW{1'b0}};
            l_end <= {CW{1'b0}};
            l_rgot <= {CW{1'b0}};
            l_rbits <= {KW{1'b0}};
            pos_base <= {PW{1'b0}};
            c_start <= {PW{1'b0}};
            c_q <= {PW{1'b0}};
            c_rbits <= {KW{1'b0}};
            c_rgot <= {SW{1'b0}};
            halted <= 1'b0;
            err_at <= {PW{1'b0}};
            err_q <= {PW{1'b0}};
            out_valid <= 1'b0;
            out_last <= 1'b0;
            out_lane <= 1'b0;
            out_value <= {V{1'b0}};
            out_ovf <= 1'b0;
            out_ovf_at <= {PW{1'b0}};
            out_ovf_q <= {PW{1'b0}};
            out_tail <= {PW{1'b0}};
            out_tail_delim <= 1'b0;
        end else begin
            if (out_ready) out_valid <= 1'b0;
            if (!hold) begin
                if (in_valid) begin
                    // Take the next chunk; a packet's first starts afresh.
                    hold <= 1'b1;
                    h_last <= in_last;
                    h_bits <= in_bits;
                    h_data <= in_data;
                    h_delim <= in_delim;
                    h_free <= in_free;
                    h_span <= in_span;
                    h_rem_span <= in_rem_span;
                    span_todo <= in_rem_span != {SW{1'b0}} &&
                        {{(CW+2-SW){1'b0}}, in_rem_span} <= {2'b00, in_bits};
                    cur_start <= in_rem_span[CW-1:0];
                    l_found <= 1'b0;
                    l_complete <= 1'b0;
                    if (in_first) begin
                        pos_base <= {PW{1'b0}};
                        c_start <= {PW{1'b0}};
                        c_q <= {PW{1'b0}};
                        c_rbits <= {KW{1'b0}};
                        c_rgot <= {SW{1'b0}};
                        halted <= 1'b0;
                    end
                end
            end else if (slot_free) begin
                if (span_todo && !halted) begin
                    span_todo <= 1'b0;
                    send_value(span_value);
                end else if (found && !halted) begin
                    // One delimiter: its integer, then it is invalidated.
                    h_delim <= h_delim & ~pick;
                    cur_start <= dpos + k_cw + {{(CW-1){1'b0}}, 1'b1};
                    l_found <= 1'b1;
                    l_complete <= complete;
                    l_q <= q;
                    l_at <= at;
                    l_end <= dpos + k_cw;
                    l_rgot <= rgot;
                    l_rbits <= rbits;
                    if (ovf) begin
                        halted <= 1'b1;
                        err_at <= at;
                        err_q <= q;
                    end else if (complete) begin
                        send_value(value);
                    end
                end else begin
                    // Close the chunk.
                    hold <= 1'b0;
                    span_todo <= 1'b0;
                    pos_base <= pos_base + bits_pw;
                    c_start <= n_start;
                    c_q <= n_q;
                    c_rbits <= n_rbits;
                    c_rgot <= n_rgot;
                    if (h_last) begin
                        out_valid <= 1'b1;
                        out_last <= 1'b1;
                        out_lane <= 1'b0;
                        out_value <= {V{1'b0}};
                        out_ovf <= halted;
                        out_ovf_at <= halted ? err_at : {PW{1'b0}};
                        out_ovf_q <= halted ? err_q : {PW{1'b0}};
                        out_tail <= halted ? {PW{1'b0}} : pos_base + bits_pw - n_start;
                        out_tail_delim <= !halted && n_delim;
                    end
                end
            end
        end
    end
endmodule
