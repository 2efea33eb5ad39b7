"""What KaTrain sends the JSON analysis server: partial results during a
search, overrideSettings, avoid/allow moves, queries without maxVisits."""
import io
import json

import pytest

from engine.config import load
from engine.gtp.analysis_json import AnalysisServer
from tests.conftest import SMALL

CFG = SMALL + ["prior.evaluator=expert", "player.score_playouts=8", "player.move_score_playouts=4"]
Q = {"moves": [["B", "E5"]], "boardXSize": 9, "rules": "japanese", "komi": 6.5}


def serve(queries, *sets):
    out = io.StringIO()
    AnalysisServer(load(None, CFG + list(sets)), out=out).serve(
        io.StringIO("".join(json.dumps(q) + "\n" for q in queries)))
    return [json.loads(ln) for ln in out.getvalue().splitlines()]


def test_partial_results_come_during_the_search_then_the_final_one():
    got = serve([dict(Q, id="p", reportDuringSearchEvery=0.1, overrideSettings={"maxTime": 1.0},
                      maxVisits=10**7)], "search.playouts=10000000")
    during = [r for r in got if r.get("isDuringSearch")]
    final = [r for r in got if r.get("isDuringSearch") is False]
    assert len(during) >= 3 and len(final) == 1 and got[-1] is final[0]
    assert all(r["moveInfos"] and r["id"] == "p" for r in during)
    assert [r["rootInfo"]["visits"] for r in during] == sorted(r["rootInfo"]["visits"] for r in during)
    assert final[0]["rootInfo"]["visits"] < 10**7     # maxTime, not the visits, ended the search


def test_max_time_and_the_clock_bound_a_query():
    got = serve([dict(Q, id="c")], "search.playouts=10000000", "search.seconds=0.5")
    assert got[0]["id"] == "c" and got[0]["moveInfos"]
    assert got[0]["rootInfo"]["visits"] < 10**7       # the clock, not the visits, ended the search


def test_unknown_overrides_get_a_warning_and_the_query_its_answer():
    got = serve([dict(Q, id="w", maxVisits=20, overrideSettings={"wideRootNoise": 0.04, "maxVisits": 16,
                                                                 "rootPolicyTemperature": 1.1})])
    warn = [r for r in got if "warning" in r]
    assert warn and warn[0]["id"] == "w" and "rootPolicyTemperature" in warn[0]["warning"]
    assert "wideRootNoise" in warn[0]["warning"]
    res = [r for r in got if "moveInfos" in r][0]
    assert res["rootInfo"]["visits"] <= 16
    bad = serve([dict(Q, id="b", overrideSettings={"maxTime": "soon"})])
    assert bad[0]["error"] and bad[0]["field"] == "overrideSettings"


def test_avoid_and_allow_moves_at_the_root():
    base = serve([dict(Q, id="a", maxVisits=60)])[0]
    top = [i["move"] for i in base["moveInfos"][:3]]
    got = serve([dict(Q, id="v", maxVisits=60, avoidMoves=[{"player": "W", "moves": top, "untilDepth": 1}])])[0]
    assert not set(top) & {i["move"] for i in got["moveInfos"]}
    allow = ["C3", "G7"]
    got = serve([dict(Q, id="l", maxVisits=60, allowMoves=[{"player": "W", "moves": allow, "untilDepth": 1}])])[0]
    assert {i["move"] for i in got["moveInfos"]} <= set(allow) and got["moveInfos"]
    bad = serve([dict(Q, id="x", avoidMoves=[{"player": "W", "moves": ["Z99"]}])])[0]
    assert bad["field"] == "avoidMoves"


def test_the_win_rate_perspective_follows_the_override():
    b = serve([dict(Q, id="b", maxVisits=40)], "search.seed=3")[0]
    w = serve([dict(Q, id="w", maxVisits=40, overrideSettings={"reportAnalysisWinratesAs": "SIDETOMOVE"})],
              "search.seed=3")[0]
    # White to move: the mover's view is 1 - Black's
    assert abs(w["rootInfo"]["winrate"] - (1 - b["rootInfo"]["winrate"])) < 1e-9
    assert abs(w["rootInfo"]["scoreLead"] + b["rootInfo"]["scoreLead"]) < 1e-9


class _Gone:
    """An output whose reader has gone after its first line."""

    def __init__(self):
        self.lines = 0

    def write(self, text):
        self.lines += 1
        if self.lines > 1:
            raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        pass


def test_a_client_that_disconnects_ends_its_queries():
    """The output breaks during a long query: it ends at once and the
    queued ones are dropped, instead of searching on for nobody."""
    import threading
    out = _Gone()
    srv = AnalysisServer(load(None, CFG + ["search.playouts=100000000"]), out=out)
    lines = [dict(Q, id="long", maxVisits=10**8, reportDuringSearchEvery=0.05),
             dict(Q, id="next", maxVisits=10**8)]
    th = threading.Thread(target=srv.serve, args=(io.StringIO("".join(json.dumps(q) + "\n" for q in lines)),))
    th.start()
    th.join(600)                               # a bound for a broken server only: it returns at once
    assert not th.is_alive()
    assert srv.player.slot.built.last_result.stopped_by == "interrupt"   # the disconnect ended it
    assert out.lines == 2                      # the first partial result, then the broken write


@pytest.mark.parametrize("tree", ["rave", "uct"])
def test_avoid_below_the_root_with_until_depth(tree):
    """White is to move (after Black's E5); untilDepth 3 for Black: Black's
    replies (depth 1) never play the avoided points, in any principal
    variation; untilDepth 1 (the root only, White's) leaves them."""
    import re
    banned = ["D5", "F5", "E4", "E6", "D4", "F6", "D6", "F4"]
    q = dict(Q, id="deep", maxVisits=400, analyzePvLength=3,
             avoidMoves=[{"player": "B", "moves": banned, "untilDepth": 3}])
    res = [r for r in serve([q], "search.playouts=400", f"search.tree={tree}") if "moveInfos" in r][-1]
    # White to move at the root: its moves are free, Black's replies below are not
    replies = [mi["pv"][1] for mi in res["moveInfos"] if len(mi["pv"]) > 1]
    assert replies and not set(replies) & set(banned)
    shallow = dict(q, id="shallow", avoidMoves=[{"player": "B", "moves": banned, "untilDepth": 1}])
    res = [r for r in serve([shallow], "search.playouts=400", f"search.tree={tree}") if "moveInfos" in r][-1]
    replies = [mi["pv"][1] for mi in res["moveInfos"] if len(mi["pv"]) > 1]
    assert set(replies) & set(banned)          # at depth 1 the avoid does not reach
