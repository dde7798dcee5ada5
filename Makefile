# lossytcp: `make demo` and `make test` set up everything on a fresh machine.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PIP_PKGS := 'maturin>=1.5,<2' numpy scipy pandas rich matplotlib hypothesis pytest pytest-xdist ruff \
	'dask[distributed]' pyarrow
RUST_SRC := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml pyproject.toml

.PHONY: demo test test-rust test-python build lint bench reference ns2 ns3 chromium clean

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q $(PIP_PKGS)
	touch $@

# The extension, built in release mode into the package (maturin's editable install), and
# the link emulator (target/release/lossytcp-emu, found by lossytcp.emulate).
$(VENV)/.built: $(VENV)/.installed $(RUST_SRC)
	$(VENV)/bin/maturin develop --release -q
	cargo build --release -q -p lossytcp-emu
	touch $@

build: $(VENV)/.built

# Paper 000 Fig. 3 reproduced (model and simulation): the figure's path and the claims.
demo: build
	$(PY) -m lossytcp.demo

# ns-2 (Debian's ns2) for the tests and benchmarks that compare against it; tests that need
# it skip when it cannot be installed.
ns2:
	@command -v ns >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ns2) >/dev/null 2>&1 \
	      || echo "note: could not install ns2; ns-2 comparisons will be skipped"; \
	  else echo "note: not root, ns2 not installed; ns-2 comparisons will be skipped"; fi; }

# ns-3 (Debian's libns3-dev; its pkg-config files name libgsl paths) for `make bench` and the
# Westwood+ reference data (tests/reference/make_westwood.py).
ns3:
	@pkg-config --exists ns3-core 2>/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	       libns3-dev libgsl-dev g++ pkg-config) >/dev/null 2>&1 \
	      || echo "note: could not install libns3-dev; the ns-3 benchmark will be skipped"; \
	  else echo "note: not root, libns3-dev not installed; the ns-3 benchmark will be skipped"; fi; }

# Headless Chromium (Debian's chromium, ~45 s to install) renders the HTML report in a test;
# the test skips when it cannot be installed.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
	      >/dev/null 2>&1 || echo "note: could not install chromium; the browser test will be skipped"; \
	  else echo "note: not root, chromium not installed; the browser test will be skipped"; fi; }

test-rust:
	cargo test -q -p lossytcp-sim -p lossytcp-emu

test-python: build ns2 chromium
	$(PY) -m pytest -q -n 2 -m "not slow" tests

test: test-rust test-python

lint: $(VENV)/.installed
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests bench scripts

bench: build ns2 ns3
	cargo build -q --release --example run_scenario
	$(PY) bench/run.py
	$(PY) bench/network.py
	$(PY) bench/models.py
	$(PY) bench/experiments.py
	$(PY) bench/senders.py

reference: build ns2 ns3
	$(PY) tests/reference/make_reference.py
	$(PY) tests/reference/make_bursts.py
	$(PY) tests/reference/make_sack_traces.py
	$(PY) tests/reference/make_replays.py
	$(PY) tests/reference/make_westwood.py
	$(PY) tests/reference/make_network.py

clean:
	rm -rf target $(VENV) python/lossytcp/*.so
