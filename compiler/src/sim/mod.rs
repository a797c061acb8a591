//! Simulation harness: generated C++ Verilator drivers, build cache, result readers.
