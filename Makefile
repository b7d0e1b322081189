# Everything a newcomer needs goes through here; nothing is assumed installed
# beyond python3 (>= 3.11) with venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test system-deps lint typecheck unit bench systemd-check clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,floor]'
	touch $(STAMP)

## The station's main job on a laptop: the whole station against simulated devices.
SIM_JOURNAL ?= simulation-$(shell date +%Y%m%d-%H%M%S).sqlite3
run: $(STAMP)
	$(BIN)/dealer-station simulate --rounds 200 --seed 1 --journal $(SIM_JOURNAL)

## The whole test suite: lint, format, types, unit and HIL tests.
## Debian packages the tests need: systemd-analyze, -sysusers and -tmpfiles check the units.
system-deps:
	@command -v systemd-analyze >/dev/null || { \
	    if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	    $$SUDO apt-get update && $$SUDO apt-get install -y --no-install-recommends systemd; }

test: system-deps lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest -q

## Every benchmark under bench/ (a few minutes); writes docs/performance.md.
bench: $(STAMP)
	$(BIN)/python bench/run_all.py

## The systemd unit, udev rules and sysusers/tmpfiles snippets (also part of `unit`).
systemd-check: $(STAMP)
	$(BIN)/pytest -q -s tests/test_systemd_units.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
