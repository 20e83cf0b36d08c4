PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: compiled demo test durations fuzz bench lint clean

# uv installs in a fraction of pip's time (it fetches and unpacks in parallel); pip only
# installs uv itself.
$(STAMP): pyproject.toml
	@echo "setting up $(VENV): mine and its dependencies (about a minute, once)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[dev,cluster]'
	@echo "$(VENV) is ready"
	touch $(STAMP)

# Python may be told not to write its bytecode caches (PYTHONDONTWRITEBYTECODE is set on
# this machine) and uv compiles nothing unless asked: every `mine` then compiled
# about 1,000 modules before it began (1.3 s to answer `mine query "SELECT 1"`, 0.5 s
# compiled). The dependencies are compiled once at install, mine's own sources each time
# (half a second; a changed file is compiled again, the rest kept).
SOURCES := mine parsers models warehouse strategies pipeline
compiled: $(STAMP)
	@$(BIN)/python -m compileall -q -j0 $(SOURCES) >/dev/null

demo: compiled
	$(BIN)/mine demo

# Both cores: the tests run in two processes, each test file whole in one of them (its
# module fixtures are built once), handed out longest first (tests/durations.json).
XDIST := -n 2 --dist loadfile --no-loadscope-reorder
test: compiled
	$(BIN)/pytest $(XDIST)

# Measure again how long each test file takes (the order `make test` hands them out).
durations: compiled
	$(BIN)/pytest $(XDIST) --store-durations

# The fuzz test at ten times its `make test` size, over several seeds.
FUZZ_PAIRS ?= 5000
fuzz: compiled
	for seed in 1 2 3; do \
		MINE_FUZZ_SEED=$$seed MINE_FUZZ_PAIRS=$(FUZZ_PAIRS) $(BIN)/pytest -q -p no:cacheprovider tests/warehouse/test_fuzz.py || exit 1; \
	done

bench: compiled
	$(BIN)/python bench/run.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# What the README's tour writes into the repository's folder.
TOUR := mine.duckdb q.sql logs.parquet warehouse-parquet sims chart.csv card.json standings.html \
	Proj1.hs Player.hs t21 gin $(foreach t,t21 gin hog nim cg,$(t).parquet $(t).json $(t).html) \
	$(foreach p,t21 gin hog nim cg,$(p)_player.py)

clean:
	rm -rf $(VENV) $(TOUR) bench/results/*.json demo-out test-artifacts
