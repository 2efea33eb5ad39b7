"""GTP extensions that front ends and match controllers of today send:
seeds (GNU Go), legal moves (GNU Go, GoGui), the controller as the arbiter
of superko, KataGo and Leela Zero parameters, KataGo's analysis, rules.

Each reply is checked against the written format of the command's source
(GNU Go's GTP docs, KataGo's docs/GTP_Extensions.md, Leela Zero's README and
GTP.cpp, the KGS GTP page)."""
import os
import re

import pytest

from tests.protocol.test_gtp import fail, make_engine, ok, parse


@pytest.fixture
def eng():
    return make_engine()


# ------------------------------------------------------------------ seeds
def _game(eng, moves=8):
    ok(eng, "clear_board")
    out = []
    for i in range(moves):
        out.append(ok(eng, f"genmove {'bw'[i % 2]}"))
    return out


def test_random_seed_replays_a_game_exactly():
    eng = make_engine("search.early_stop=false", "search.seed=0")
    ok(eng, "set_random_seed 12345")
    assert ok(eng, "get_random_seed") == "12345"
    first = _game(eng)
    ok(eng, "set_random_seed 12345")
    assert _game(eng) == first
    # a fresh engine with the same seed plays the same game
    other = make_engine("search.early_stop=false", "search.seed=0")
    ok(other, "set_random_seed 12345")
    assert _game(other) == first
    assert eng.player.search().seed == 12345


def test_random_seed_replays_with_the_shipped_defaults():
    """Early stop is on by default: with a seed and a budget in playouts
    (search.seconds 0 over the shipped 9x9 config's 1 s) it stops by
    simulation counts, never by the clock, so new processes under load
    replay the same game (the shipped 9x9 net included)."""
    import subprocess
    from tests.conftest import PY, ROOT
    cmds = "set_random_seed 4242\nboardsize 9\nclear_board\n" + "".join(
        f"genmove {'bw'[i % 2]}\n" for i in range(6)) + "quit\n"
    procs = [subprocess.Popen([PY, "gtp_main.py", "--log-level", "WARNING", "--set", "search.playouts=1500",
                               "--set", "search.seconds=0"],
                              cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for _ in range(3)]       # three at once: each slows the others
    games = [p.communicate(cmds, timeout=300)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert games[0].count("= ") == 6 and games[0] == games[1] == games[2], games


def test_random_seed_zero_draws_one_and_bad_seeds_fail(eng):
    ok(eng, "set_random_seed 0")
    seed = int(ok(eng, "get_random_seed"))
    assert seed > 0 and eng.player.search().seed == seed
    for line in ("set_random_seed", "set_random_seed -3", "set_random_seed x", "set_random_seed 1 2",
                 "get_random_seed 4"):
        fail(eng, line)
    assert int(ok(eng, "get_random_seed")) == seed


# ------------------------------------------------------------------ legal moves
def test_is_legal_and_all_legal(eng):
    ok(eng, "play b E5")
    assert ok(eng, "is_legal w E5") == "0"
    assert ok(eng, "is_legal w D5") == "1"
    assert ok(eng, "is_legal b pass") == "1"
    moves = ok(eng, "all_legal w").split()
    assert len(moves) == 80 and "E5" not in moves and "pass" not in moves
    assert all(re.fullmatch(r"[A-HJ][1-9]", m) for m in moves)
    # suicide and ko
    for line in ("play b A2", "play b B1"):
        ok(eng, line)
    assert ok(eng, "is_legal w A1") == "0"
    assert "A1" not in ok(eng, "all_legal w").split()
    for line in ("is_legal", "is_legal w", "is_legal x E5", "is_legal w Z9", "is_legal w E5 E6",
                 "all_legal", "all_legal q", "all_legal b w"):
        fail(eng, line)


# ------------------------------------------------------------------ superko arbiter
KO_SETUP = ["play b C3", "play w D3", "play b B2", "play w C2", "play b C1", "play w D1", "play w E2",
            "play b D2",                  # black takes the ko
            "play w pass", "play b pass"]


def test_play_accepts_a_superko_repetition_from_the_controller(eng):
    for line in KO_SETUP:
        ok(eng, line)
    before = eng.game.board.colors()
    # white retakes: legal under simple ko (the passes cleared it), but it
    # repeats the position before black's capture
    assert eng.game.board.illegal_reason(eng.vertex("C2"), 2) == "superko"
    assert ok(eng, "is_legal w C2") == "1"
    assert "C2" in ok(eng, "all_legal w").split()
    ok(eng, "play w C2")
    assert eng.game.board.colors() != before
    # the engine's own moves keep positional superko: black may not retake at
    # once (simple ko) and the search's root forbids superko moves
    assert ok(eng, "is_legal b D2") == "0"
    mv = ok(eng, "genmove b")
    assert mv != "D2"
    ok(eng, "undo")
    ok(eng, "undo")
    # gogui-play_sequence follows the same rule
    ok(eng, "gogui-play_sequence w C2")


def test_superko_play_refuse_keeps_refusing(eng):
    for line in KO_SETUP:
        ok(eng, line)
    ok(eng, "go-param player.superko_play refuse")
    assert ok(eng, "is_legal w C2") == "0"
    assert "C2" not in ok(eng, "all_legal w").split()
    assert fail(eng, "play w C2") == "illegal move: C2 superko"
    fail(eng, "gogui-play_sequence w C2")
    fail(eng, "go-param player.superko_play sometimes")
    ok(eng, "go-param player.superko_play accept")
    ok(eng, "play w C2")


# ------------------------------------------------------------------ parameters
def test_kata_params_map_onto_config_keys(eng):
    ok(eng, "kata-set-param maxVisits 250")
    assert eng.cfg.search.playouts == 250
    assert ok(eng, "kata-get-param maxVisits") == "250"
    ok(eng, "kata-set-param maxTime 2.5")
    assert eng.cfg.search.seconds == 2.5 and ok(eng, "kata-get-param maxTime") == "2.5"
    ok(eng, "kata-set-param ponderingEnabled true")
    assert eng.player.ponder and ok(eng, "kata-get-param ponderingEnabled") == "true"
    ok(eng, "kata-set-param ponderingEnabled false")
    ok(eng, "kata-set-param rave.fpu 0.9")               # our own names too
    assert eng.cfg.rave.fpu == 0.9
    # cpuctExploration sets uct.c_puct, which the default (rave) tree does not read: refused, saying so
    assert "the active policy is rave" in fail(eng, "kata-set-param cpuctExploration 2")
    ok(eng, "kata-set-param search.tree uct")
    ok(eng, "kata-set-param cpuctExploration 2")
    assert eng.cfg.uct.c_puct == 2.0 and ok(eng, "kata-get-param cpuctExploration") == "2"
    ok(eng, "kata-set-param search.tree rave")
    names = ok(eng, "kata-list-params").split("\n")
    assert "maxVisits" in names and "search.playouts" in names
    assert "unsupported" in fail(eng, "kata-set-param playoutDoublingAdvantage 1.0")
    assert "unknown parameter" in fail(eng, "kata-set-param noSuchThing 3")
    for line in ("kata-set-param maxVisits -5", "kata-set-param maxVisits lots", "kata-set-param maxTime 1e9",
                 "kata-set-param maxTime nan", "kata-set-param numSearchThreads 300", "kata-set-param",
                 "kata-set-param maxVisits", "kata-get-param", "kata-get-param nope", "kata-list-params x",
                 "kata-set-param search.tree oak"):
        fail(eng, line)


def test_lz_setoption_maps_leela_zero_options(eng):
    ok(eng, "lz-setoption name Playouts value 500")
    assert eng.cfg.search.playouts == 500
    ok(eng, "lz-setoption name visits value 0")              # LZ: 0 = unlimited
    assert eng.cfg.search.playouts == 10**9
    ok(eng, "lz-setoption name Maximum Memory Use (MiB) value 16")
    from engine.pool import BYTES_PER_NODE
    assert eng.cfg.pool.pool_size == 16 * 2**20 // BYTES_PER_NODE
    ok(eng, "lz-setoption name Lagbuffer value 150")
    assert eng.cfg.time.safety_margin == 1.5
    ok(eng, "lz-setoption name Resign Percentage value 10")
    assert eng.cfg.search.resign_threshold == pytest.approx(0.1)
    ok(eng, "lz-setoption name Resign Percentage value -1")
    assert eng.cfg.search.resign_threshold == 0.0
    ok(eng, "lz-setoption name pondering value false")
    ok(eng, "lz-setoption name rave.K value 0.5")            # our own names too
    assert eng.cfg.rave.K == 0.5
    lines = ok(eng, "lz-setoption").split("\n")
    assert all(re.fullmatch(r"option name [\w ()]+ type (spin|check) default \S+", ln) for ln in lines)
    assert "unsupported" in fail(eng, "lz-setoption name Percentage of memory for cache value 10")
    for line in ("lz-setoption name Playouts value -1", "lz-setoption name Playouts value x",
                 "lz-setoption name Playouts", "lz-setoption Playouts 5", "lz-setoption name value 5",
                 "lz-setoption name Bogus value 5", "lz-setoption name Resign Percentage value 70",
                 "lz-setoption name Pondering value maybe", "lz-setoption name Lagbuffer value -3"):
        fail(eng, line)


# ------------------------------------------------------------------ analysis
FLOAT = r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
KATA_INFO_RE = re.compile(
    rf"info move (\S+) visits (\d+) utility ({FLOAT}) winrate ({FLOAT}) scoreMean ({FLOAT}) "
    rf"scoreStdev ({FLOAT}) scoreLead ({FLOAT}) scoreSelfplay ({FLOAT}) prior ({FLOAT}) lcb ({FLOAT}) "
    rf"utilityLcb ({FLOAT}) order (\d+) pv((?: \S+)+)")
LZ_INFO_RE = re.compile(r"info move (\S+) visits (\d+) winrate (\d+) prior (\d+) lcb (\d+) order (\d+) pv((?: \S+)+)")


def split_line(line):
    """(info chunks, ownership values or None) of one analysis line."""
    own = None
    if " ownership " in f" {line} ":
        line, _, tail = f" {line} ".partition(" ownership ")
        own = [float(v) for v in tail.split()]
    return [c.strip() for c in re.split(r"\s*(?=info move )", line) if c.strip()], own


def check_kata_line(line, size=9, ownership=False):
    chunks, own = split_line(line)
    assert chunks
    orders = []
    for c in chunks:
        m = KATA_INFO_RE.fullmatch(c)
        assert m, c
        wr, lead, mean, sd = float(m.group(4)), float(m.group(7)), float(m.group(5)), float(m.group(6))
        prior, lcb = float(m.group(9)), float(m.group(10))
        assert 0 <= wr <= 1 and 0 <= prior <= 1 and 0 <= lcb <= 1
        assert float(m.group(3)) == pytest.approx(2 * wr - 1, abs=1e-5)
        assert float(m.group(11)) == pytest.approx(2 * lcb - 1, abs=1e-5)
        assert lead == mean == float(m.group(8)) and sd >= 0 and abs(lead) <= size * size + 100
        orders.append(int(m.group(12)))
    assert orders == list(range(len(orders)))
    if ownership:
        assert own is not None and len(own) == size * size and all(-1 <= v <= 1 for v in own)
    else:
        assert own is None
    return [KATA_INFO_RE.fullmatch(c).group(1) for c in chunks], own


def test_kata_analyze_streams_scores_and_ownership():
    from tests.protocol.test_gtp_process import Proc
    pr = Proc("player.score_playouts=20", "player.move_score_playouts=8")
    try:
        for line in ("boardsize 9", "play b E5", "play w C3", "play b G7"):
            pr.send(line)
            assert pr.reply() == ["="]
        pr.send("kata-analyze w 10 ownership true")
        pr.wait_for(lambda ls: sum(1 for x in ls if x and x.startswith("info")) >= 2)
        pr.send("name")
        out = pr.reply()
        assert out[0] == "="
        for line in out[1:]:
            moves, own = check_kata_line(line, ownership=True)
            assert "E5" not in moves
        # White to move: ownership is White's view, so Black's stones are negative
        assert own[(9 - 5) * 9 + 4] < 0                  # E5, row 5 from the top is index 4
        assert pr.reply() == ["= gomcts"]
        pr.send("kata-analyze b 5 maxmoves 2 avoid b D4,F4,D6,F6 1")
        pr.wait_for(lambda ls: sum(1 for x in ls if x and x.startswith("info")) >= 2)
        pr.send("protocol_version")
        out = pr.reply()
        assert out[0] == "=" and len(out) > 1
        for line in out[1:]:
            moves, _ = check_kata_line(line)
            assert len(moves) <= 2 and not {"D4", "F4", "D6", "F6"} & set(moves)
        assert pr.reply() == ["= 2"]
        pr.send("lz-analyze b 5 allow b C7,D7 1 ownership true")
        pr.wait_for(lambda ls: sum(1 for x in ls if x and x.startswith("info")) >= 2)
        pr.send("name")
        out = pr.reply()
        for line in out[1:]:
            chunks, own = split_line(line)
            assert own is not None and len(own) == 81
            for c in chunks:
                m = LZ_INFO_RE.fullmatch(c)
                assert m, c
                assert m.group(1) in ("C7", "D7", "pass")
        assert pr.reply() == ["= gomcts"]
        for bad in ("kata-analyze b 10 ownership maybe", "kata-analyze b 10 bogus 1", "kata-analyze b 10 minmoves",
                    "kata-analyze b 10 avoid b D4", "kata-analyze b 10 avoid b Z9 1", "kata-analyze b 10 avoid b D4 0",
                    "lz-analyze b 10 avoid x D4 1", "lz-analyze b 10 allow b D4 1 avoid b E4 1",
                    "kata-genmove_analyze", "kata-genmove_analyze 10"):
            pr.send(bad)
            got = pr.reply()
            assert len(got) == 1 and got[0].startswith("? "), (bad, got)
        pr.send("showboard")
        assert pr.reply()[0].startswith("=")
    finally:
        pr.close()
    assert pr.p.returncode == 0


def test_kata_genmove_analyze_avoids_and_plays(eng):
    ok(eng, "play b E5")
    before = eng.game.move_number
    out = eng.respond("kata-genmove_analyze w 10 ownership true avoid w D4,D5,D6,E4,E6,F4,F5,F6 1")
    assert out.endswith("\n\n")
    lines = out[:-2].split("\n")
    assert lines[0] == "="
    m = re.fullmatch(r"play ([A-HJ]\d|pass|resign)", lines[-1])
    assert m and m.group(1) not in ("D4", "D5", "D6", "E4", "E6", "F4", "F5", "F6")
    assert eng.game.move_number == before + 1
    for line in lines[1:-1]:
        moves, _own = check_kata_line(line, ownership=True)
        assert not {"D4", "D6", "F4", "F6"} & set(moves)
    # the avoided moves were never searched at the root
    searched = {eng.vtx(r["move"]) for r in eng.player.search().analysis() if r["visits"] > 0}
    assert not {"D4", "D5", "D6", "E4", "E6", "F4", "F5", "F6"} & searched
    # a later plain genmove is not restricted any more
    ok(eng, "undo")
    ok(eng, "genmove w")
    assert eng.player.search().tree is not None


def test_docs_list_every_command_with_its_source():
    import os
    from engine.gtp.server import COMMAND_HELP
    text = open(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs", "GTP.md"),
                encoding="utf-8").read()
    for name in COMMAND_HELP:
        assert re.search(rf"`{re.escape(name)}[ `]", text), f"docs/GTP.md does not list {name}"
    assert "Rectangular boards" in text


# ------------------------------------------------------------------ rules
def test_rules_commands(eng):
    import json
    got = json.loads(ok(eng, "kata-get-rules"))
    assert got["scoring"] == "AREA" and got["whiteHandicapBonus"] == "N"
    ok(eng, "kgs-rules aga")
    assert json.loads(ok(eng, "kata-get-rules"))["whiteHandicapBonus"] == "N-1"
    ok(eng, "kgs-rules new_zealand")
    assert json.loads(ok(eng, "kata-get-rules"))["whiteHandicapBonus"] == "0"
    ok(eng, "kgs-rules japanese")
    assert eng.cfg.player.rules == "japanese"
    got = json.loads(ok(eng, "kata-get-rules"))
    assert got["scoring"] == "TERRITORY" and got["tax"] == "SEKI" and got["whiteHandicapBonus"] == "0"
    ok(eng, "kata-set-rules new-zealand")
    assert eng.cfg.player.rules == "new_zealand"
    ok(eng, "kata-set-rules korean")
    assert eng.cfg.player.rules == "japanese"
    ok(eng, "kgs-rules chinese")
    for line in ("kgs-rules", "kgs-rules ing", "kgs-rules chinese japanese", "kata-set-rules tromp-taylor",
                 'kata-set-rules {"ko":"SIMPLE"}', "kata-set-rules", "kata-get-rules x",
                 "go-param player.rules ing"):
        fail(eng, line)
    assert eng.cfg.player.rules == "chinese"
    ok(eng, "play b E5")
    assert ok(eng, "kgs-game_over") == ""


def test_bad_rules_params_and_analysis_options_leave_the_state_as_it_was(eng):
    """Every refusal is ``? message`` and changes nothing (``fail`` compares
    the board, the clocks and the whole config, rules included, before
    and after): unknown rules, unknown or out-of-range parameters, unknown
    or malformed analysis options, with Japanese rules and a position set."""
    import json
    for line in ("komi 6.5", "play b E5", "play w C3", "kgs-rules japanese", "kata-set-param maxVisits 77"):
        ok(eng, line)
    ponder = eng.player.ponder
    for line in ("kgs-rules ing", "kgs-rules", "kata-set-rules tromp-taylor", "kata-set-rules stone-scoring",
                 "kata-set-rules bogus", 'kata-set-rules {"scoring":"AREA"}', "go-param player.rules korean",
                 "kata-set-param maxVisits -1", "kata-set-param noSuchThing 3", "kata-set-param ponderingEnabled maybe",
                 "kata-set-param rootPolicyTemperature 1.1", "lz-setoption name Playouts value many",
                 "lz-setoption name Bogus value 1",
                 "kata-analyze b 10 bogus 1", "kata-analyze b 10 ownership maybe", "kata-analyze b 10 interval",
                 "kata-analyze b 10 maxmoves -2", "kata-analyze x 10", "kata-analyze b -5",
                 "kata-analyze b 10 avoid b D4", "kata-analyze b 10 avoid b E5:Z9 1", "lz-analyze b 10 minmoves x",
                 "analyze b 10 allow b D4 1 avoid b E4 1", "lz-genmove_analyze b 10 bogus 1",
                 "kata-genmove_analyze b 10 avoid b D4 x", "genmove_analyze",
                 "kata-analyze b 10 avoid b D4 2147483648", "lz-analyze b 10 allow b D4 100001"):
        fail(eng, line)
    assert eng.player.ponder == ponder
    assert eng.cfg.player.rules == "japanese" and eng.cfg.search.playouts == 77
    assert json.loads(ok(eng, "kata-get-rules"))["scoring"] == "TERRITORY"
    assert eng.game.move_number == 2


def test_a_command_added_as_hacking_says_is_served(monkeypatch):
    """docs/HACKING.md's recipe: a COMMAND_HELP entry and a cmd_ method."""
    from engine.gtp import server
    monkeypatch.setitem(server.COMMAND_HELP, "stones-count", "stones on the board")

    class Served(server.GtpServer):
        def cmd_stones_count(self, args):
            if args:
                raise server.GtpFail("stones-count takes no arguments")
            b = self.player.game.board
            return str(sum(1 for p in range(b.size * b.size) if b.color_at(p)))

    import os
    from engine.config import load
    from tests.conftest import SMALL
    eng = Served(load(None, SMALL), out=open(os.devnull, "w"))
    ok(eng, "play b C3")
    assert ok(eng, "stones-count") == "1"
    assert "stones-count" in ok(eng, "list_commands").split()
    fail(eng, "stones-count 3")


def test_kata_analyze_takes_katago_options(eng):
    """Options KataGo documents are accepted: pvVisits, pvEdgeVisits,
    rootInfo and ownershipStdev are emitted; movesOwnership is not, and a
    warning on stderr says so; none refused (Lizzie sends pvVisits true)."""
    import io
    ok(eng, "play b E5")
    eng.err = io.StringIO()
    out = eng.respond("kata-analyze w 10 pvVisits true rootInfo true movesOwnership true "
                      "ownershipStdev false pvEdgeVisits true")
    assert out.startswith("=")
    assert "movesOwnership is not given" in eng.err.getvalue()
    eng.player.genmove(2, play=False, budget=(300, None))
    rows = eng.player.analyst.score_rows(2).annotate(eng.player.search().analysis())
    line = eng._info_line(rows, {"kata": True, "avoid": set(), "pvVisits": True, "rootInfo": True,
                                 "pvEdgeVisits": True, "ownership": True, "ownershipStdev": True})
    first = line.split(" info ")[0]
    m = re.search(r" pv ((?:[A-HJ]\d ?)+) pvVisits ((?:\d+ ?)+) pvEdgeVisits ((?:\d+ ?)+)", first)
    assert m and len(m.group(1).split()) == len(m.group(2).split()) == len(m.group(3).split())
    assert int(m.group(2).split()[0]) == rows[0]["visits"]
    own = [float(x) for x in line.split(" ownership ")[1].split(" ownershipStdev ")[0].split()]
    sd = [float(x) for x in line.split(" ownershipStdev ")[1].split()]
    assert len(own) == len(sd) == 81 and all(abs(s2 - (1 - o * o) ** 0.5) < 1e-3 for o, s2 in zip(own, sd))
    assert re.search(r"rootInfo visits \d+ utility \S+ winrate \S+ scoreMean \S+", line)
    fail(eng, "kata-analyze w 10 pvVisits maybe")


# ------------------------------------------------------------------ small defects
def test_the_count_gives_white_the_handicap_bonus_of_the_rules():
    """KataGo's whiteHandicapBonus is what the count does: Chinese N, AGA
    N - 1, Japanese 0 (an empty 9x9 board with 4 stones: Black has all 81
    points)."""
    from engine.game import handicap_bonus
    assert [handicap_bonus(r, 4) for r in ("chinese", "aga", "new_zealand", "japanese")] == [4, 3, 0, 0]
    assert handicap_bonus("chinese", 0) == 0
    eng = make_engine()
    ok(eng, "komi 0.5")
    ok(eng, "fixed_handicap 4")
    assert eng.player.score_komi == 4.5
    ok(eng, "kgs-rules aga")
    assert eng.player.score_komi == 3.5
    ok(eng, "kgs-rules japanese")
    assert eng.player.score_komi == 0.5
    ok(eng, "clear_board")
    ok(eng, "kgs-rules chinese")
    assert eng.player.score_komi == 0.5


def test_numbers_are_gtp_numbers_and_weights_must_exist(eng, tmp_path):
    """``komi 1_000`` (Python's float() takes it) and a net.weights file
    that is not there are refused; the old weights stay."""
    for line in ("komi 1_000", "komi 0x10", "komi inf", "komi nan", "komi 6.5.", "komi ١", "time_settings 1_0 0 0",
                 "go-param net.weights /nope.pt", f"go-param net.weights {tmp_path}"):
        fail(eng, line)
    for line, komi in (("komi 6.5", 6.5), ("komi -3", -3.0), ("komi .5", 0.5), ("komi 7.", 7.0), ("komi 1e1", 10.0)):
        ok(eng, line)
        assert eng.game.komi == komi
    w = tmp_path / "w.pt"
    w.write_bytes(b"")
    ok(eng, f"go-param net.weights {w}")
    assert eng.cfg.net.weights == str(w)


def test_selfplay_without_a_required_net_says_so_in_one_line(tmp_path):
    import subprocess
    from tests.conftest import PY, ROOT
    r = subprocess.run([PY, "-m", "tools.selfplay", "--games", "1", "--size", "9", "--out", str(tmp_path / "o"),
                        "--set", "net.required=true", "--set", "net.weights=/no/such.pt"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "net.required" in r.stderr and "/no/such.pt" in r.stderr


# ------------------------------------------------------------------ the anchors' commands
def test_katago_board_komi_cache_and_stop(eng):
    """KataGo's get_komi, rectangular_boardsize (square only here),
    clear_cache (the next search starts afresh) and stop; GNU Go's
    get_handicap and captures."""
    ok(eng, "komi 6.5")
    assert ok(eng, "get_komi") == "6.5"
    fail(eng, "rectangular_boardsize 9 7")
    fail(eng, "rectangular_boardsize 25 25")
    fail(eng, "get_komi 1")
    ok(eng, "rectangular_boardsize 7 7")
    assert eng.size == 7 and ok(eng, "get_komi") == "6.5"
    assert ok(eng, "get_handicap") == "0"
    ok(eng, "fixed_handicap 2")
    assert ok(eng, "get_handicap") == "2"
    for line in ("play w A1", "play b B1", "play w G7", "play b A2"):
        ok(eng, line)
    assert ok(eng, "captures b") == "1" and ok(eng, "captures w") == "0"
    ok(eng, "genmove w")
    assert eng.player.search().tree is not None and ok(eng, "top_moves")
    ok(eng, "clear_cache")
    assert eng.player.search().tree is None and ok(eng, "top_moves") == ""
    assert ok(eng, "stop") == ""
    fail(eng, "stop now")


def test_kata_time_settings_fischer(eng):
    ok(eng, "kata-time_settings fischer 60 5")
    assert eng.player.tc.describe() == "fischer 60s + 5s a move"
    ok(eng, "kata-time_settings fischer-capped 60 5 120 -1")
    assert eng.player.tc.main_limit == 120
    assert ok(eng, "kata-list_time_settings").split() == ["none", "absolute", "byoyomi", "canadian",
                                                         "fischer", "fischer-capped"]
    ok(eng, "kata-time_settings byoyomi 10 5 3")
    assert eng.player.tc.system == "byoyomi"
    for line in ("kata-time_settings", "kata-time_settings fischer 60", "kata-time_settings fischer 60 x",
                 "kata-time_settings fischer-capped 60 5 30 -1", "kgs-time_settings fischer 60 5",
                 "kata-time_settings bronstein 60 5"):
        fail(eng, line)
    assert eng.player.tc.system == "byoyomi"


def test_gnugo_estimate_score_and_top_moves(eng):
    """estimate_score: GNU Go's ``W+6.5 (upper bound: U, lower: L)`` with
    the bounds as White's score around the estimate; top_moves: the last
    genmove's candidates, vertex and win rate in percent."""
    assert ok(eng, "top_moves") == ""
    m = re.fullmatch(r"([BW])\+([0-9.]+) \(upper bound: (-?[0-9.]+), lower: (-?[0-9.]+)\)",
                     ok(eng, "estimate_score"))
    assert m and m.group(1) == "W" and float(m.group(2)) == eng.game.komi     # the empty board
    assert float(m.group(4)) <= float(m.group(2)) <= float(m.group(3))
    move = ok(eng, "genmove b")
    words = ok(eng, "top_moves").split()
    assert len(words) >= 4 and len(words) % 2 == 0 and words[0] == move
    assert all(0 <= float(w) <= 100 for w in words[1::2])
    n = eng.game.move_number
    words = ok(eng, "top_moves_white").split()
    assert eng.game.move_number == n and words and eng.player.last["color"] == 2
    fail(eng, "top_moves x")


def test_heatmap_and_kata_raw_nn_show_the_net(capsys):
    """Leela Zero's heatmap (per mille rows on stderr, top row first, as
    Lizzie reads them) and KataGo's kata-raw-nn (win/loss for White,
    policy rows, NAN on occupied points), both from the shipped 9x9 net;
    with a named net that does not load they say so."""
    from engine.config import load
    from engine.gtp.server import GtpServer
    from tests.conftest import SMALL
    eng = GtpServer(load(None, SMALL + ["prior.evaluator=net"]), out=open(os.devnull, "w"))
    ok(eng, "play b E5")
    capsys.readouterr()
    assert ok(eng, "heatmap") == ""
    err = capsys.readouterr().err.splitlines()
    rows = [list(map(int, ln.split())) for ln in err[:9]]
    assert len(rows) == 9 and all(len(r) == 9 for r in rows)
    assert rows[4][4] == 0                        # E5 is occupied
    assert err[9].startswith("pass: ") and err[10].startswith("winrate: ")
    pr, value = eng.player.nets.evaluate(eng.player.position())
    assert rows[0][2] == int(float(pr[8 * 9 + 2]) * 1000)           # C9: the top row first
    lines = ok(eng, "kata-raw-nn 0").splitlines()
    assert lines[0] == "symmetry 0" and lines[4] == "policy"      # this net has no score or ownership head
    white = float(lines[1].split()[1])
    assert white == pytest.approx(value, abs=1e-5)   # White to move: the value is White's
    grid = [ln.split() for ln in lines[5:14]]
    assert grid[4][4] == "NAN" and sum(float(v) for r in grid for v in r if v != "NAN") <= 1.0001
    assert lines[14].startswith("policyPass ")
    # the shipped 9x9 net has score and ownership heads: whiteLead and whiteOwnership too
    res = GtpServer(load(None, SMALL + ["prior.evaluator=net", "net.weights=nets/weights/9x9-res3.pt"]),
                    out=open(os.devnull, "w"))
    ok(res, "play b E5")
    lines = ok(res, "kata-raw-nn 0").splitlines()
    from nets.evaluator import Evaluator
    from board_ext.board import Board
    ev = Evaluator.load("nets/weights/9x9-res3.pt")
    board = res.player.game.board.copy()
    _, lead, own0 = ev.evaluate_aux([board])        # White to move: the heads speak for White
    assert lines[4].startswith("whiteLead ") and float(lines[4].split()[1]) == pytest.approx(float(lead[0]), abs=1e-4)
    assert lines[5] == "whiteOwnership"
    own = [[float(v) for v in ln.split()] for ln in lines[6:15]]
    assert own[0][2] == pytest.approx(float(own0[0][8 * 9 + 2]), abs=1e-4)    # the top row first
    assert lines[15] == "policy" and lines[25].startswith("policyPass ")
    # symmetry 5 (the rows mirrored, then KataGo's transpose) of a position is the
    # net's answer for the turned position, turned back: (x, y) -> (y, 8 - x)
    from board_ext.board import BLACK, WHITE
    res.respond("play b C3")                        # Black E5 and C3, White to move
    n = 9
    turned = Board(n)
    turned.play(4 * n + 4, BLACK)                   # E5 is its own image
    turned.play(6 * n + 2, BLACK)                   # C3 (2, 2) -> (2, 6): C7
    turned.to_move = WHITE
    raw0 = ev.raw(turned, [0])
    sym5 = [ln.split() for ln in ok(res, "kata-raw-nn 5").splitlines()]
    assert sym5[0] == ["symmetry", "5"] and sym5[15] == ["policy"]
    pol = [[None if v == "NAN" else float(v) for v in r] for r in sym5[16:25]]
    seen = 0
    for x in range(n):
        for y in range(n):
            v = pol[n - 1 - y][x]                   # rows top first
            if v is not None:
                seen += 1
                assert v == pytest.approx(float(raw0["policy"][(n - 1 - x) * n + y]), abs=1e-5)
    assert seen == n * n - 2
    assert float(sym5[1][1]) == pytest.approx(raw0["value"], abs=1e-5)      # White to move: whiteWin is the value
    alls = [ln.split() for ln in ok(res, "kata-raw-nn all").splitlines()]
    assert alls[0] == ["symmetry", "all"]
    mean = sum(float(ok(res, f"kata-raw-nn {k}").splitlines()[1].split()[1]) for k in range(8)) / 8
    assert float(alls[1][1]) == pytest.approx(mean, abs=1e-4)
    assert "0-7 or all" in fail(eng, "kata-raw-nn 8")
    fail(eng, "kata-raw-nn")
    fail(eng, "heatmap bogus")
    nonet = GtpServer(load(None, SMALL + ["prior.evaluator=net", "net.weights=" + os.devnull]),
                      out=open(os.devnull, "w"))
    # a named net that does not load is an error that names it (never a silent fallback)
    assert "cannot use net.weights" in fail(nonet, "heatmap") and "cannot use net.weights" in fail(nonet, "kata-raw-nn 0")


def test_live_gogui_graphics_during_genmove(capsys):
    """gtp.live_gfx: gogui-gfx blocks on stderr while genmove searches (as
    Fuego and Pachi draw in GoGui); off by default."""
    eng = make_engine("search.playouts=3000", "search.early_stop=false", "gtp.live_gfx_interval=0.05")
    capsys.readouterr()
    ok(eng, "genmove b")
    assert "gogui-gfx:" not in capsys.readouterr().err
    for what, head in (("visits", "INFLUENCE "), ("pv", "VAR b ")):
        ok(eng, f"go-param gtp.live_gfx {what}")
        ok(eng, "clear_board")
        ok(eng, "genmove b")
        blocks = capsys.readouterr().err.split("gogui-gfx:\n")[1:]
        assert blocks, what
        assert all(b.endswith("\n\n") for b in blocks)
        assert blocks[-1].startswith(head), blocks[-1]


def test_until_moves_past_the_root_reach_below_it(eng):
    """``avoid b VERTICES 3`` with White to move: Black's replies in the
    tree (depth 1) never play them; the search's own tree says so."""
    ok(eng, "play b E5")
    banned = {"D4", "D5", "D6", "E4", "E6", "F4", "F5", "F6"}
    eng.respond(f"kata-genmove_analyze w 10 avoid b {','.join(sorted(banned))} 3")
    s = eng.player.search()
    t = s.tree
    replies = set()
    for ch in t.children():
        if ch[1] > 0:
            replies |= {eng.vtx(g[0]) for g in t.children(ch[6]) if g[1] > 0}
    assert replies and not replies & banned
