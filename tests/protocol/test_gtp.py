"""The GTP server, driven by text as a controller drives it.

Every command of the GTP 2 spec and every extension the engine lists, the
reply framing (ids, '='/'?', blank-line terminator, comments, case and
whitespace), malformed input (each must give '? message' and leave the
state unchanged) and a hypothesis fuzz test of random lines.  Small search
budgets keep it fast.
"""
import os
import re
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.config import load
from engine.gtp.server import GtpServer, preprocess
from engine.scoring import area_score, fmt_score
from tests.conftest import DEAD_G7, PY, ROOT, SMALL, passing_search

REPLY_RE = re.compile(r"^([=?])(\d*)(?:[ \n](.*))?$", re.S)


def make_engine(*extra):
    return GtpServer(load(None, SMALL + list(extra)), out=open(os.devnull, "w"))


@pytest.fixture
def eng():
    return make_engine()


def parse(out):
    """(ok, id, body) of exactly one reply; asserts the framing."""
    assert out.endswith("\n\n"), repr(out)
    text = out[:-2]
    assert "\n\n" not in text, repr(out)
    m = REPLY_RE.match(text)
    assert m, repr(out)
    return m.group(1) == "=", m.group(2), (m.group(3) or "").strip()


def ok(eng, line):
    good, _, body = parse(eng.respond(line))
    assert good, f"{line!r} failed: {body}"
    return body


def fail(eng, line):
    before = state(eng)
    good, _, body = parse(eng.respond(line))
    assert not good, f"{line!r} should fail, got {body!r}"
    assert body, "a failure needs a message"
    assert "internal error" not in body, f"{line!r}: a bad input is the usual error, not {body!r}"
    assert state(eng) == before, f"state changed by failing {line!r}"
    return body


def state(eng):
    g = eng.game
    b = g.board
    return (g.size, g.komi, b.colors(), b.to_move, g.move_number, len(g.history), g.handicap,
            tuple(g.root_black), tuple(g.root_white), eng.player.tc.system, eng.player.tc.main_time, eng.cfg)


def board_of(eng):
    return eng.game.board.to_ascii()


# ------------------------------------------------------------------ framing
def test_ids_are_echoed_and_replies_end_with_blank_line(eng):
    assert eng.respond("7 protocol_version") == "=7 2\n\n"
    assert eng.respond("8 no_such_command") == "?8 unknown command\n\n"
    assert eng.respond("name") == "= gomcts\n\n"
    assert eng.respond("12 clear_board") == "=12\n\n"


def test_comments_blank_lines_whitespace_and_case(eng):
    assert eng.respond("# just a comment") == ""
    assert eng.respond("") == ""
    assert eng.respond("   \t  ") == ""
    assert eng.respond("  3 \t known_command\tplay  # trailing comment") == "=3 true\n\n"
    assert eng.respond("proto\x01col_version") == "= 2\n\n"      # control characters dropped
    assert eng.respond("name\r") == "= gomcts\n\n"
    ok(eng, "PLAY B e5")                                   # vertices and colours any case
    assert eng.game.board.color_at(40) == 1
    ok(eng, "play white D4")
    ok(eng, "play BLACK pass")
    assert eng.game.move_number == 3
    assert preprocess("10 genmove b # x") == "10 genmove b"


def test_administrative_commands(eng):
    assert ok(eng, "protocol_version") == "2"
    assert ok(eng, "name") == "gomcts"
    assert ok(eng, "version")
    assert ok(eng, "known_command genmove") == "true"
    assert ok(eng, "known_command lz-analyze") == "true"
    assert ok(eng, "known_command frobnicate") == "false"
    cmds = ok(eng, "list_commands").split("\n")
    required = """protocol_version name version known_command list_commands quit boardsize clear_board komi
        fixed_handicap place_free_handicap set_free_handicap play genmove undo time_settings time_left
        final_score final_status_list loadsgf reg_genmove showboard kgs-genmove_cleanup kgs-time_settings
        gomill-describe_engine gomill-explain_last_move gomill-cpu_time gg-undo gogui-play_sequence
        gogui-setup gogui-interrupt printsgf cputime gogui-analyze_commands lz-analyze kata-analyze
        lz-genmove_analyze kata-genmove_analyze go-ponder go-param go-memory_report go-set_pool_size""".split()
    for c in required:
        assert c in cmds, c
    # known, answered, but not listed: Sabaki then picks kata-analyze, which shows score leads
    for c in ("analyze", "genmove_analyze"):
        assert c not in cmds and ok(eng, f"known_command {c}") == "true"
    sabaki_pick = next(c for c in ("analyze", "kata-analyze", "lz-analyze") if c in cmds)
    assert sabaki_pick == "kata-analyze"
    for c in cmds:
        assert ok(eng, f"known_command {c}") == "true"
    assert ok(eng, "quit") == "" and eng.quit


# ------------------------------------------------------------------ setup
def test_boardsize_and_komi(eng):
    ok(eng, "komi 6.5")                  # Sabaki: komi before boardsize
    ok(eng, "boardsize 13")
    assert eng.game.size == 13 and eng.game.komi == 6.5
    ok(eng, "play b D4")
    ok(eng, "clear_board")
    assert eng.game.komi == 6.5 and eng.game.move_number == 0
    ok(eng, "boardsize 19")
    ok(eng, "play b Q16")
    assert fail(eng, "boardsize 25") == "unacceptable size"
    assert fail(eng, "boardsize 1") == "unacceptable size"
    fail(eng, "boardsize nine")
    fail(eng, "boardsize")
    fail(eng, "komi abc")
    fail(eng, "komi nan")
    fail(eng, "komi")
    ok(eng, "komi -3")
    assert eng.game.komi == -3


def test_fixed_handicap(eng):
    assert ok(eng, "fixed_handicap 5").split() == ["C3", "G7", "C7", "G3", "E5"]
    assert eng.game.to_move == 2 and eng.game.handicap == 5
    assert fail(eng, "fixed_handicap 2") == "board not empty"
    ok(eng, "clear_board")
    fail(eng, "fixed_handicap 10")
    fail(eng, "fixed_handicap 1")
    fail(eng, "fixed_handicap x")
    ok(eng, "boardsize 19")
    assert ok(eng, "fixed_handicap 9").split() == "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10".split()


def test_free_handicap(eng):
    pts = ok(eng, "place_free_handicap 4").split()
    assert len(pts) == 4 == len(set(pts)) and "pass" not in [p.lower() for p in pts]
    ok(eng, "clear_board")
    ok(eng, "set_free_handicap D4 F6 C7")
    assert eng.game.handicap == 3 and eng.game.to_move == 2
    ok(eng, "clear_board")
    fail(eng, "set_free_handicap D4 D4")
    fail(eng, "set_free_handicap D4 pass")
    fail(eng, "set_free_handicap D4")
    fail(eng, "set_free_handicap D4 Z9")
    ok(eng, "play b E5")
    assert fail(eng, "set_free_handicap D4 F6") == "board not empty"
    fail(eng, "place_free_handicap 2")


# ------------------------------------------------------------------ moves
def test_play_and_malformed_play(eng):
    ok(eng, "play b E5")
    fail(eng, "play b Z99")
    fail(eng, "play b A0")
    fail(eng, "play b J10")
    fail(eng, "play b I5")            # GTP letters skip I
    fail(eng, "play x D4")
    fail(eng, "play b")               # empty vertex
    fail(eng, "play")
    fail(eng, "play b D4 extra")
    assert "occupied" in fail(eng, "play w E5")
    ok(eng, "play w pass")
    ok(eng, "play b pass")
    ok(eng, "play b D4")              # consecutive same colour
    ok(eng, "play b C4")
    assert eng.game.to_move == 2


def test_illegal_move_reasons(eng):
    # suicide: a lone point surrounded by black
    for v in ("A2", "B1"):
        ok(eng, f"play b {v}")
    assert "suicide" in fail(eng, "play w A1")
    ok(eng, "clear_board")
    # simple ko at E5/F5
    for c, v in (("b", "D5"), ("b", "E6"), ("b", "E4"), ("w", "F6"), ("w", "F4"), ("w", "G5"),
                 ("w", "E5"), ("b", "F5")):
        ok(eng, f"play {c} {v}")     # B F5 captures E5
    assert eng.game.board.color_at(4 * 9 + 4) == 0
    assert "ko" in fail(eng, "play w E5")
    ok(eng, "play w A9")
    ok(eng, "play b B9")
    ok(eng, "play w E5")              # ko threat answered: retake is legal now


def test_genmove_and_reg_genmove(eng):
    mv = ok(eng, "genmove b")
    assert re.fullmatch(r"[A-HJ]\d|pass|resign", mv)
    assert eng.game.move_number == 1
    before = state(eng)
    mv2 = ok(eng, "reg_genmove w")
    assert re.fullmatch(r"[A-HJ]\d|pass", mv2)
    assert state(eng) == before           # not played
    ok(eng, "genmove white")
    ok(eng, "genmove W")
    assert eng.game.move_number == 3
    fail(eng, "genmove")
    fail(eng, "genmove purple")
    expl = ok(eng, "gomill-explain_last_move")
    assert "winrate" in expl and "visits" in expl
    assert ok(eng, "kgs-genmove_cleanup b")
    assert eng.game.move_number == 4


def test_undo_and_gg_undo(eng):
    fail(eng, "undo")
    ok(eng, "play b E5")
    ok(eng, "play w D4")
    ok(eng, "play b C3")
    ok(eng, "undo")
    assert eng.game.move_number == 2
    ok(eng, "gg-undo 2")
    assert eng.game.move_number == 0 and eng.game.is_empty()
    fail(eng, "gg-undo 1")
    fail(eng, "gg-undo x")
    ok(eng, "play b E5")
    ok(eng, "gg-undo")
    assert eng.game.is_empty()


def test_gogui_play_sequence_setup_and_interrupt(eng):
    ok(eng, "gogui-play_sequence b E5 w D4 b pass")
    assert eng.game.move_number == 3
    fail(eng, "gogui-play_sequence w C3 b E5")      # second move occupied: nothing played
    fail(eng, "gogui-play_sequence w C3 b")
    ok(eng, "clear_board")
    ok(eng, "gogui-setup b C3 w D4 b E5")
    b = eng.game.board
    assert b.color_at(2 * 9 + 2) == 1 and b.color_at(3 * 9 + 3) == 2 and eng.game.move_number == 0
    fail(eng, "gogui-setup b C3")
    fail(eng, "gogui-setup b pass")
    ok(eng, "gogui-setup_player w")
    assert eng.game.to_move == 2
    assert ok(eng, "gogui-interrupt") == ""


# ------------------------------------------------------------------ time
def test_time_commands(eng):
    ok(eng, "time_settings 0 1 0")
    assert eng.player.tc.system == "none"
    ok(eng, "time_settings 300 30 5")
    assert eng.player.tc.system == "canadian"
    ok(eng, "time_left b 120 0")
    ok(eng, "time_left white 25 3")
    fail(eng, "time_settings 300 30")
    fail(eng, "time_settings a b c")
    fail(eng, "time_settings -1 0 0")
    fail(eng, "time_left b 10")
    fail(eng, "time_left z 10 0")
    ok(eng, "kgs-time_settings byoyomi 60 10 3")
    assert eng.player.tc.system == "byoyomi"
    ok(eng, "kgs-time_settings absolute 60")
    ok(eng, "kgs-time_settings canadian 60 30 10")
    ok(eng, "kgs-time_settings none")
    fail(eng, "kgs-time_settings")
    fail(eng, "kgs-time_settings hourglass 10")
    fail(eng, "kgs-time_settings byoyomi 1")
    ok(eng, "time_settings 5 0 0")
    budget = eng.player.think_seconds(1)
    assert 0 < budget < 5                # the search gets a share of the clock
    ok(eng, "genmove b")
    assert eng.player.tc.clocks[1].main < 5      # and the clock is charged


# ------------------------------------------------------------------ scoring
def _fill(eng, rows):
    """Set up a 9x9 position from ASCII rows (top first) via gogui-setup."""
    args = []
    for i, row in enumerate(rows):
        y = 9 - i
        for x, ch in enumerate(row.replace(" ", "")):
            if ch in "XO":
                args.append(f"{'b' if ch == 'X' else 'w'} {'ABCDEFGHJ'[x]}{y}")
    ok(eng, "gogui-setup " + " ".join(args))


POS = DEAD_G7           # the lone X at G7 is dead in White's area (tests.conftest)


def test_final_score_and_status(eng):
    ok(eng, "komi 0.5")
    _fill(eng, POS)
    dead = ok(eng, "final_status_list dead").split()
    assert dead == ["G7"]
    alive = ok(eng, "final_status_list alive").split()
    assert "B9" in alive and "E9" in alive and "G7" not in alive
    assert ok(eng, "final_status_list seki") == ""
    # Black: 3 columns of area = 27 (area incl. stones) + D-column stones;
    # White: the rest. Raw Tromp-Taylor would count G7's region as neutral.
    score = ok(eng, "final_score")
    assert re.fullmatch(r"[BW]\+\d+(\.\d+)?", score)
    assert score.startswith("W+")
    assert score == fmt_score(area_score(9, eng.game.board.colors(), [6 * 9 + 6], 0.5))
    fail(eng, "final_status_list")
    fail(eng, "final_status_list sleeping")


def test_area_score_helpers():
    colors = bytes([1, 0, 2, 1])          # 2x2
    assert area_score(2, colors, [], 0) == 2          # B1 reaches only black
    assert area_score(2, bytes([1, 0, 0, 2]), [], 0) == 0   # empty region reaches both: neutral
    assert area_score(2, colors, [2], 0) == 4         # white stone dead
    assert fmt_score(3.5) == "B+3.5" and fmt_score(-7) == "W+7" and fmt_score(0) == "0"


# ------------------------------------------------------------------ SGF
def test_loadsgf_printsgf(eng, tmp_path):
    p = tmp_path / "g.sgf"
    p.write_text("(;GM[1]FF[4]SZ[9]KM[5.5]AB[cc];W[ee];B[dd];W[ff])")
    ok(eng, f"loadsgf {p}")
    assert eng.game.size == 9 and eng.game.komi == 5.5 and eng.game.move_number == 3
    assert eng.game.to_move == 1
    ok(eng, f"loadsgf {p} 2")               # position before move 2
    assert eng.game.move_number == 1 and eng.game.to_move == 1
    sgf = ok(eng, "printsgf")
    assert sgf.startswith("(;") and "KM[5.5]" in sgf and "W[ee]" in sgf
    out = tmp_path / "out.sgf"
    ok(eng, f"printsgf {out}")
    assert out.read_text().startswith("(;")
    fail(eng, f"loadsgf {tmp_path / 'missing.sgf'}")
    broken = tmp_path / "broken.sgf"
    broken.write_text("(;GM[1]SZ[9];B[ee];W[")
    msg = fail(eng, f"loadsgf {broken}")
    assert "SGF" in msg
    big = tmp_path / "big.sgf"
    big.write_text("(;GM[1]SZ[25];B[aa])")
    fail(eng, f"loadsgf {big}")
    # 800,000 passes (3.2 MB) once grew the engine to 23.7 GB: refused before it is parsed
    passes = tmp_path / "passes.sgf"
    passes.write_text("(;GM[1]SZ[9]" + ";B[];W[]" * 400000 + ")")
    assert "more than" in fail(eng, f"loadsgf {passes}")
    ok(eng, f"loadsgf {p}")                 # and the engine serves on
    illegal = tmp_path / "illegal.sgf"
    illegal.write_text("(;GM[1]SZ[9];B[ee];W[ee])")
    assert "illegal" in fail(eng, f"loadsgf {illegal}")
    fail(eng, "loadsgf")
    fail(eng, f"loadsgf {p} 0")
    fail(eng, f"printsgf {tmp_path}/no/such/dir/x.sgf")


def test_printsgf_writes_through_a_link_and_a_pipe(eng, tmp_path):
    """printsgf FILE where FILE is a symbolic link writes its target and
    keeps the link; a path that is not a regular file (a named pipe here, a
    device as root) is written to, never replaced by a file."""
    import threading
    target = tmp_path / "games" / "real.sgf"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.sgf"
    link.symlink_to(target)
    ok(eng, "play b E5")
    ok(eng, f"printsgf {link}")
    assert link.is_symlink() and target.read_text().startswith("(;") and "B[ee]" in target.read_text()
    fifo = tmp_path / "pipe.sgf"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()), daemon=True)
    reader.start()
    ok(eng, f"printsgf {fifo}")
    reader.join(30)
    assert got and got[0].startswith("(;") and os.path.exists(fifo) and not os.path.isfile(fifo)


def test_showboard(eng):
    ok(eng, "play b E5")
    body = eng.respond("showboard")
    good, _, text = parse(body)
    assert good and "A B C D E F G H J" in text and "X" in text


# ------------------------------------------------------------------ gomill / gogui / params
def test_gomill_commands(eng):
    desc = ok(eng, "gomill-describe_engine")
    assert "search.playouts = 30" in desc and "seed" in desc
    assert ok(eng, "gomill-explain_last_move") == ""
    assert float(ok(eng, "gomill-cpu_time")) >= 0
    assert float(ok(eng, "cputime")) >= 0


def test_params_over_gtp(eng):
    ok(eng, "go-param search.playouts 40")
    assert eng.cfg.search.playouts == 40
    assert ok(eng, "go-param search.playouts") == "40"
    assert "search.playouts 40" in ok(eng, "go-param").split("\n")
    assert "search.bogus" in fail(eng, "go-param search.bogus 1")
    assert "is now 'uct.K'" in fail(eng, "go-param search.K 0.5")
    assert "search.playouts" in fail(eng, "go-param search.playouts -5")
    fail(eng, "go-param uct.policy sideways")
    fail(eng, "go-param nodots 3")
    assert "[string] playouts 40" in ok(eng, "go-param_page search").split("\n")
    page = ok(eng, "go-param_page uct").split("\n")
    assert any(ln.startswith("[list/ucb1/puct] policy ") for ln in page)
    assert any(re.fullmatch(r"\[bool\] rave [01]", ln) for ln in page)
    assert "the active policy is rave" in fail(eng, "go-param_page uct rave 1")   # the rave tree reads no uct key
    ok(eng, "go-param search.tree uct")
    ok(eng, "go-param_page uct rave 1")
    assert eng.cfg.uct.rave is True
    ok(eng, "go-param search.tree rave")
    fail(eng, "go-param_page nosuchtable")
    fail(eng, "go-param_page search nosuchkey 1")
    # a list key reads as the config file writes it, and that text is taken back (GoGui's parameter page)
    ok(eng, "go-param search.value_lambda [0.3, 0.2, 0.1]")
    shown = ok(eng, "go-param search.value_lambda")
    assert shown == "[0.3, 0.2, 0.1]"
    line = next(ln for ln in ok(eng, "go-param_page search").split("\n") if " value_lambda " in ln)
    assert line == "[string] value_lambda [0.3, 0.2, 0.1]"
    ok(eng, "go-param_page search value_lambda " + line.split(" ", 2)[2])
    ok(eng, "go-param search.value_lambda " + shown)
    assert eng.cfg.search.value_lambda == (0.3, 0.2, 0.1)
    assert ok(eng, "go-ponder") == "off"
    ok(eng, "go-ponder on")
    assert eng.player.ponder and ok(eng, "go-ponder") == "on"
    ok(eng, "go-ponder off")
    fail(eng, "go-ponder maybe")


def test_memory_report_and_pool_cap(eng):
    ok(eng, "genmove b")
    rep = ok(eng, "go-memory_report")
    assert "pool capacity 20000" in rep and "pool used" in rep
    ok(eng, "go-set_pool_size 5000")
    assert eng.cfg.pool.pool_size == 5000
    ok(eng, "genmove w")
    assert "pool capacity 5000" in ok(eng, "go-memory_report")
    fail(eng, "go-set_pool_size 0")
    fail(eng, "go-set_pool_size lots")
    assert eng.cfg.pool.pool_size == 5000


GFX_CMDS = ("BLACK", "WHITE", "CIRCLE", "SQUARE", "TRIANGLE", "MARK", "COLOR", "INFLUENCE", "LABEL",
            "TEXT", "VAR", "CLEAR")


def test_gogui_analyze_commands(eng):
    lines = ok(eng, "gogui-analyze_commands").split("\n")
    types = set("none string hstring pstring hpstring plist pspairs sboard cboard dboard bwboard "
                "eplist gfx param var varb varw varc varp varpo".split())
    seen = set()
    ok(eng, "play b E5")
    for ln in lines:
        typ, label, cmd = ln.split("/", 2)
        assert typ in types and label and cmd
        seen.add(typ)
        name = cmd.split()[0]
        assert ok(eng, f"known_command {name}") == "true", name
        if "%" in cmd:
            continue
        reply = eng.respond(cmd)
        good, _, body = parse(reply)
        if typ == "gfx":
            assert good, body
            for dl in body.split("\n"):
                if dl:
                    assert dl.split()[0] in GFX_CMDS, dl
        elif typ == "param":
            assert good
            for pl in body.split("\n"):
                assert re.fullmatch(r"\[(bool|string|list/[^\]]+)\] \S+ .*", pl), pl
        elif typ == "dboard":
            rows = body.split("\n")
            assert len(rows) == 9 and all(len(r.split()) == 9 for r in rows)
    assert {"param", "gfx"} <= seen


def test_a_named_net_that_does_not_load_is_an_error_not_a_weaker_engine(tmp_path, capsys):
    """net.weights names a file that is not a net: genmove says so (the
    start-up check, gtp_main, refuses a path that is not there at all)."""
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a torch file")
    e = make_engine("net.rawnet=true", f"net.weights={bad}")
    reply = e.respond("genmove b")
    assert reply.startswith("? cannot use net.weights for 9x9") and str(bad) in reply
    ok(e, "name")                                   # the session goes on


def test_rawnet_falls_back_where_no_net_is_named(capsys):
    """Without a named net, a size with no weights keeps the fallback
    (the search on expert priors), said once on stderr."""
    e = make_engine("net.rawnet=true", "gtp.boardsize=7", "size.9.net.weights=")
    mv = ok(e, "genmove b")
    assert re.fullmatch(r"[A-G]\d|pass", mv)
    assert e.player.last["source"] == "search"


def test_pass_safety_plays_on_when_passing_loses(eng):
    """The search's pass is overridden when the dead-stone estimate says
    passing loses and a non-pass move exists."""
    e = GtpServer(load(None, SMALL), out=open(os.devnull, "w"), search_factory=passing_search())
    ok(e, "komi 7")
    mv = ok(e, "genmove b")             # empty board, komi 7: passing loses for Black
    assert mv != "pass"
    ok(e, "clear_board")
    ok(e, "komi -7")
    assert ok(e, "genmove b") == "pass"  # winning anyway: the pass stands


# ------------------------------------------------------------------ streaming (real pipes)
# ------------------------------------------------------------------ fuzz
WORDS = ["b", "w", "B", "white", "x", "E5", "e5", "D4", "A1", "J9", "A0", "Z99", "T19", "pass", "PASS",
         "0", "1", "2", "3", "9", "-1", "1.5", "abc", "#", "dead", "alive", "seki", "none", "absolute",
         "byoyomi", "canadian", "search.playouts", "uct.K", "10", "on", "off", "99999999999"]
CMDS = ["protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
        "clear_board", "komi", "fixed_handicap", "place_free_handicap", "set_free_handicap", "play",
        "genmove", "reg_genmove", "undo", "time_settings", "time_left", "final_score",
        "final_status_list", "loadsgf", "showboard", "kgs-genmove_cleanup", "kgs-time_settings",
        "gomill-describe_engine", "gomill-explain_last_move", "gomill-cpu_time", "cputime", "gg-undo",
        "gogui-play_sequence", "gogui-setup", "gogui-setup_player", "gogui-interrupt", "go-ponder",
        "go-param", "go-param_page", "go-memory_report", "lz-analyze", "analyze",
        "lz-genmove_analyze", "genmove_analyze", "bogus", "PLAY", "", "printsgf"]

line_st = st.one_of(
    st.tuples(st.sampled_from(["", "5 ", "  ", "0 "]), st.sampled_from(CMDS),
              st.lists(st.sampled_from(WORDS), max_size=5))
    .map(lambda t: t[0] + " ".join([t[1]] + (t[2] if t[1] != "printsgf" else []))),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
            max_size=30)
    .filter(lambda s: not preprocess(s).lower().split()[-1:] == ["quit"]
            and "quit" not in preprocess(s).lower().split()[:2]
            and "printsgf" not in preprocess(s).lower()
            and "loadsgf" not in preprocess(s).lower()),
)


@settings(max_examples=int(os.environ.get("GTP_FUZZ_EXAMPLES", "60")), deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(line_st, min_size=1, max_size=12))
def test_fuzz_one_reply_per_command_and_no_change_on_error(lines):
    eng = make_engine("search.playouts=5", "player.score_playouts=5")
    for line in lines:
        before = state(eng)
        out = eng.respond(line)
        if not preprocess(line):
            assert out == ""
            continue
        good, _, body = parse(out)          # exactly one framed reply
        if not good:
            assert body
            assert state(eng) == before, line
        assert not eng.quit


_FUZZ_ENG = []


@pytest.mark.slow
@settings(max_examples=10000, deadline=None, suppress_health_check=list(HealthCheck))
@given(line_st)
def test_fuzz_ten_thousand_lines_on_one_engine(line):
    """One engine takes ten thousand generated lines, one after another:
    one framed reply each, an error changes nothing, the engine serves on."""
    if not _FUZZ_ENG:
        _FUZZ_ENG.append(make_engine("search.playouts=5", "player.score_playouts=5"))
    eng = _FUZZ_ENG[0]
    before = state(eng)
    out = eng.respond(line)
    if not preprocess(line):
        assert out == ""
        return
    good, _, body = parse(out)
    if not good:
        assert body
        assert state(eng) == before, line
    assert not eng.quit


@pytest.mark.parametrize("line", ["go-param search.seconds nan", "go-param search.seconds inf",
                                  "go-param time.main_fraction -inf", "go-param rave.fpu nan"])
def test_lines_that_once_broke_the_gtp_server(line):
    """go-param took NaN (the range check skipped it); every numeric
    setting refuses NaN and the infinities."""
    eng = make_engine()
    before = eng.player.cfg
    good, _, body = parse(eng.respond(line))
    assert not good and "finite" in body
    assert eng.player.cfg == before


# ------------------------------------------------------------------ engine.game
def test_game_record_roundtrip_and_errors(tmp_path):
    from board_ext.board import BLACK, WHITE, IllegalMove
    from engine.game import Game, GameError, SgfError
    g = Game(9, komi=6.5)
    g.fixed_handicap(2)
    g.play(WHITE, 40, comment="winrate 51%")
    g.play(WHITE, 41)                       # consecutive same colour
    g.play(BLACK, 81)                       # pass
    with pytest.raises(IllegalMove) as e:
        g.play(BLACK, 40)
    assert e.value.reason == "occupied" and g.move_number == 3
    text = g.to_sgf(result="W+2.5")
    h = Game(19)
    h.load_sgf_bytes(text.encode())
    assert (h.size, h.komi, h.handicap, h.moves, h.result) == (9, 6.5, 2, g.moves, "W+2.5")
    assert h.history[0].comment == "winrate 51%"
    assert h.board.colors() == g.board.colors()
    h.undo(3)
    assert h.move_number == 0 and h.to_move == WHITE
    with pytest.raises(GameError):
        h.undo()
    with pytest.raises(GameError):
        h.clear(25)
    before = (h.size, h.moves)
    with pytest.raises(SgfError):
        h.load_sgf(str(tmp_path / "nothing.sgf"))
    with pytest.raises(SgfError):
        h.load_sgf_bytes(b"(;SZ[9];B[ee")
    assert (h.size, h.moves) == before
    path = tmp_path / "g.sgf"
    g.save_sgf(str(path))
    assert path.read_text() == g.to_sgf()


def test_expert_priors_over_gtp_and_as_the_no_net_fallback(tmp_path):
    """prior.evaluator = expert gives the uct tree priors over GTP; with
    prior.evaluator = net and no weights for the size the search falls back
    to them instead of searching without priors.  (The rave tree has its own
    prior knowledge at every node and asks only a net.)"""
    from engine.evaluator import ExpertEvaluator
    eng = make_engine("search.tree=uct")
    ok(eng, "boardsize 9")
    ok(eng, "go-param prior.evaluator expert")
    assert isinstance(eng.player.search().evaluator, ExpertEvaluator)
    ok(eng, "genmove b")
    assert any(r["prior"] > 0 for r in eng.player.search().analysis())
    def no_net(size):
        raise RuntimeError("no weights for this size")
    e = GtpServer(load(None, SMALL + ["prior.evaluator=net"]), out=open(os.devnull, "w"), evaluator_factory=no_net)
    ok(e, "boardsize 9")
    assert isinstance(e.player.search().evaluator, ExpertEvaluator)
    ok(e, "genmove b")


def test_a_pool_that_cannot_hold_one_expansion_names_the_key():
    """The rave tree gives a leaf every child at once: a pool that cannot
    hold the root and one expansion is refused naming pool.pool_size, at
    start-up for the first board, on boardsize (the board stays as it was)
    and on go-param (the setting stays)."""
    r = subprocess.run([PY, os.path.join(ROOT, "gtp_main.py"), "--set", "pool.pool_size=100"],
                       input="", capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 2 and "pool.pool_size = 100" in r.stderr and "19x19" in r.stderr
    e = make_engine("gtp.boardsize=9", "pool.pool_size=100", "prior.evaluator=expert", "search.playouts=50")
    msg = fail(e, "boardsize 19")
    assert "pool.pool_size" in msg and "362" in msg
    assert e.player.size == 9
    assert ok(e, "genmove b") != ""
    assert "pool.pool_size" in fail(e, "go-param pool.pool_size 50")
    assert e.cfg.pool.pool_size == 100
    from board_ext.board import Board
    from engine.config import ConfigError
    from engine.search import Search
    with pytest.raises(ConfigError, match="pool.pool_size"):
        Search(load(None, ["pool.pool_size=100"])).set_position(Board(19), 7.5)


def test_a_huge_bad_vertex_is_not_echoed_whole(eng):
    reply = eng.respond("play b " + "Z" * 1_000_000)
    assert reply.startswith("? ") and len(reply) < 200 and "1000000 characters" in reply
    ok(eng, "name")
