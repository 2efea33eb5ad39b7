"""Start-up: the net and the search are built before the first command is
served (and on ``boardsize`` for a new size), so no genmove pays for
loading torch; and the time a move may think."""
import io
import os
import threading

import pytest

from engine.config import load
from engine.evaluator import ExpertEvaluator
from engine.gtp.server import GtpServer

from tests.conftest import ROOT, SMALL

SMALL = SMALL + ["prior.evaluator=net", "search.resign_threshold=0"]


class Recorder(io.StringIO):
    """The output stream; notes each write in the shared event list."""

    def __init__(self, events):
        super().__init__()
        self.events = events

    def write(self, text):
        self.events.append(("write", text))
        return super().write(text)


def serve(lines, *sets):
    events = []

    class CountingEvaluator(ExpertEvaluator):
        def evaluate(self, boards, want_features=False):
            events.append(("evaluate", boards[0].size))
            return super().evaluate(boards, want_features)

    def factory(size):
        events.append(("factory", size))
        return CountingEvaluator()

    eng = GtpServer(load(None, SMALL + list(sets)), out=Recorder(events), evaluator_factory=factory)
    eng.serve(io.StringIO("".join(line + "\n" for line in lines)))
    return eng, events


def test_the_net_is_loaded_before_the_first_command():
    eng, events = serve(["name", "genmove b", "quit"])
    first_write = next(i for i, e in enumerate(events) if e[0] == "write")
    assert events[0] == ("factory", 9)
    assert ("evaluate", 9) in events[:first_write]          # the first forward pass too
    assert [e for e in events if e[0] == "factory"] == [("factory", 9)]
    assert eng.player.slot.built is not None


def test_a_new_board_size_loads_its_net_at_boardsize():
    eng, events = serve(["boardsize 13", "name", "genmove b", "quit"])
    factories = [i for i, e in enumerate(events) if e[0] == "factory"]
    assert [events[i] for i in factories] == [("factory", 9), ("factory", 13)]
    writes = [i for i, e in enumerate(events) if e[0] == "write"]
    assert factories[1] < writes[0]          # before boardsize's reply
    eng2, events2 = serve(["boardsize 9", "clear_board", "quit"])
    assert [e for e in events2 if e[0] == "factory"] == [("factory", 9)]   # same size: nothing again


def test_a_game_loaded_on_another_size_gets_that_sizes_net(tmp_path):
    """The search whose net fits 9x9 goes with the 9x9 game (SearchSlot.new_board);
    the loaded 13x13 game's genmove builds one on the 13x13 net."""
    sgf = tmp_path / "g13.sgf"
    sgf.write_text("(;GM[1]FF[4]SZ[13]KM[6.5];B[dd];W[jj])")
    eng, events = serve(["genmove b", f"loadsgf {sgf}", "genmove b", "loadsgf " + str(sgf), "genmove w", "quit"])
    assert [e for e in events if e[0] == "factory"] == [("factory", 9), ("factory", 13)]
    assert eng.player.size == 13


def test_a_failing_net_does_not_stop_the_session():
    def bad(size):
        raise RuntimeError("no weights")
    out = io.StringIO()
    eng = GtpServer(load(None, SMALL), out=out, evaluator_factory=bad)
    eng.serve(io.StringIO("name\ngenmove b\nquit\n"))
    replies = out.getvalue().split("\n\n")
    assert replies[0] == "= gomcts" and replies[1].startswith("= ")


def test_one_second_byoyomi_thinks_well_under_a_second():
    """time_settings 0 1 1 with the shipped 9x9 config: the search's budget
    leaves room for the reply inside the second."""
    cfg = load(os.path.join(ROOT, "configs", "9x9.toml"), ["prior.evaluator=expert"])
    eng = GtpServer(cfg, out=open(os.devnull, "w"))
    assert eng.respond("time_settings 0 1 1") == "=\n\n"
    secs = eng.player.think_seconds(1)
    assert 0 < secs <= 0.75


class RecordingSearch:
    """Notes the budget each run gets; plays the centre."""
    runs = []

    def __init__(self, cfg):
        self.cfg = cfg

    def set_position(self, board, komi, endgame=None, komi_drift=0.0):
        self.board = board

    def run(self, playouts=None, seconds=None, **kw):
        from engine.search import SearchResult
        RecordingSearch.runs.append((playouts, seconds))
        n = self.board.size
        return SearchResult((n // 2) * n + n // 2, 0.5, 1, 1, 0.0, [])

    def analysis(self, max_children=None):
        return []

    def avoid(self, avoid):
        pass

    def clear(self):
        pass

    def pool_stats(self):
        return {}


def budget(config, sets=(), commands=()):
    RecordingSearch.runs = []
    cfg = load(os.path.join(ROOT, "configs", config), ["prior.evaluator=expert"] + list(sets))
    eng = GtpServer(cfg, out=open(os.devnull, "w"), search_factory=RecordingSearch)
    for c in commands:
        assert eng.respond(c).startswith("="), c
    assert eng.respond("genmove b").startswith("=")
    return RecordingSearch.runs[-1]


@pytest.mark.parametrize("config,seconds", [("9x9.toml", 1.0), ("13x13.toml", 3.0), ("19x19.toml", 5.0)])
def test_shipped_configs_think_a_set_time_without_a_clock(config, seconds):
    playouts, secs = budget(config)
    assert secs == seconds
    assert playouts >= 200_000                   # a cap the time does not reach
    assert budget(config, commands=["time_settings 0 1 0"])[1] == seconds   # GoGui's "no limit"
    assert budget(config, ["search.seconds=2.5"])[1] == 2.5


def test_a_clock_allocates_the_time_not_search_seconds():
    _, secs = budget("9x9.toml", commands=["time_settings 600 0 0"])
    even = 600 / (0.8 * 81 / 2)          # the main time over the expected own moves left
    assert 0.6 * even < secs < 0.9 * even  # the first move's phase weight (1) under the mean (about 1.4)
    _, secs = budget("9x9.toml", ["time.middle_weight=1"], commands=["time_settings 600 0 0"])
    assert secs == pytest.approx(even)
    _, secs = budget("19x19.toml", commands=["time_settings 0 1 1"])
    assert 0 < secs < 1
    _, secs = budget("9x9.toml", commands=["time_settings 0 10 1"])
    assert 9 < secs < 10


def test_fixed_simulations_stay_reachable():
    """Experiments: --set search.seconds=0 --set search.playouts=N is a
    fixed-simulation engine."""
    for config in ("9x9.toml", "13x13.toml", "19x19.toml"):
        assert budget(config, ["search.seconds=0", "search.playouts=10000"]) == (10000, None)


def test_a_named_net_that_is_not_there_stops_the_start(tmp_path):
    """A weights path the user names that is not a readable file is an
    error at start-up, naming the key and the path (GUIs hide stderr's
    warnings: a weaker engine in silence is what a user would hit)."""
    import subprocess
    from tests.conftest import PY
    for sets in (["net.weights=nets/weights/no-such-net.pt"], ["size.19.net.weights=nope/19.pt"]):
        p = subprocess.run([PY, os.path.join(ROOT, "gtp_main.py")] + [a for s in sets for a in ("--set", s)],
                           input="name\nquit\n", capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and p.stdout == ""
        assert "net.weights" in p.stderr and sets[0].split("=")[1] in p.stderr
    ok = subprocess.run([PY, os.path.join(ROOT, "gtp_main.py"), "--log-level", "WARNING", "--set",
                         "prior.evaluator=expert", "--set", "net.weights=nets/weights/no-such-net.pt"],
                        input="name\nquit\n", capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0                       # no net asked for: the path is not read
