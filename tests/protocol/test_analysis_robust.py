"""The JSON analysis server survives any line: an answer or an error (with
the id when one can be read, and the field at fault), and it keeps serving.
The corpus holds the lines that once broke it (../reviews, issue 60)."""
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.config import ConfigError, load
from engine.gtp.analysis_json import AnalysisServer, rules_name
from tests.conftest import SMALL

CFG = SMALL + ["prior.evaluator=expert", "player.score_playouts=8", "player.move_score_playouts=4"]
GOOD = {"id": "ok", "moves": [["B", "E5"]], "boardXSize": 9, "maxVisits": 8}

CORPUS = [
    ('{"id": "a", "initialStones": 5, "boardXSize": 9}', "initialStones"),
    ('{"id": "a", "priority": [1], "boardXSize": 9}', "priority"),
    ('{"id": "a", "priority": Infinity, "boardXSize": 9}', "priority"),
    ('{"id": "a", "priority": "abc", "boardXSize": 9}', "priority"),
    ('{"id": {"x": 1}, "boardXSize": 9}', "id"),
    ("[" * 100000 + "]" * 100000, None),
    ('{"id": "a", "komi": NaN, "boardXSize": 9}', "komi"),
    ('{"id": "a", "komi": 1e308, "boardXSize": 9}', "komi"),
    ('{"id": "a", "maxVisits": 1000000000000000000000000000000, "boardXSize": 9}', "maxVisits"),
    ('{"id": "a", "analyzeTurns": [], "boardXSize": 9}', "analyzeTurns"),
    ('{"id": "a", "analyzeTurns": [true], "boardXSize": 9}', "analyzeTurns"),
    ('{"id": "t", "action": "terminate", "terminateId": {"x": 1}}', "terminateId"),
    ('{"id": true, "boardXSize": 9}', "id"),
    ('{"id": "a", "initialStones": [["B", "D4"], ["W", "D4"]], "boardXSize": 9}', "initialStones"),
    ('{"id": "a", "avoidMoves": [{"player": "B", "moves": ["D4"], "untilDepth": 2147483648}], "boardXSize": 9}',
     "avoidMoves"),
    ('{"id": "a", "allowMoves": [{"player": "W", "moves": ["D4"], "untilDepth": 100001}], "boardXSize": 9}',
     "allowMoves"),
    # a game longer than any the engine keeps (50,000 steps): refused before it is replayed
    (json.dumps({"id": "a", "boardXSize": 9, "moves": [["BW"[i % 2], "pass"] for i in range(50001)]}), "moves"),
]


def serve(lines):
    out = io.StringIO()
    srv = AnalysisServer(load(None, CFG), out=out)
    srv.serve(io.StringIO("".join(ln + "\n" for ln in lines)))
    return [json.loads(ln) for ln in out.getvalue().splitlines()]


@pytest.mark.parametrize("line,field", CORPUS, ids=[str(i) for i in range(len(CORPUS))])
def test_lines_that_once_broke_the_server(line, field):
    got = serve([line, json.dumps(GOOD)])
    errs = [r for r in got if "error" in r]
    assert len(errs) == 1, got
    assert errs[0].get("field") == field
    if field not in (None, "id"):
        assert errs[0]["id"] in ("a", "t")
    assert any(r.get("id") == "ok" and r.get("moveInfos") for r in got)      # still serving


def test_kataGo_rule_spellings_are_accepted():
    for name in ("new zealand", "stone_scoring", "Tromp-Taylor", "CHINESE_OGS", "aga-button", "korean"):
        assert rules_name(name) is not None, name
    assert rules_name("new zealand") == "new_zealand" and rules_name({"ko": "SIMPLE"}) == "chinese"
    assert rules_name("unheard-of") is None and rules_name(5) is None
    assert rules_name("koPOSITIONALscoreAREAtaxNONEsui1") == "chinese"        # KataGo's compact form
    assert rules_name("koSIMPLEscoreTERRITORYtaxSEKIsui0") == "japanese"
    got = serve([json.dumps(dict(GOOD, id="nz", rules="new zealand")),
                 json.dumps(dict(GOOD, id="ss", rules="stone_scoring"))])
    assert {r["id"] for r in got if "moveInfos" in r} == {"nz", "ss"}


def test_an_illegal_move_says_so_in_katagos_words():
    got = serve([json.dumps(dict(GOOD, id="il", moves=[["B", "E5"], ["W", "E5"]]))])
    assert got[0]["id"] == "il" and got[0]["error"].startswith("Illegal move")


def test_numeric_settings_refuse_nan_and_infinities():
    for v in ("nan", "inf", "-inf"):
        with pytest.raises(ConfigError, match="finite"):
            load(None, [f"search.seconds={v}"])


VALUE = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                     lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3),
                     max_leaves=6)
KEYS = ["id", "moves", "initialStones", "initialPlayer", "rules", "komi", "boardXSize", "boardYSize",
        "analyzeTurns", "maxVisits", "priority", "action", "terminateId", "includeOwnership", "includePolicy"]
QUERY = st.dictionaries(st.sampled_from(KEYS), VALUE, max_size=6)


@pytest.mark.slow
@settings(max_examples=10000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(QUERY.map(lambda d: json.dumps(d, allow_nan=True)), st.text(max_size=40)))
def test_fuzz_every_line_gets_an_answer_and_the_server_lives(line):
    out = io.StringIO()
    srv = FUZZ_SERVER
    srv.out = out
    srv._handle_parse_only(line)
    for ln in out.getvalue().splitlines():
        r = json.loads(ln)
        assert "error" in r or "action" in r or ("warning" in r and "field" in r)


class _ParseOnly(AnalysisServer):
    """The server's line handling without searching: queued turns are
    dropped (the search is the same for every valid query)."""

    def _handle_parse_only(self, line):
        self.handle_line(line)
        with self._cv:
            self._heap.clear()


FUZZ_SERVER = _ParseOnly(load(None, CFG), out=io.StringIO())
