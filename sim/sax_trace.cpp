// Trace driver for `qrtl_sax` (rtl-templates/xpath/sax.v), used by tests/sax_rtl.rs.
//
//   sax_trace STIMULUS OUTPUT [IDLE_SEED]
//
// STIMULUS: documents, each a little-endian u32 length then its bytes.
// Every byte is fed with in_valid=1 (in_last on a document's last byte);
// with IDLE_SEED != 0, idle cycles (in_valid=0) are sprinkled in between,
// chosen by a xorshift generator seeded with it.
//
// OUTPUT: one 16-byte record per cycle in which any event output is set,
// sampled right after the clock edge (the outputs describe the byte fed
// qrtl_sax's LATENCY = 3 clocks earlier; the trace only uses their order):
//   u32 flags (bit order: see FLAG_* below), u8 o_byte, u8 o_unit_byte,
//   u32 o_unit_cp (bit 31: o_unit_is_cp), u8 o_status, u8 o_reason,
//   u32 error offset.
// A record with flags == 0 never appears; the driver exits with status 1 on
// I/O errors.
//
// The error offset (meaningful with o_doc_end) is the index in its document
// of the byte at which the module's internal `fail` or `ref_ovf_now` was
// first raised, else the document's length: the tokenizer's
// `XmlErrorAt::offset`. They belong to the byte in the parser stage (`p_valid`, `p_last`: the input
// register), so the driver counts the bytes that stage consumes and queues
// one offset per document until its o_doc_end comes out. Reading these
// signals needs the model built with --public-flat-rw; they are not ports.

#include "Vqrtl_sax.h"
#include "Vqrtl_sax___024root.h"
#include "verilated.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <vector>

enum : uint32_t {
    FLAG_NAME_BYTE = 1u << 0,
    FLAG_NAME_FIRST = 1u << 1,
    FLAG_NAME_END = 1u << 2,
    FLAG_ATTR_NAME_BYTE = 1u << 3,
    FLAG_ATTR_NAME_FIRST = 1u << 4,
    FLAG_ATTR_NAME_END = 1u << 5,
    FLAG_VAL_START = 1u << 6,
    FLAG_VAL_UNIT = 1u << 7,
    FLAG_VAL_END = 1u << 8,
    FLAG_OPEN = 1u << 9,
    FLAG_OPEN_EMPTY = 1u << 10,
    FLAG_CLOSE = 1u << 11,
    FLAG_TEXT_UNIT = 1u << 12,
    FLAG_TEXT_END = 1u << 13,
    FLAG_DOC_END = 1u << 14,
};

static void put_u32(std::vector<uint8_t>& out, uint32_t v) {
    for (int i = 0; i < 4; i++) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Error offsets of documents whose last byte the parser stage consumed and
// whose o_doc_end has not been recorded yet, oldest first.
struct ErrOffsets {
    std::deque<uint32_t> done;
    uint32_t pos = 0;                 // bytes of the current document consumed
    uint32_t err = UINT32_MAX;        // where an error was first raised in it

    // Call with the clock low and the inputs of the coming edge evaluated.
    void before_edge(Vqrtl_sax* m) {
        if (!m->rootp->qrtl_sax__DOT__p_valid) return;
        const bool fail = m->rootp->qrtl_sax__DOT__fail;
        // `fail` (a flat sum of terms, for timing) must agree with the state
        // machine's branches, whose reasons are `fail_vec`.
        if (fail != (m->rootp->qrtl_sax__DOT__fail_vec != 0)) {
            fprintf(stderr, "sax_trace: fail = %d but fail_vec = 0x%x at byte %u\n", (int)fail,
                    (unsigned)m->rootp->qrtl_sax__DOT__fail_vec, pos);
            std::exit(3);
        }
        // The reasons as flat sums (`spec_vec`, which the registers take)
        // must be fail_vec's, but for E_UNEXPECTED_BYTE, implied. Both are
        // [NR:1] vectors: reason E is bit E - 1 here.
        constexpr unsigned kUnexpectedByte = 10; // E_UNEXPECTED_BYTE in qrtl_sax
        const unsigned fail_vec = m->rootp->qrtl_sax__DOT__fail_vec;
        const unsigned spec_vec = m->rootp->qrtl_sax__DOT__spec_vec;
        if ((fail_vec & ~(1u << (kUnexpectedByte - 1))) != spec_vec) {
            fprintf(stderr, "sax_trace: spec_vec = 0x%x but fail_vec = 0x%x at byte %u\n", spec_vec,
                    fail_vec, pos);
            std::exit(3);
        }
        const bool error_here = fail || m->rootp->qrtl_sax__DOT__ref_ovf_now;
        if (error_here && err == UINT32_MAX) err = pos;
        pos++;
        if (m->rootp->qrtl_sax__DOT__pe_ev) { // p_valid && the last byte
            done.push_back(err == UINT32_MAX ? pos : err);
            pos = 0;
            err = UINT32_MAX;
        }
    }
};

static void tick(Vqrtl_sax* m, ErrOffsets& e) {
    m->clk = 0;
    m->eval();
    e.before_edge(m);
    // o_byte_next is the byte o_byte takes at this edge (outside reset):
    // the XPath clusters register their tag compares on it a clock ahead.
    const uint8_t byte_next = static_cast<uint8_t>(m->o_byte_next);
    const bool in_reset = m->rst;
    m->clk = 1;
    m->eval();
    if (!in_reset && static_cast<uint8_t>(m->o_byte) != byte_next) {
        std::fprintf(stderr, "sax_trace: o_byte = 0x%02x but o_byte_next was 0x%02x at byte %u\n",
                     static_cast<unsigned>(m->o_byte), static_cast<unsigned>(byte_next), e.pos);
        std::exit(3);
    }
}

static void record(Vqrtl_sax* m, std::vector<uint8_t>& out, ErrOffsets& e) {
    uint32_t f = 0;
    if (m->o_name_byte) f |= FLAG_NAME_BYTE;
    if (m->o_name_first) f |= FLAG_NAME_FIRST;
    if (m->o_name_end) f |= FLAG_NAME_END;
    if (m->o_attr_name_byte) f |= FLAG_ATTR_NAME_BYTE;
    if (m->o_attr_name_first) f |= FLAG_ATTR_NAME_FIRST;
    if (m->o_attr_name_end) f |= FLAG_ATTR_NAME_END;
    if (m->o_val_start) f |= FLAG_VAL_START;
    if (m->o_val_unit) f |= FLAG_VAL_UNIT;
    if (m->o_val_end) f |= FLAG_VAL_END;
    if (m->o_open) f |= FLAG_OPEN;
    if (m->o_open_empty) f |= FLAG_OPEN_EMPTY;
    if (m->o_close) f |= FLAG_CLOSE;
    if (m->o_text_unit) f |= FLAG_TEXT_UNIT;
    if (m->o_text_end) f |= FLAG_TEXT_END;
    if (m->o_doc_end) f |= FLAG_DOC_END;
    if (f == 0) return;
    uint32_t err_offset = 0;
    if (f & FLAG_DOC_END) {
        if (e.done.empty()) {
            std::fprintf(stderr, "o_doc_end without a consumed last byte\n");
            std::exit(1);
        }
        err_offset = e.done.front();
        e.done.pop_front();
    }
    put_u32(out, f);
    out.push_back(static_cast<uint8_t>(m->o_byte));
    out.push_back(static_cast<uint8_t>(m->o_unit_byte));
    put_u32(out, static_cast<uint32_t>(m->o_unit_cp) | (m->o_unit_is_cp ? 0x80000000u : 0u));
    out.push_back(static_cast<uint8_t>(m->o_status));
    out.push_back(static_cast<uint8_t>(m->o_reason));
    put_u32(out, err_offset);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s STIMULUS OUTPUT [IDLE_SEED]\n", argv[0]);
        return 2;
    }
    uint64_t rng = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0;
    const bool idles = rng != 0;

    std::FILE* in = std::fopen(argv[1], "rb");
    if (!in) {
        std::perror(argv[1]);
        return 1;
    }
    std::vector<uint8_t> stim;
    uint8_t buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, in)) > 0) stim.insert(stim.end(), buf, buf + n);
    std::fclose(in);

    Verilated::commandArgs(argc, argv);
    Vqrtl_sax* m = new Vqrtl_sax;
    std::vector<uint8_t> out;
    out.reserve(stim.size() * 4);

    m->in_valid = 0;
    m->in_byte = 0;
    m->in_last = 0;
    ErrOffsets errs;
    m->rst = 1;
    tick(m, errs);
    tick(m, errs);
    m->rst = 0;

    size_t pos = 0;
    while (pos + 4 <= stim.size()) {
        uint32_t len = static_cast<uint32_t>(stim[pos]) | (static_cast<uint32_t>(stim[pos + 1]) << 8) |
                       (static_cast<uint32_t>(stim[pos + 2]) << 16) |
                       (static_cast<uint32_t>(stim[pos + 3]) << 24);
        pos += 4;
        if (len == 0 || pos + len > stim.size()) {
            std::fprintf(stderr, "bad document length %u at offset %zu\n", len, pos - 4);
            return 1;
        }
        for (uint32_t i = 0; i < len; i++) {
            if (idles) {
                // xorshift64: about one byte in eight is preceded by idle cycles.
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                if ((rng & 7) == 0) {
                    int k = 1 + static_cast<int>((rng >> 3) & 3);
                    m->in_valid = 0;
                    m->in_last = 0;
                    m->in_byte = static_cast<uint8_t>(rng >> 8);
                    for (int j = 0; j < k; j++) {
                        tick(m, errs);
                        record(m, out, errs);
                    }
                }
            }
            m->in_valid = 1;
            m->in_byte = stim[pos + i];
            m->in_last = i + 1 == len;
            tick(m, errs);
            record(m, out, errs);
        }
        pos += len;
    }
    m->in_valid = 0;
    m->in_last = 0;
    for (int j = 0; j < 4; j++) {
        tick(m, errs);
        record(m, out, errs);
    }
    m->final();
    delete m;

    std::FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(out.data(), 1, out.size(), o) != out.size() || std::fclose(o) != 0) {
        std::perror(argv[2]);
        return 1;
    }
    return 0;
}
