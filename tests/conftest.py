"""What the test files share: paths, the small engine settings and the
markers.

Markers (registered in pytest.ini):

- ``gnugo``: needs GNU Go (``/usr/games/gnugo``, or ``$GNUGO``); skipped
  when it is not there.
- ``node``: needs node (the Sabaki client test); skipped when it is not there.
- ``slow``: a second or more each (engine start-ups in a subprocess, long
  cross-checks, training).

``make test`` runs everything; ``make test-fast`` leaves out the three
kinds (``-m "not gnugo and not node and not slow"``).
"""
import os
import shutil
import sys

import pytest

from tools.gtp_client import GNUGO

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
DATA = os.path.join(ROOT, "tests", "data")

# A small, seeded engine without a net for tests that drive GTP or the
# Player: 9x9, komi 7, 30 playouts a move, every move searched (no opening
# book).  Files add their own overrides after it (later settings win).
SMALL = ["search.playouts=30", "player.score_playouts=30", "gtp.boardsize=9", "gtp.komi=7",
         "search.seed=1", "pool.pool_size=20000", "prior.evaluator=none", "player.book=false"]


# a finished 9x9 position whose lone X at G7 is dead in White's area (the
# pass-safety tests, in process and over GTP)
DEAD_G7 = [".X.XO....",
           "XXXXOOOOO",
           "..XO..X..",
           "XXXO.....",
           "..XO.....",
           "XXXOOOOOO",
           "X.XO.....",
           ".XXO..O..",
           "..XO....."]


def have_gnugo():
    return os.access(GNUGO, os.X_OK)


def have_node():
    return shutil.which("node") is not None


def pytest_collection_modifyitems(config, items):
    missing = {"gnugo": None if have_gnugo() else f"GNU Go is not installed ({GNUGO})",
               "node": None if have_node() else "node is not installed"}
    for item in items:
        for name, why in missing.items():
            if why and item.get_closest_marker(name) is not None:
                item.add_marker(pytest.mark.skip(reason=why))


def passing_search(rows=()):
    """A stand-in search that always wants to pass; its analysis gives
    ``rows`` ((flat move, visits) pairs) as the root's children."""
    from engine.search import SearchResult

    class PassingSearch:
        def __init__(self, cfg):
            self.cfg = cfg

        def set_position(self, board, komi, endgame=None, komi_drift=0.0):
            self.board = board

        def run(self, **kw):
            n = self.board.size ** 2
            return SearchResult(n, 0.5, 100, 100, 0.0, [n], rows=self.analysis())

        def avoid(self, avoid):
            pass

        def analysis(self, max_children=None):
            return [{"move": m, "visits": v, "winrate": 0.5, "prior": 0.0, "pv": [m]} for m, v in rows]

        def clear(self):
            pass

        def pool_stats(self):
            return {}
    return PassingSearch



def cpu_seconds(pid):
    """User and system CPU time of process ``pid`` so far (0 when it is
    gone): how a test sees a search running without waiting a fixed time."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def alive(pid):
    """Whether process ``pid`` is running (a zombie, exited but not yet
    reaped by its parent, is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_until(pred, deadline, interval=0.05):
    """Poll ``pred`` until it holds or ``deadline`` seconds pass: the
    seconds it took, or None.  Deadlines are generous (tens of seconds);
    what a test reports is the time it took, not the deadline."""
    import time
    t0 = time.time()
    while time.time() - t0 < deadline:
        if pred():
            return time.time() - t0
        time.sleep(interval)
    return None


def sigint_default():
    """``preexec_fn`` of a process a test interrupts with SIGINT: Ctrl-C
    acts as at a terminal, however the suite was started (a shell starts a
    background job with SIGINT ignored, and its children inherit that)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)
