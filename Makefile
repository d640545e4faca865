# Every target sets up .venv idempotently: torch first (the local CPU wheel), then the
# package. The stamp changes whenever pyproject.toml does.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install run test test-unit test-integration lint imports format bench clean-cache chromium docs

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# numba compiles the kernels here, once, into its disk cache (pipeline/bench/warmup.py:
# every kernel of self-play, search, tactics, matches and front ends, on every game), not in
# a first `make run` or in each test worker; again only when a kernel's source changes.
WARM := $(VENV)/.numba-warm
KERNELS := $(shell find pipeline/games pipeline/search pipeline/tactics -name '*.py' 2>/dev/null)

$(WARM): $(STAMP) $(KERNELS) pipeline/bench/warmup.py
	$(PY) -m pipeline.bench.warmup --quiet
	touch $(WARM)

install: $(STAMP) $(WARM)

# The main job: one full iteration (`dvc repro`) on params.yaml. A fresh clone has no
# champion yet (and no reachable remote): `zero init` makes generation 0 (learner and
# champion) and DVC tracks them.
run: install
	$(VENV)/bin/zero init
	@test -f models/learner.pt.dvc || $(VENV)/bin/dvc add --quiet models/learner.pt models/champion.pt models/state.json
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/dvc repro
	@echo "report: reports/report.md   metrics: $(VENV)/bin/dvc metrics show"
	@echo "to keep this generation (README.md, 'What to commit after a run'):"
	@echo "  $(VENV)/bin/dvc add models/learner.pt models/champion.pt models/state.json"
	@echo "  git add dvc.lock models/*.dvc models/.gitignore data/.gitignore params.yaml reports/*.json reports/plots"
	@echo "  git commit -m 'generation N' && $(VENV)/bin/dvc push"

# Both tiers on PYTEST_WORKERS xdist workers; a test file stays on one worker (its
# module-scoped fixtures are built once); the 25 slowest tests are listed at the end.
PYTEST_WORKERS ?= 2
PYTEST := $(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --durations=25

test: imports docs test-unit test-integration

test-unit: install
	$(PYTEST) -m unit

test-integration: install chromium
	$(PYTEST) -m integration

# The manual (mkdocs.yml, docs/), built --strict into a temporary folder.
docs: install
	@test -x $(VENV)/bin/mkdocs || { echo "make docs: $(VENV)/bin/mkdocs is missing; mkdocs belongs in the dev extra of pyproject.toml (then make install)" >&2; exit 1; }
	$(VENV)/bin/mkdocs build --strict --site-dir $$(mktemp -d)

# The browser tests drive Debian's Chromium (Playwright never downloads a browser here).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

lint: install imports
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# The import contract in pyproject.toml: a cycle or an import against the layers fails.
imports: install
	$(VENV)/bin/lint-imports --no-cache

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: install
	$(VENV)/bin/zero bench

# numba's disk cache (pipeline/__init__.py): a folder per version of the kernel sources
# under $XDG_CACHE_HOME (default ~/.cache)/zero-pipeline/numba, or NUMBA_CACHE_DIR if set.
NUMBA_CACHE := $(or $(NUMBA_CACHE_DIR),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/zero-pipeline/numba)

clean-cache:
	@rm -f $(WARM)
	@test ! -d "$(NUMBA_CACHE)" || find "$(NUMBA_CACHE)" \( -name '*.nbi' -o -name '*.nbc' \) -delete
	@test ! -d "$(NUMBA_CACHE)" || find "$(NUMBA_CACHE)" -mindepth 1 -type d -empty -delete
	@echo "numba cache cleaned: $(NUMBA_CACHE)"
