// Verilator driver for the value comparator test design (tests/vcmp_rtl.rs).
//
// usage: vcmp_sim STIMULUS RESULTS WORDS
//
// STIMULUS: 8-byte records, one per clock cycle:
//   [0] control: bit0 start, bit1 unit_valid, bit2 unit_is_cp,
//                bit3 sample after this cycle, bit4 rst
//   [1] unit_byte   [2..4] unit_cp (little endian, 21 bits)   [5..7] unused
// RESULTS: for every record with the sample bit, WORDS little-endian 32-bit
// words read through rd_word/rd_data after the clock edge (bit b of word w
// = instance 32*w + b).
#include "Vvcmp_test_top.h"
#include "verilated.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s STIMULUS RESULTS WORDS\n", argv[0]);
        return 2;
    }
    const unsigned words = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
    std::FILE* in = std::fopen(argv[1], "rb");
    std::FILE* out = std::fopen(argv[2], "wb");
    if (!in || !out) {
        std::fprintf(stderr, "cannot open %s or %s\n", argv[1], argv[2]);
        return 2;
    }
    const std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
    const std::unique_ptr<Vvcmp_test_top> top{new Vvcmp_test_top{ctx.get()}};
    top->clk = 0;
    top->rst = 1;
    top->eval();

    unsigned char rec[8];
    std::vector<unsigned char> buf;
    unsigned long cycles = 0;
    while (std::fread(rec, 1, sizeof rec, in) == sizeof rec) {
        top->start = rec[0] & 1;
        top->unit_valid = (rec[0] >> 1) & 1;
        top->unit_is_cp = (rec[0] >> 2) & 1;
        top->rst = (rec[0] >> 4) & 1;
        top->unit_byte = rec[1];
        top->unit_cp = (static_cast<uint32_t>(rec[2]) | (static_cast<uint32_t>(rec[3]) << 8) |
                        (static_cast<uint32_t>(rec[4]) << 16)) & 0x1fffffu;
        top->clk = 0;
        top->eval();
        top->clk = 1;
        top->eval();
        ++cycles;
        if (rec[0] & 8) {
            for (unsigned w = 0; w < words; ++w) {
                top->rd_word = w;
                top->eval();
                const uint32_t d = top->rd_data;
                for (int i = 0; i < 4; ++i) buf.push_back(static_cast<unsigned char>(d >> (8 * i)));
            }
        }
    }
    top->final();
    std::fwrite(buf.data(), 1, buf.size(), out);
    std::fclose(in);
    std::fclose(out);
    std::fprintf(stderr, "vcmp_sim: %lu cycles\n", cycles);
    return 0;
}
