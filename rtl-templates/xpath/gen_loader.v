// qrtl_gen_loader: the configuration reader of the programmable XPath engine
// (--programmable; emitted as is by compiler/xpath/src/emit/generic.rs).
`default_nettype none

// ---- the configuration stream's reader ------------------------------------------
// Records (config_words.rs): a header word (kind 63:56, index 55:32, data
// words 31:16, payload 15:0), then its data words. It writes the shadow
// copies of the clusters, and passes the condition units' and the tag
// decoder's records (COMPARATOR, VALUE, COUNTER, POSITION, LANES, TAGHASH:
// header and data words, u_*) to the units, the clusters' lanes and the
// decoder, one word a clock. TAGS records (tag names packed as bytes: a length, then the
// name) go to a queue in block RAM whose bytes are written into the
// decoder one a clock beside the stream, so the words after them need not
// wait (tready is low only while the queue is full). COMMIT, after a
// HEADER whose signature is this design's, holds the stream; once the
// queue is drained it asks for the new configuration (`pending`) until it
// is active.
module qrtl_gen_loader #(
    parameter [63:0] SIGNATURE = 64'd0,
    parameter [15:0] VERSION = 16'd0,   // the format version (config_words.rs VERSION)
    parameter CODE_W = 7,
    parameter AW_TAG = 5,
    parameter SLOT_W = 16,    // a global slot index
    parameter TQ_AW = 9       // addresses the tag queue's words
) (
    input  wire              clk,
    input  wire              rst,
    input  wire [63:0]       s_cfg_tdata,
    input  wire              s_cfg_tvalid,
    output wire              s_cfg_tready,
    input  wire              s_cfg_tlast,
    input  wire              commit_go,    // the top takes the pending configuration
    input  wire              busy,         // the last commit is still travelling
    // tag decoder writes: byte w_pos of entry w_entry's name, w_last on
    // its last byte
    output reg               w_byte_en,
    output reg  [CODE_W-1:0] w_entry,
    output reg  [AW_TAG-1:0] w_pos,
    output reg  [7:0]        w_byte,
    output reg               w_last,
    // slot words
    output reg               w_slot_en,
    output reg  [SLOT_W-1:0] w_slot,
    output reg  [63:0]       w_word,
    // condition unit records: a header (u_hdr_en) or data word u_at
    // (u_data_en) of record u_kind for unit (or cluster) u_index, with the
    // header's payload u_low
    output reg               u_hdr_en,
    output reg               u_data_en,
    output reg  [7:0]        u_kind,
    output reg  [15:0]       u_index,
    output reg  [15:0]       u_low,
    output reg  [15:0]       u_at,
    output reg  [63:0]       u_word,
    // the rest of the shadow configuration
    output reg  [15:0]       clusters_sh,
    output reg               ordered_sh,
    output reg  [15:0]       id_sh,
    output wire              pending
);
    localparam [7:0] K_HEADER = 8'h01, K_COMPARATOR = 8'h04,
                     K_COUNTER = 8'h05, K_LANES = 8'h06, K_SLOTS = 8'h07, K_COUNTS = 8'h08,
                     K_VALUE = 8'h09, K_POSITION = 8'h0A, K_TAGS = 8'h0B, K_TAGHASH = 8'h0C,
                     K_COMMIT = 8'h0F;
    reg        in_data;       // reading a record's data words
    reg [7:0]  kind;
    reg [23:0] index;
    reg [15:0] low;
    reg [15:0] left;          // data words still to come
    reg [15:0] at;            // data words read
    reg        header_ok;     // a header of this design began the configuration
    reg        committing;    // a COMMIT was read: the stream waits

    // ---- the tag queue: TAGS words (bit 64: a header) until their bytes
    // are written; one block RAM ----
    reg  [64:0]      tq [0:(1 << TQ_AW) - 1];
    reg  [TQ_AW:0]   tq_wr, tq_rd;
    wire             tq_empty = tq_wr == tq_rd;
    wire             tq_full = tq_wr - tq_rd == (1 << TQ_AW);
    reg              dv;          // a queued word is being written out
    reg  [64:0]      dw;          // that word
    reg  [2:0]       dl;          // its byte written now
    reg              naming;      // the bytes now are a name's
    reg  [7:0]       nleft;       // bytes of the name still to come
    reg  [7:0]       dpos;        // the place of the next one
    reg  [CODE_W-1:0] dentry;     // the entry they go to
    wire [7:0]       db = dw[8 * dl +: 8];
    wire             draining = dv || !tq_empty;

    assign s_cfg_tready = !committing && !busy && !tq_full;
    assign pending = committing && !draining;
    wire take = s_cfg_tvalid && s_cfg_tready;
    wire to_queue = take && (in_data ? kind == K_TAGS : s_cfg_tdata[63:56] == K_TAGS);
    always @(posedge clk) begin
        if (to_queue) tq[tq_wr[TQ_AW-1:0]] <= {!in_data, s_cfg_tdata};
    end
    always @(posedge clk) begin
        if (rst) tq_wr <= {(TQ_AW + 1){1'b0}};
        else if (to_queue) tq_wr <= tq_wr + 1'b1;
    end
    wire [15:0] words = s_cfg_tdata[31:16];
    // Records end by their length; an index holds at most 16 bits here.
    wire unused_bits = &{1'b0, s_cfg_tlast, index[23:16]};
    // A record of a condition unit, of a cluster's lanes or the decoder's hash.
    function unit_kind;
        input [7:0] k;
        begin
            unit_kind = k == K_COMPARATOR || k == K_VALUE || k == K_COUNTER || k == K_POSITION
                        || k == K_LANES || k == K_TAGHASH;
        end
    endfunction

    always @(posedge clk) begin
        w_slot_en  <= 1'b0;
        u_hdr_en   <= 1'b0;
        u_data_en  <= 1'b0;
        if (rst) begin
            in_data <= 1'b0;
            header_ok <= 1'b0;
            committing <= 1'b0;
            clusters_sh <= 16'd0;
            ordered_sh <= 1'b0;
            id_sh <= 16'd0;
        end else if (committing) begin
            // The loader waits for the top to take the configuration.
            if (commit_go) committing <= 1'b0;
        end else if (take && !in_data) begin
            kind  <= s_cfg_tdata[63:56];
            index <= s_cfg_tdata[55:32];
            low   <= s_cfg_tdata[15:0];
            left  <= words;
            at    <= 16'd0;
            in_data <= words != 16'd0;
            u_hdr_en <= unit_kind(s_cfg_tdata[63:56]);
            u_kind   <= s_cfg_tdata[63:56];
            u_index  <= s_cfg_tdata[47:32];
            u_low    <= s_cfg_tdata[15:0];
            case (s_cfg_tdata[63:56])
                K_HEADER: begin
                    header_ok <= 1'b0;
                    ordered_sh <= s_cfg_tdata[32];
                end
                K_COUNTS: begin
                    // COUNTS 0 (the tag names) is the reader's check only.
                    if (s_cfg_tdata[55:32] == 24'd1) clusters_sh <= s_cfg_tdata[15:0];
                end
                K_COMMIT: begin
                    if (header_ok) begin
                        id_sh <= s_cfg_tdata[15:0];
                        committing <= 1'b1;
                    end
                    header_ok <= 1'b0;
                end
                default: ;
            endcase
        end else if (take) begin
            left <= left - 16'd1;
            at   <= at + 16'd1;
            if (left == 16'd1) in_data <= 1'b0;
            u_data_en <= unit_kind(kind);
            u_kind    <= kind;
            u_index   <= index[15:0];
            u_low     <= low;
            u_at      <= at;
            u_word    <= s_cfg_tdata;
            case (kind)
                K_HEADER: header_ok <= at == 16'd0 && low == VERSION && s_cfg_tdata == SIGNATURE;
                K_SLOTS: begin
                    w_slot_en <= 1'b1;
                    w_slot    <= index[SLOT_W-1:0] + at[SLOT_W-1:0];
                    w_word    <= s_cfg_tdata;
                end
                default: ;
            endcase
        end
    end
    // ---- the tag queue's writer: a word a clock from the queue, then a
    // byte a clock into the decoder's shadow bank: a length byte, then the
    // name's bytes; a 0 for a length is the padding after the last name ----
    always @(posedge clk) begin
        w_byte_en <= 1'b0;
        if (rst) begin
            tq_rd <= {(TQ_AW + 1){1'b0}};
            dv <= 1'b0;
            naming <= 1'b0;
            dentry <= {CODE_W{1'b0}};
        end else if (!dv) begin
            if (!tq_empty) begin
                dw <= tq[tq_rd[TQ_AW-1:0]];
                tq_rd <= tq_rd + 1'b1;
                dv <= 1'b1;
                dl <= 3'd0;
            end
        end else if (dw[64]) begin
            // A TAGS header: its names start at entry `index`.
            dentry <= dw[32 +: CODE_W];
            dv <= 1'b0;
        end else begin
            dl <= dl + 3'd1;
            if (dl == 3'd7) dv <= 1'b0;
            w_entry <= dentry;
            if (naming) begin
                w_byte_en <= 1'b1;
                w_pos <= dpos[AW_TAG-1:0];
                w_byte <= db;
                w_last <= nleft == 8'd1;
                dpos <= dpos + 8'd1;
                nleft <= nleft - 8'd1;
                if (nleft == 8'd1) begin
                    naming <= 1'b0;
                    dentry <= dentry + 1'b1;
                end
            end else if (db == 8'd0) begin
                dv <= 1'b0;
            end else begin
                naming <= 1'b1;
                nleft <= db;
                dpos <= 8'd0;
            end
        end
    end
endmodule
