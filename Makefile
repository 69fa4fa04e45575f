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
# The repository's own tools (tools/: provisioning, the cluster check), run from its root; not in the package.
TOOL := $(BIN)/python -m tools
CORES  ?= all
TEST_CONFIG := .test/config/config.yaml

.PHONY: setup setup-vecsim setup-cluster system-packages reproduce test test-slow test-fast test-oldest lint typecheck docs test-config install-check cluster-test benchmark clean

setup: $(STAMP) $(WORDNET_STAMP) $(SYSTEM_STAMP)

# Every package at the version in requirements.lock, the project itself editable with every
# extra the workflow, the paper, the tests, the type check and the documentation use. The setup script of rouge 0.2.1 (the extra
# paper-rouge) imports numpy, so it is built without isolation once numpy is there.
$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(PIP) numpy wheel setuptools
	$(PIP) --no-build-isolation rouge
	$(PIP) -e '.[workflow,paper,paper-rouge,test,typecheck,docs]'
	touch $@

# Debian packages: installed with apt-get when running as root; otherwise the step stops and
# names them. Checked again whenever the stamp is missing.
system-packages: $(SYSTEM_STAMP)
$(SYSTEM_STAMP): $(STAMP)
	$(TOOL).provision.system --packages $(SYSTEM_PACKAGES)
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
	$(TOOL).provision.wordnet --target nltk_data

reproduce: setup
	$(BIN)/snakemake --cores $(CORES)

# Debian's Chromium, for the test that opens Snakemake's HTML report (tests/test_html_report.py).
$(BROWSER_STAMP): $(STAMP)
	$(TOOL).provision.system --packages chromium
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

# The lower bounds of pyproject.toml, resolved as pip resolves them for a user who already has the
# oldest numpy and pandas the package supports: a new virtual environment gets those two first
# (from PyPI, not the lock), then the package's wheel, for which pip keeps them and chooses every
# other package itself (pyarrow: the newest its bounds allow). The installed `debias` command
# answers --version and preferences (.ci/oldest_commands.py), then the tests of the statistics
# core and the API run on the source tree beside the oldest scipy.
OLDEST_FIRST := numpy==1.26.4 pandas==2.1.4
OLDEST_AFTER := scipy==1.11.4
OLDEST_TESTS := tests/test_api.py tests/test_contract.py tests/test_estimators.py tests/test_control_variates.py \
	tests/test_variance.py tests/test_bootstrap.py tests/test_ppi.py tests/test_comparisons.py \
	tests/test_planning.py tests/test_preferences.py tests/test_ranking.py tests/test_data.py \
	tests/test_edges.py tests/test_pair_reading.py tests/test_reader.py tests/test_one_judgment.py \
	tests/test_scale.py
test-oldest:
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	$(PYTHON) -m venv "$$dir/venv" && \
	"$$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check $(OLDEST_FIRST) && \
	"$$dir/venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps -w "$$dir/wheel" . && \
	"$$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$$dir"/wheel/debias_eval-*.whl && \
	"$$dir/venv/bin/python" .ci/oldest_commands.py $(subst numpy==,,$(word 1,$(OLDEST_FIRST))) \
		$(subst pandas==,,$(word 2,$(OLDEST_FIRST))) && \
	"$$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check $(OLDEST_AFTER) pytest ppi-python && \
	"$$dir/venv/bin/python" -c "import numpy, pandas, scipy, pyarrow; \
		print('tests on numpy', numpy.__version__, 'pandas', pandas.__version__, 'scipy', scipy.__version__, 'pyarrow', pyarrow.__version__)" && \
	PYTHONPATH=$(CURDIR)/src "$$dir/venv/bin/python" -m pytest -q -p no:cacheprovider \
		-m "not workflow" $(OLDEST_TESTS)

# Static checks of the code and the workflow.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/snakefmt --check workflow
	$(BIN)/snakemake --lint

# The type check of the public API: mypy on tests/typing/public_api.py, which states what each
# public name returns (settings: [tool.mypy] of pyproject.toml).
typecheck: setup
	$(BIN)/mypy

# The documentation site (docs/conf.py): the guides of docs/, the configuration keys, input format,
# benchmarks and changelog, the API reference from the docstrings and the command reference from
# the command's parser, into docs/_build/html (open index.html). A warning fails the build.
docs: setup
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html

# The committed small configuration end to end, and Snakemake's HTML report of it.
test-config: setup
	$(BIN)/snakemake --cores 2 --configfile $(TEST_CONFIG)
	$(BIN)/snakemake --configfile $(TEST_CONFIG) --report .test/results/report.html

# The package as users install it: its source distribution and the wheel built from it (python -m
# build, whose output must hold no warning), the wheel (not editable) with the extra `workflow`
# into a new virtual environment, then the public API, the debias command and `debias run` from a
# directory outside the checkout, and the contents of both: LICENSE, workflow, the paper's values,
# py.typed and no repository tools in the wheel; the tests with their conftest.py, the
# documentation and the configuration reference in the source distribution.
install-check:
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	$(PYTHON) -m venv "$$dir/venv" && \
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m build --outdir "$$dir/dist" . > "$$dir/build.log" 2>&1 && \
	wheel=$$(ls "$$dir"/dist/debias_eval-*.whl) && sdist=$$(ls "$$dir"/dist/debias_eval-*.tar.gz) && \
	"$$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check -c requirements.lock "$$wheel[workflow]" && \
	mkdir "$$dir/elsewhere" && cd "$$dir/elsewhere" && \
	"$$dir/venv/bin/python" $(CURDIR)/.ci/installed_package.py $(CURDIR) "$$wheel" "$$sdist" "$$dir/build.log"

# Opt-in, as root (not part of `test`): starts a single-node SLURM in a temporary directory
# (Debian's slurm-wlm and munge, installed if missing), runs the test config through
# workflow/profiles/slurm, checks its results equal a local run's, stops the daemons it started.
cluster-test: setup $(CLUSTER_STAMP)
	$(TOOL).provision.system --packages slurm-wlm munge
	$(TOOL).cluster.check --config $(TEST_CONFIG) --profile workflow/profiles/slurm

benchmark: setup
	$(BIN)/python benchmarks/bench_bootstrap.py
	$(BIN)/python benchmarks/bench_pipeline.py
	$(BIN)/python benchmarks/bench_estimates.py

clean:
	rm -rf results .test/results .snakemake
