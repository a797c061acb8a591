// Bit-serial Golomb-Rice decoder: one stream bit per clock, the baseline of
// the dissertation's comparison (5.5). Part of the qrtl Golomb-Rice decoder
// (rtl-templates/rice/rice_serial.v); same ports and output layout as the other
// archs with one lane: one integer per beat, then a status beat (tlast).
module rice_serial #(
    parameter N = 32,           // input beat bits
    parameter K = 3,            // remainder bits
    parameter V = 32,           // value bits
    parameter PW = 40,          // bit offsets, counts, quotients
    parameter CW = 8,           // bit positions within a beat
    parameter MSB_FIRST = 1,    // byte bits and remainders most significant first
    parameter UNARY_ONES = 0,   // the quotient is ones ended by a zero
    parameter CHECK_OVF = 1,    // quotients can exceed MAXQ
    parameter [PW-1:0] MAXQ = 40'd0
) (
    input  wire              clk,
    input  wire              rst,
    input  wire [N-1:0]      s_axis_tdata,
    input  wire [N/8-1:0]    s_axis_tkeep,
    input  wire              s_axis_tvalid,
    output wire              s_axis_tready,
    input  wire              s_axis_tlast,
    output wire [V+1+2+3*PW-1:0] m_axis_tdata,
    output wire              m_axis_tvalid,
    input  wire              m_axis_tready,
    output wire              m_axis_tlast
);
    localparam KW = (K > 0) ? K : 1;
    localparam QW = (V > K) ? V - K : 1;

    // The beat being shifted out, in stream order.
    reg have;
    reg [N-1:0] data;
    reg [CW-1:0] nbits, idx;
    reg last;
    // Decoder state: quotient so far or remainder bits so far.
    reg in_rem;
    reg [PW-1:0] q;
    reg [KW-1:0] rval;
    reg [CW-1:0] rcnt;
    reg [PW-1:0] pos;         // stream bits consumed
    reg [PW-1:0] code_start;  // offset of the open code
    reg halted;
    reg [PW-1:0] err_at, err_q;
    reg flush;                // the packet's bits are done: send the status beat
    // The output beat.
    reg out_valid, out_last, out_lane;
    reg [V-1:0] out_value;
    reg out_ovf, out_tail_delim;
    reg [PW-1:0] out_tail, out_ovf_at, out_ovf_q;

    wire slot_free = !out_valid || m_axis_tready;
    assign s_axis_tready = !have && !flush;
    wire load = s_axis_tvalid && s_axis_tready;

    reg [N-1:0] in_data;
    reg [CW-1:0] in_bits;
    integer i, t;
    always @(*) begin
        in_bits = {CW{1'b0}};
        for (i = 0; i < N / 8; i = i + 1) begin
            for (t = 0; t < 8; t = t + 1)
                in_data[8*i + t] = s_axis_tkeep[i] &&
                    s_axis_tdata[8*i + ((MSB_FIRST != 0) ? 7 - t : t)];
            in_bits = in_bits + (s_axis_tkeep[i] ? 8'd8 : 8'd0);
        end
    end

    wire bit_now = data[0];  // the beat shifts down one bit per step
    wire is_delim = (UNARY_ONES != 0) ? !bit_now : bit_now;
    wire step = have && !halted && slot_free;
    wire beat_end = idx + {{(CW-1){1'b0}}, 1'b1} == nbits;
    wire ovf_now = CHECK_OVF != 0 && q > MAXQ;
    wire [CW-1:0] k_cw = K;
    wire [KW-1:0] rval_next = (MSB_FIRST != 0)
        ? ((rval << 1) | {{(KW-1){1'b0}}, bit_now})
        : (rval | ({{(KW-1){1'b0}}, bit_now} << rcnt));
    // The integer completed by this bit: the quotient alone when K = 0.
    wire [V-1:0] value_now;
    generate
        if (K == 0) begin : k0
            if (V > PW) begin : wide
                assign value_now = {{(V-PW){1'b0}}, q};
            end else begin : narrow
                assign value_now = q[V-1:0];
            end
        end else if (V == K) begin : qnone
            assign value_now = rval_next;
        end else if (QW > PW) begin : qwide
            assign value_now = {{(QW-PW){1'b0}}, q, rval_next};
        end else begin : qnarrow
            assign value_now = {q[QW-1:0], rval_next};
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            have <= 1'b0;
            data <= {N{1'b0}};
            nbits <= {CW{1'b0}};
            idx <= {CW{1'b0}};
            last <= 1'b0;
            in_rem <= 1'b0;
            q <= {PW{1'b0}};
            rval <= {KW{1'b0}};
            rcnt <= {CW{1'b0}};
            pos <= {PW{1'b0}};
            code_start <= {PW{1'b0}};
            halted <= 1'b0;
            err_at <= {PW{1'b0}};
            err_q <= {PW{1'b0}};
            flush <= 1'b0;
            out_valid <= 1'b0;
            out_last <= 1'b0;
            out_lane <= 1'b0;
            out_value <= {V{1'b0}};
            out_ovf <= 1'b0;
            out_tail_delim <= 1'b0;
            out_tail <= {PW{1'b0}};
            out_ovf_at <= {PW{1'b0}};
            out_ovf_q <= {PW{1'b0}};
        end else begin
            if (m_axis_tready) out_valid <= 1'b0;
            if (load) begin
                have <= 1'b1;
                data <= in_data;
                nbits <= in_bits;
                idx <= {CW{1'b0}};
                last <= s_axis_tlast;
            end else if (have && halted) begin
                // After an overflow the rest of the packet is skipped.
                have <= 1'b0;
                flush <= last;
            end else if (step) begin
                idx <= idx + {{(CW-1){1'b0}}, 1'b1};
                data <= data >> 1;
                pos <= pos + {{(PW-1){1'b0}}, 1'b1};
                if (beat_end) begin
                    have <= 1'b0;
                    flush <= last;
                end
                if (!in_rem) begin
                    if (!is_delim) begin
                        q <= q + {{(PW-1){1'b0}}, 1'b1};
                    end else if (ovf_now) begin
                        halted <= 1'b1;
                        err_at <= code_start;
                        err_q <= q;
                    end else if (K == 0) begin
                        out_valid <= 1'b1;
                        out_last <= 1'b0;
                        out_lane <= 1'b1;
                        out_value <= value_now;
                        out_ovf <= 1'b0;
                        out_ovf_at <= {PW{1'b0}};
                        out_ovf_q <= {PW{1'b0}};
                        out_tail <= {PW{1'b0}};
                        out_tail_delim <= 1'b0;
                        q <= {PW{1'b0}};
                        code_start <= pos + {{(PW-1){1'b0}}, 1'b1};
                    end else begin
                        in_rem <= 1'b1;
                        rval <= {KW{1'b0}};
                        rcnt <= {CW{1'b0}};
                    end
                end else begin
                    rval <= rval_next;
                    rcnt <= rcnt + {{(CW-1){1'b0}}, 1'b1};
                    if (rcnt + {{(CW-1){1'b0}}, 1'b1} == k_cw) begin
                        out_valid <= 1'b1;
                        out_last <= 1'b0;
                        out_lane <= 1'b1;
                        out_value <= value_now;
                        out_ovf <= 1'b0;
                        out_ovf_at <= {PW{1'b0}};
                        out_ovf_q <= {PW{1'b0}};
                        out_tail <= {PW{1'b0}};
                        out_tail_delim <= 1'b0;
                        in_rem <= 1'b0;
                        q <= {PW{1'b0}};
                        code_start <= pos + {{(PW-1){1'b0}}, 1'b1};
                    end
                end
            end else if (flush && slot_free) begin
                // The status beat; the decoder is ready for the next packet.
                out_valid <= 1'b1;
                out_last <= 1'b1;
                out_lane <= 1'b0;
                out_value <= {V{1'b0}};
                out_ovf <= halted;
                out_ovf_at <= halted ? err_at : {PW{1'b0}};
                out_ovf_q <= halted ? err_q : {PW{1'b0}};
                out_tail <= halted ? {PW{1'b0}} : pos - code_start;
                out_tail_delim <= !halted && in_rem;
                flush <= 1'b0;
                halted <= 1'b0;
                in_rem <= 1'b0;
                q <= {PW{1'b0}};
                pos <= {PW{1'b0}};
                code_start <= {PW{1'b0}};
            end
        end
    end

    assign m_axis_tvalid = out_valid;
    assign m_axis_tlast = out_last;
    assign m_axis_tdata = {out_ovf_q, out_ovf_at, out_tail, out_tail_delim, out_ovf, out_lane, out_value};
endmodule
