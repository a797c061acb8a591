# Thin entry points only (SPEC §1). Everything real lives in Cargo.
CARGO ?= cargo
# Honour CARGO_TARGET_DIR when set (binaries are looked up there).
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
QRTL  := $(TARGET_DIR)/release/qrtl
DEMO  := $(TARGET_DIR)/demo
# Simulators and synthesis tools from Debian (SPEC §7).
APT_TOOLS := verilator iverilog yosys ccache

# The pinned open synthesis tools for `qrtl synth` (SPEC §7).
SYNTH_VENV := .venv-synth
PYTHON ?= python3

.PHONY: deps deps-synth demo test python synth bench clean

# Prerequisites: a Rust toolchain, and Verilator, Icarus Verilog, Yosys and
# ccache (installed with apt-get when missing and run as root).
deps:
	@command -v $(CARGO) >/dev/null 2>&1 || { echo "error: cargo not found; install Rust from https://rustup.rs" >&2; exit 1; }
	@missing=""; for t in $(APT_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_TOOLS) >/dev/null; \
	  else \
	    echo "error: missing$$missing; run: sudo apt-get install $(APT_TOOLS)" >&2; exit 1; \
	  fi; \
	fi

# Yosys and nextpnr-ecp5/ice40 from PyPI (YoWASP builds, versions pinned in
# synth-requirements.txt) in a local venv that `qrtl synth` finds by itself.
deps-synth: $(SYNTH_VENV)/.installed
$(SYNTH_VENV)/.installed: synth-requirements.txt
	$(PYTHON) -m venv $(SYNTH_VENV)
	$(SYNTH_VENV)/bin/pip install --quiet --disable-pip-version-check -r synth-requirements.txt
	touch $@

# Area and Fmax of a generated project:  make synth DIR=out/news TARGET=ecp5
TARGET ?= ecp5
synth: deps deps-synth
	@test -n "$(DIR)" || { echo "usage: make synth DIR=<project from qrtl ... compile -o DIR> [TARGET=xc6v|xc7|ecp5|ice40]" >&2; exit 2; }
	$(CARGO) build --release --quiet --bin qrtl
	$(QRTL) synth $(DIR) --target $(TARGET)

# The software engine and the RTL on the bundled sample documents.
demo: deps
	$(CARGO) build --release --quiet --bin qrtl
	$(QRTL) xpath check queries/xpath/news.txt
	$(QRTL) xpath filter queries/xpath/news.txt queries/xpath/docs/*.xml
	@echo "--- the same queries split into root-to-leaf paths (may add false positives):"
	$(QRTL) xpath filter --mode paths queries/xpath/news.txt queries/xpath/docs/*.xml
	@echo "--- path queries with attribute predicates compiled to RTL ($(DEMO)/news-rtl):"
	$(QRTL) xpath compile queries/xpath/news-paths.txt -o $(DEMO)/news-rtl --stats
	@echo "--- the software engine, then the RTL in Verilator (same JSON plus cycles and bytes):"
	$(QRTL) xpath filter queries/xpath/news-paths.txt queries/xpath/docs/*.xml
	$(QRTL) xpath sim queries/xpath/news-paths.txt queries/xpath/docs/*.xml
	@echo "--- the programmable engine: one running design, three query sets swapped between documents (config = the id that answered):"
	$(QRTL) xpath sim --programmable --session queries/xpath/hot-swap.session --namespaces raw --columns 64 --cluster-size 32 --general-columns 16
	@echo "--- FlexTrack: motion patterns on x,y trajectories over a grid region map (exact answer):"
	$(QRTL) track check queries/track/patterns.txt --regions queries/track/regions.yaml
	$(QRTL) track filter queries/track/patterns.txt queries/track/city.csv --regions queries/track/regions.yaml
	@echo "--- what the relaxed-OR variable hardware reports (false positives measured, not guessed):"
	$(QRTL) track filter --variables or queries/track/patterns.txt queries/track/city.csv --regions queries/track/regions.yaml
	@echo "--- compiled to RTL ($(DEMO)/track-rtl), then simulated in Verilator (filter's JSON plus events and cycles):"
	$(QRTL) track compile queries/track/patterns.txt --regions queries/track/regions.yaml -o $(DEMO)/track-rtl
	$(QRTL) track sim --variables expand queries/track/patterns.txt queries/track/city.csv --regions queries/track/regions.yaml
	@echo "--- Golomb-Rice: integers encoded, decoded in software, then by the no-stall decoder in Verilator:"
	@mkdir -p $(DEMO)
	@seq 0 7 400 > $(DEMO)/ints.txt
	$(QRTL) rice encode $(DEMO)/ints.txt --k 3 -o $(DEMO)/ints.gr
	$(QRTL) rice decode $(DEMO)/ints.gr --k 3 | tail -n 3
	$(QRTL) rice sim $(DEMO)/ints.gr --k 3 --width 32 --stats | tail -n 3
	@echo "--- one design file, three engines: queries/designs/all.yaml -> $(DEMO)/build/{news,city,decoder}:"
	$(QRTL) build queries/designs/all.yaml -o $(DEMO)/build
	@echo
	@echo "=== demo summary: what was produced, and what to open next"
	@echo "  XPath RTL project:       $(DEMO)/news-rtl   (rtl/*.v, manifest.json, README.md; simulated above: same answers as the software engine)"
	@echo "  FlexTrack RTL project:   $(DEMO)/track-rtl  (simulated above with --variables expand)"
	@echo "  Golomb-Rice stream:      $(DEMO)/ints.gr    (decoded in software and by the no-stall decoder in Verilator)"
	@echo "  qrtl build projects:     $(DEMO)/build/news, $(DEMO)/build/city, $(DEMO)/build/decoder"
	@echo "  next: read README.md's tour, docs/hardware.md for the ports, 'qrtl synth DIR --target ecp5' for area and Fmax"

# The Python package (python/, PyO3 + maturin) built into .venv-py with
# what its tests need (python/requirements-dev.txt), and the `qrtl` binary
# its tests compare answers with.
PY_VENV := .venv-py
python: $(PY_VENV)/.installed
	$(CARGO) build --release --quiet --bin qrtl
	cd python && VIRTUAL_ENV=$(abspath $(PY_VENV)) CARGO_TARGET_DIR=$(abspath $(TARGET_DIR)) \
	  ../$(PY_VENV)/bin/maturin develop --release --quiet
$(PY_VENV)/.installed: python/requirements-dev.txt
	$(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/pip install --quiet --disable-pip-version-check -r python/requirements-dev.txt
	touch $@

test: deps python
	$(CARGO) test --release --workspace
	QRTL_BIN=$(abspath $(QRTL)) $(PY_VENV)/bin/python -m pytest -q python/tests

# Minutes a Yosys or nextpnr run of the report may take before it is stopped
# and the point reported as not finished (a design that does not route keeps
# nextpnr busy for hours).
BENCH_TIME_LIMIT ?= 45

bench: deps deps-synth python
	$(CARGO) build --release --bin qrtl
	$(CARGO) build --release -p qrtl-bench --bin qrtl-bench --bin qrtl-bench-rtl --bin qrtl-bench-rice
	$(TARGET_DIR)/release/qrtl-bench | tee bench/REPORT-engine.md
	$(TARGET_DIR)/release/qrtl-bench-rtl | tee bench/REPORT-rtl.md
	$(TARGET_DIR)/release/qrtl-bench-rice | tee bench/REPORT-rice.md
	$(CARGO) build --release -p qrtl-bench --bin qrtl-bench-track
	$(TARGET_DIR)/release/qrtl-bench-track | tee bench/REPORT-track.md
	$(PY_VENV)/bin/python python/examples/bench_dask.py | tee bench/REPORT-dask.md
	@echo "--- bench/REPORT.md: figures (a)-(h) with SVG plots; synthesis points come from bench/data/synth-points.json unless the RTL changed (then Yosys/nextpnr run, niced)"
	$(CARGO) build --release -p qrtl-bench --bin qrtl-bench-report
	nice -n 10 $(TARGET_DIR)/release/qrtl-bench-report --time-limit $(BENCH_TIME_LIMIT)

clean:
	$(CARGO) clean
