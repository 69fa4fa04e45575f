# Two entry points: `make reproduce` (set up, then run the whole pipeline into results/)
# and `make test` (set up, then run the test suite). Set-up is idempotent.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
WORDNET_STAMP := nltk_data/corpora/wordnet/.provisioned
CORES  ?= all
TEST_CONFIG := .test/config/config.yaml

.PHONY: setup reproduce test lint test-config benchmark clean

setup: $(STAMP) $(WORDNET_STAMP)

# Every package at the version in requirements.lock, the project itself editable.
$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c requirements.lock -e '.[test]'
	touch $@

$(WORDNET_STAMP): $(STAMP)
	$(BIN)/debias-provision-wordnet --target nltk_data

reproduce: setup
	$(BIN)/snakemake --cores $(CORES)

test: setup
	$(BIN)/python -m pytest

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

benchmark: setup
	$(BIN)/python benchmarks/bench_bootstrap.py
	$(BIN)/python benchmarks/bench_pipeline.py
	$(BIN)/python benchmarks/bench_estimates.py

clean:
	rm -rf results .test/results .snakemake
