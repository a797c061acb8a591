# Thin entry points only (SPEC §1). Everything real lives in Cargo.
CARGO ?= cargo
# Honour CARGO_TARGET_DIR when set (binaries are looked up there).
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
QRTL  := $(TARGET_DIR)/release/qrtl

.PHONY: deps demo test bench clean

# Prerequisites: a Rust toolchain (cargo). The software engine needs nothing else.
deps:
	@command -v $(CARGO) >/dev/null 2>&1 || { echo "error: cargo not found; install Rust from https://rustup.rs" >&2; exit 1; }

# Filter the bundled sample documents with the bundled sample queries.
demo: deps
	$(CARGO) build --release --quiet --bin qrtl
	$(QRTL) xpath check queries/xpath/news.txt
	$(QRTL) xpath filter queries/xpath/news.txt queries/xpath/docs/*.xml
	@echo "--- the same queries split into root-to-leaf paths (may add false positives):"
	$(QRTL) xpath filter --mode paths queries/xpath/news.txt queries/xpath/docs/*.xml

test: deps
	$(CARGO) test --release --workspace

bench: deps
	$(CARGO) build --release --bin qrtl-bench --bin qrtl-bench-rtl
	$(TARGET_DIR)/release/qrtl-bench | tee bench/REPORT-engine.md
	$(TARGET_DIR)/release/qrtl-bench-rtl | tee bench/REPORT-rtl.md

clean:
	$(CARGO) clean
