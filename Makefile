# The verbs people type. Every target uses the virtualenv in .venv/.
PY      := .venv/bin/python
PIP     := .venv/bin/pip
CONFIG  ?=
SIZECONFIG = $(if $(CONFIG),$(CONFIG),configs/$(SIZE)x$(SIZE).toml)
GAMES   ?= 10
SIZE    ?= 9

.PHONY: node-deps venv deps build configs ringmaster test test-fast bench gtp selfplay match train regress gnugo annotate clean queues queues-stop strength-stop

.venv/bin/python:
	python3 -m venv .venv

.venv/.deps: requirements.txt | .venv/bin/python
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -r requirements.txt
	touch $@

deps: .venv/.deps

venv: deps

# Extensions are built in build/ and moved into place with a rename, so
# running engines keep their loaded copy (an in-place overwrite would crash them).
build: deps
	$(PY) setup.py -q build_ext --build-lib build/lib
	@cd build/lib && for f in $$(find . -name '*.so'); do \
	  cp "$$f" "../../$$f.tmp" && mv -f "../../$$f.tmp" "../../$$f"; done

gnugo:
	@if [ ! -x /usr/games/gnugo ]; then \
	  (apt-get update -qq && apt-get install -y -qq gnugo) || \
	  (sudo apt-get update -qq && sudo apt-get install -y -qq gnugo); fi

# gomill's ringmaster (0.8.3, the registry's last release, Python 2 only),
# ported to Python 3 at install time into .venv/bin/ringmaster (tools/ringmaster_py3.py)
.venv/bin/ringmaster: tools/ringmaster_py3.py | .venv/.deps
	$(PY) -m tools.ringmaster_py3 --prefix .venv

ringmaster: .venv/bin/ringmaster

node-deps:
	@if [ -f tests/clients/sabaki/package.json ]; then cd tests/clients/sabaki && npm ci --silent --no-audit --no-fund; fi

# configs/default.toml from the defaults and docs in engine/config.py
configs: deps
	$(PY) -m tools.write_default_config

# Everything (what CI runs); test-fast leaves out the tests that need GNU Go
# or node and the slow ones (markers in tests/conftest.py).
test: build gnugo node-deps ringmaster
	$(PY) -m pytest tests -q

test-fast: build
	$(PY) -m pytest tests -q -m "not gnugo and not node and not slow"

bench: build gnugo
	$(PY) bench/playouts.py --size 9 --policy random --seconds 3
	$(PY) bench/playouts.py --size 9 --policy expert --seconds 3
	$(PY) bench/playouts.py --size 19 --policy random --seconds 3
	$(PY) bench/playouts.py --size 19 --policy expert --seconds 3
	@for b in search memory net bhrf threads pool_rss; do $(PY) bench/$$b.py || exit 1; done

# stdout is the GTP channel: the build's lines go to stderr.  Without CONFIG it serves
# the shipped, measured engine, configs/engine.toml, whose [size.N.*] tables give each
# board size its measured values at every boardsize (gtp_main.py, engine/config.py)
gtp:
	@$(MAKE) --no-print-directory build >&2
	@exec $(PY) gtp_main.py $(if $(CONFIG),--config $(CONFIG))

selfplay: build
	$(PY) -m tools.selfplay --config $(SIZECONFIG) --games $(GAMES) --size $(SIZE) --out runs/selfplay

match: build gnugo
	$(PY) -m tools.match --config $(SIZECONFIG) --opponent "/usr/games/gnugo --mode gtp --level 10" \
	  --games $(GAMES) --size $(SIZE) --komi 7 --out runs/match

train: build
	$(PY) -m nets.train --config configs/nets/9x9.toml

# The long runs, restarted at the start of every session, each resumed where it stopped: the
# papers' queue on both cores (configs/paper/queue.txt), and issue 85's beside it at a lower
# priority, fixed simulations only (configs/strength/queue.txt --fixed-only). KataGo and its
# nets are read from build/katago/ (links, docs/TEACHER.md). The logs: runs/*_queue.log.
KGDIR    := build/katago
KG6_CMD  := $(KGDIR)/katago analysis -model $(KGDIR)/g170-b6c96-s175395328-d26788732.bin.gz -config $(KGDIR)/katago_analysis_1thread.cfg
KB10_CMD := $(KGDIR)/katago analysis -model $(KGDIR)/b10c384h6nbttflrs.bin.gz -config $(KGDIR)/katago_analysis_1thread.cfg -override-config maxBoardXSizeForNNBuffer=9,maxBoardYSizeForNNBuffer=9
queues: build
	@test -x $(KGDIR)/katago || { echo "queues: no $(KGDIR)/katago (docs/TEACHER.md: the links in build/katago)" >&2; exit 2; }
	@mkdir -p runs
	KG6="$(KG6_CMD)" nohup $(PY) -m tools.paper_queue >> runs/paper_queue.log 2>&1 &
	KB10="$(KB10_CMD)" nohup nice -n 10 $(PY) -m tools.paper_queue --queue configs/strength/queue.txt \
	  --fixed-only --workers 1 >> runs/strength_queue.log 2>&1 &

# Both queues stop with what they run (tools.paper_queue on SIGTERM): the games finished are kept,
# those under way are played again by the next `make queues`. Stop them before changing the
# engine's code, so that no game starts on half a rebuild.
queues-stop:
	-pkill -TERM -f "[t]ools.paper_queue" || true   # [t]: not this recipe's own shell

# The strength queue alone (it starts a gtp_main per game, so an engine change waits for it; the papers'
# workers keep the code they loaded and play on).
strength-stop:
	-pkill -TERM -f "[t]ools.paper_queue --queue configs/strength/queue.txt" || true

# The tactics suite (tests/data/tactics) at a small fixed budget.
regress: build
	$(PY) bench/tactics.py --set search.seconds=0 --set search.playouts=2000

annotate: deps
	.venv/bin/cython -a board_ext/board.pyx board_ext/playout.pyx

clean:
	rm -rf build board_ext/*.c board_ext/*.so board_ext/*.html engine/*.c engine/*.so
