# The verbs a newcomer types. Everything runs in .venv, created on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test lint proto bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## demo: start a referee and example bots as processes, play matches, print scores.
demo: install
	$(PY) -m arena.demo

## test: lint, type-check and run the whole test suite.
test: install lint
	$(PY) -m pytest -q

lint: install
	$(VENV)/bin/ruff check arena workers tests bench proto
	$(VENV)/bin/mypy arena workers

## proto: regenerate arena/v1 from proto/arena/v1/*.proto.
proto: install
	$(PY) proto/generate.py

## bench: referee overhead against a bare gRPC echo, and engine speed.
bench: install
	$(PY) -m bench.referee_overhead
	$(PY) -m bench.engine_speed

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache replays .demo
