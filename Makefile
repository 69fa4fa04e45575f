# Two entry points: `make reproduce` (set up, then run the whole pipeline into results/)
# and `make test` (set up, then the tests to run before every commit). Set-up is idempotent.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
WORDNET_STAMP := nltk_data/corpora/wordnet/.provisioned
SYSTEM_STAMP := $(VENV)/.system-packages
VECSIM_STAMP := $(VENV)/.vecsim
CLUSTER_STAMP := $(VENV)/.cluster
BROWSER_STAMP := $(VENV)/.browser
# Debian packages the paper's metric implementations run on: Perl's XML::Parser for
# ROUGE-1.5.5 (Perl and DB_File come with Debian's perl) and Java for METEOR 1.5.
SYSTEM_PACKAGES := perl libxml-parser-perl default-jre-headless
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check -c requirements.lock
CORES  ?= all
TEST_CONFIG := .test/config/config.yaml

.PHONY: setup setup-vecsim setup-cluster system-packages reproduce test test-slow test-fast test-oldest lint test-config install-check cluster-test benchmark clean

setup: $(STAMP) $(WORDNET_STAMP) $(SYSTEM_STAMP)

# Every package at the version in requirements.lock, the project itself editable with every
# extra the workflow, the paper and the tests use. The setup script of rouge 0.2.1 (the extra
# paper-rouge) imports numpy, so it is built without isolation once numpy is there.
$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(PIP) numpy wheel setuptools
	$(PIP) --no-build-isolation rouge
	$(PIP) -e '.[workflow,paper,paper-rouge,test]'
	touch $@

# Debian packages: installed with apt-get when running as root; otherwise the step stops and
# names them. Checked again whenever the stamp is missing.
system-packages: $(SYSTEM_STAMP)
$(SYSTEM_STAMP): $(STAMP)
	$(BIN)/debias-provision-system --packages $(SYSTEM_PACKAGES)
	touch $@

# Optional: the sentence-embedding substitute for VecSim (torch CPU build, ~1.5 GB).
setup-vecsim: $(VECSIM_STAMP)
$(VECSIM_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[vecsim]'
	touch $@

# Optional: the SLURM executor plugin for workflow/profiles/slurm.
setup-cluster: $(CLUSTER_STAMP)
$(CLUSTER_STAMP): $(STAMP)
	$(PIP) -e '.[cluster]'
	touch $@

$(WORDNET_STAMP): $(STAMP)
	$(BIN)/debias-provision-wordnet --target nltk_data

reproduce: setup
	$(BIN)/snakemake --cores $(CORES)

# Debian's Chromium, for the test that opens Snakemake's HTML report (tests/test_html_report.py).
$(BROWSER_STAMP): $(STAMP)
	$(BIN)/debias-provision-system --packages chromium
	touch $@

# The tests to run before every commit: every test not marked slow. The unit tests, one run of
# the workflow on the test configuration shared by every test that reads its outputs, dry runs of
# what reruns after an edit, starts that stop on bad input, and that run's HTML report opened in
# Chromium (about 3.7 CPU-minutes).
test: setup $(BROWSER_STAMP)
	$(BIN)/python -m pytest -m "not slow"

# The tests marked slow, which CI runs after `make test`: the workflow's other runs from scratch
# (one core against two, provided scores, preference tasks, your own data from `debias import`,
# the README's recipe) and the real reruns after an edit whose outputs a test reads (about
# 6 CPU-minutes).
test-slow: setup
	$(BIN)/python -m pytest -m slow

# The unit tests alone: no run of the workflow (about 2.2 CPU-minutes).
test-fast: setup
	$(BIN)/python -m pytest -m "not workflow and not slow"

# The lower bounds of pyproject.toml: a new virtual environment with the oldest numpy, scipy,
# pandas and pyarrow the package supports (from PyPI, not the lock) runs the tests of the
# statistics core and the API on the source tree.
OLDEST := numpy==1.26.4 scipy==1.11.4 pandas==2.1.4 pyarrow==14.0.2
OLDEST_TESTS := tests/test_api.py tests/test_contract.py tests/test_estimators.py tests/test_control_variates.py \
	tests/test_variance.py tests/test_bootstrap.py tests/test_ppi.py tests/test_comparisons.py \
	tests/test_planning.py tests/test_preferences.py tests/test_ranking.py tests/test_data.py \
	tests/test_edges.py tests/test_pair_reading.py tests/test_reader.py tests/test_one_judgment.py \
	tests/test_scale.py
test-oldest:
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	$(PYTHON) -m venv "$$dir/venv" && \
	"$$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check $(OLDEST) \
		pyyaml jsonschema threadpoolctl pytest ppi-python && \
	PYTHONPATH=$(CURDIR)/src "$$dir/venv/bin/python" -m pytest -q -p no:cacheprovider \
		-m "not workflow" $(OLDEST_TESTS)

# Static checks of the code and the workflow.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/snakefmt --check workflow
	$(BIN)/snakemake --lint

# The committed small configuration end to end, and Snakemake's HTML report of it.
test-config: setup
	$(BIN)/snakemake --cores 2 --configfile $(TEST_CONFIG)
	$(BIN)/snakemake --configfile $(TEST_CONFIG) --report .test/results/report.html

# The package as users install it: its wheel (not editable) with the extra `workflow` into a new
# virtual environment, then the public API, the debias command and `debias run` from a directory
# outside the checkout, and the wheel's contents (LICENSE, workflow, the paper's values).
install-check:
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	$(PYTHON) -m venv "$$dir/venv" && \
	"$$dir/venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$$dir/wheel" . && \
	wheel=$$(ls "$$dir"/wheel/debias-*.whl) && \
	"$$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check -c requirements.lock "$$wheel[workflow]" && \
	mkdir "$$dir/elsewhere" && cd "$$dir/elsewhere" && \
	"$$dir/venv/bin/python" $(CURDIR)/.ci/installed_package.py $(CURDIR) "$$wheel"

# Opt-in, as root (not part of `test`): starts a single-node SLURM in a temporary directory
# (Debian's slurm-wlm and munge, installed if missing), runs the test config through
# workflow/profiles/slurm, checks its results equal a local run's, stops the daemons it started.
cluster-test: setup $(CLUSTER_STAMP)
	$(BIN)/debias-provision-system --packages slurm-wlm munge
	$(BIN)/debias-cluster-test --config $(TEST_CONFIG) --profile workflow/profiles/slurm

benchmark: setup
	$(BIN)/python benchmarks/bench_bootstrap.py
	$(BIN)/python benchmarks/bench_pipeline.py
	$(BIN)/python benchmarks/bench_estimates.py

clean:
	rm -rf results .test/results .snakemake
