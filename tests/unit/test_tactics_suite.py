"""The tactics suite (tests/data/tactics, bench/tactics.py): the .tst parser,
and a few easy positions that the engine must solve at a small budget."""
import glob
import os

import pytest

from bench.tactics import ROOT, TstError, normalise, parse_tst
from engine.config import load
from engine.gtp.server import GtpServer

SUITE = os.path.join(ROOT, "tests", "data", "tactics")

GOOD = """\
# a comment
loadsgf tests/data/tactics/connect-capture.sgf
1 reg_genmove black
#? [E7]
2 reg_genmove white
#? [!e7|PASS]*

loadsgf tests/data/tactics/end-pass-b.sgf
komi 7
3 reg_genmove black
#? [PASS]
"""


def test_parser_reads_a_good_file():
    tests = parse_tst("good.tst", GOOD)
    assert [t.number for t in tests] == [1, 2, 3]
    t1, t2, t3 = tests
    assert t1.setup == ["loadsgf tests/data/tactics/connect-capture.sgf"]
    assert t1.command == "reg_genmove black" and t1.answers == ("E7",) and not t1.negate
    assert t1.check("e7") and not t1.check("D6")
    assert t2.negate and t2.expect_fail and t2.answers == ("E7", "PASS")
    assert t2.check("D6") and not t2.check("pass") and not t2.check("E7")
    assert t3.setup == ["loadsgf tests/data/tactics/end-pass-b.sgf", "komi 7"]
    assert t3.check("pass") and t3.check("PASS") and not t3.check("A1")
    assert t1.name == "good:1"
    assert normalise("  1   c3 ") == "1 C3"


@pytest.mark.parametrize("text, line, words", [
    ("1 reg_genmove black\n2 reg_genmove white\n#? [A1]\n", 1, "no '#? [answer]'"),
    ("loadsgf tests/data/tactics/end-pass-b.sgf\n\n1 reg_genmove black\n", 3, "no '#? [answer]'"),
    ("# x\n#? [A1]\n", 2, "no numbered command"),
    ("1 reg_genmove black\n#? A1\n", 2, "malformed answer"),
    ("1 reg_genmove black\n#? [A1||B2]\n", 2, "bad answer"),
    ("1 reg_genmove black\n#? [A1]\n1 reg_genmove white\n#? [B2]\n", 3, "already used"),
    ("loadsgf tests/data/tactics/nosuchfile.sgf\n", 1, "does not exist"),
    ("7\n", 1, "no command"),
])
def test_parser_names_file_and_line(text, line, words):
    with pytest.raises(TstError) as e:
        parse_tst("bad.tst", text)
    assert str(e.value).startswith(f"bad.tst:{line}: ")
    assert words in str(e.value)


def test_bad_file_on_disk_names_its_path(tmp_path):
    p = tmp_path / "broken.tst"
    p.write_text("loadsgf tests/data/tactics/connect-capture.sgf\n1 reg_genmove black\n#? [E7\n")
    with pytest.raises(TstError, match=r"broken\.tst:3: malformed answer"):
        parse_tst(str(p))


def test_the_suite_parses_and_has_forty_positions():
    files = sorted(glob.glob(os.path.join(SUITE, "*.tst")))
    tests = [t for f in files for t in parse_tst(os.path.relpath(f, ROOT))]
    assert len(tests) >= 40
    sgfs = {s.split()[1] for t in tests for s in t.setup if s.startswith("loadsgf")}
    assert all(os.path.isfile(os.path.join(ROOT, s)) for s in sgfs)


# easy positions: the engine solves these every time at 1,000 simulations
# with expert priors (checked over 40 seeds each)
EASY = ["connect:1", "ladder:3", "nakade:1", "eyeshape:1", "seki:1"]


@pytest.fixture(scope="module")
def easy_tests():
    by_name = {}
    for f in sorted(glob.glob(os.path.join(SUITE, "*.tst"))):
        for t in parse_tst(os.path.relpath(f, ROOT)):
            by_name[t.name] = t
    return [by_name[n] for n in EASY]


@pytest.mark.parametrize("idx", range(len(EASY)), ids=EASY)
def test_easy_position(easy_tests, idx, monkeypatch):
    monkeypatch.chdir(ROOT)
    t = easy_tests[idx]
    for seed in (1, 2, 3):
        eng = GtpServer(load(os.path.join(ROOT, "configs", "9x9.toml"),
                             ["search.playouts=1000", f"search.seed={seed}", "prior.evaluator=expert",
                              "pool.pool_size=50000"]),
                        out=open(os.devnull, "w"))
        for s in t.setup:
            assert eng.respond(s).startswith("=")
        reply = eng.respond(t.command)
        assert reply.startswith("=")
        got = reply[1:].strip()
        assert t.check(got), f"{t.name}: expected {t.answer_text}, got {got} (seed {seed})"
