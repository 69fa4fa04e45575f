# Two entry points: `make reproduce` (set up, then run the whole pipeline into results/)
# and `make test` (set up, then run the test suite). Set-up is idempotent.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
WORDNET_STAMP := nltk_data/corpora/wordnet/.provisioned
CORES  ?= all

.PHONY: setup reproduce test benchmark clean

setup: $(STAMP) $(WORDNET_STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

$(WORDNET_STAMP): $(STAMP) scripts/provision_wordnet.py
	$(BIN)/python scripts/provision_wordnet.py --target nltk_data

reproduce: setup
	$(BIN)/snakemake --cores $(CORES)

test: setup
	$(BIN)/python -m pytest

benchmark: setup
	$(BIN)/python benchmarks/bench_bootstrap.py
	$(BIN)/python benchmarks/bench_pipeline.py

clean:
	rm -rf results .snakemake
