"""The engine as real controllers drive it (see shared/clients.md):
gomill ringmaster's exact command sequence and reply parsing, GoGui's
attach/sync/analyze commands, and a full 9x9 game against GNU Go through
tools.match."""
import json
import os
import re
import subprocess

import pytest

from engine import coords
from tools.gtp_client import GNUGO

from tests.conftest import PY, ROOT

# no --config: each size's shipped engine; never resigning, so a game runs its 30 moves
ENGINE = [PY, os.path.join(ROOT, "gtp_main.py"), "--log-level", "WARNING",
          "--set", "search.playouts=50", "--set", "player.score_playouts=50", "--set", "prior.evaluator=none",
          "--set", "search.resign_threshold=0"]
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class GomillChannel:
    """What gomill's Subprocess_gtp_channel + Gtp_controller do: write
    'command args\\n' (no ids); read a response up to the blank line; the
    first non-blank line must start with '=' or '?'; strip the indicator and
    leading blanks, join lines, strip trailing whitespace, tabs -> spaces."""

    def __init__(self, argv, env=None):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
        self.first = True

    def do_command(self, command, *args):
        self.p.stdin.write(" ".join((command,) + args) + "\n")
        self.p.stdin.flush()
        lines, seen = [], False
        if self.first:
            self.first = False
            b = self.p.stdout.read(1)
            assert b in (" ", "\t", "\r", "\n", "#", "=", "?"), f"engine isn't speaking GTP: {b!r}"
            peek = b if b != "\n" else ""
        else:
            peek = ""
        while True:
            s = peek + self.p.stdout.readline()
            peek = ""
            s = _CTRL.sub("", s)
            if not seen:
                if s.strip() == "":
                    assert s.endswith("\n"), "EOF"
                    continue
                seen = True
            if s == "\n":
                break
            lines.append(s)
            assert s.endswith("\n"), "EOF inside a response"
        first = lines[0]
        assert first[0] in "=?", f"no success/failure indication: {first!r}"
        is_error = first[0] == "?"
        lines[0] = first[1:].lstrip(" \t")
        response = "".join(lines).rstrip().replace("\t", " ")
        if is_error:
            raise GtpFailure(command, response)
        return response

    def known_command(self, name):
        return self.do_command("known_command", name) == "true"

    def check_protocol_version(self):
        v = self.do_command("protocol_version")
        assert v.strip() in ("2", "2.0")

    def close(self):
        self.do_command("quit")
        self.p.stdin.close()
        assert self.p.wait(timeout=60) == 0


class GtpFailure(Exception):
    def __init__(self, command, message):
        super().__init__(f"{command}: {message}")
        self.message = message


@pytest.mark.slow
def test_ringmaster_startup_check_and_game():
    env = dict(os.environ, GOMILL_GAME_ID="startup-check")
    ch = GomillChannel(ENGINE, env)
    ch.check_protocol_version()
    ch.do_command("go-param", "search.playouts", "40")       # a startup_gtp_command
    ch.do_command("boardsize", "9")
    ch.do_command("clear_board")
    ch.do_command("komi", "7")
    ch.close()

    env = dict(os.environ, GOMILL_GAME_ID="0_0", GOMILL_SLOT="0")
    b = GomillChannel(ENGINE, env)
    w = GomillChannel(ENGINE, env)
    players = {"b": b, "w": w}
    for c in (b, w):
        c.check_protocol_version()
        assert c.do_command("name") == "gomcts"
        assert c.do_command("version")
        assert c.known_command("gomill-describe_engine")
        desc = c.do_command("gomill-describe_engine")
        assert "search.playouts" in desc and "seed" in desc
        c.do_command("boardsize", "9")
        c.do_command("clear_board")
        c.do_command("komi", "7")
    # fixed handicap: the reply must equal the standard points
    for c in (b, w):
        assert c.do_command("fixed_handicap", "2").split() == ["C3", "G7"]
    colour, passes, moves, last = "w", 0, 0, "c3"
    while passes < 2 and moves < 30:
        me, opp = players[colour], players["b" if colour == "w" else "w"]
        move_s = me.do_command("genmove", colour).lower()      # ringmaster lower-cases
        assert move_s != "resign"
        pt = coords.from_gtp(move_s, 9)
        if me.known_command("gomill-explain_last_move"):
            assert "visits" in me.do_command("gomill-explain_last_move")
        opp.do_command("play", colour, move_s)
        if pt != 81:
            last = move_s                       # on the board now (a suicide is illegal)
        passes = passes + 1 if pt == 81 else 0
        moves += 1
        colour = "b" if colour == "w" else "w"
    for c in (b, w):
        if c.known_command("final_score"):
            s = c.do_command("final_score")
            assert re.fullmatch(r"[BW]\+\d+(\.\d+)?|0", s)
        assert c.known_command("gomill-cpu_time")
        float(c.do_command("gomill-cpu_time"))
    # the opponent refuses an illegal move with a failure response
    with pytest.raises(GtpFailure):              # an occupied point (the games vary: every core searches)
        b.do_command("play", "b", last)
    b.close()
    w.close()


def test_ringmaster_free_handicap():
    b = GomillChannel(ENGINE)
    w = GomillChannel(ENGINE)
    for c in (b, w):
        c.do_command("boardsize", "9")
        c.do_command("clear_board")
        c.do_command("komi", "0.5")
    vertices = b.do_command("place_free_handicap", "3").split(" ")
    pts = [coords.from_gtp(v, 9) for v in vertices]
    assert 81 not in pts and len(set(pts)) == 3
    w.do_command("set_free_handicap", *vertices)
    assert w.do_command("genmove", "w").lower() != "resign"
    b.close()
    w.close()


def test_gogui_attach_sync_and_analyze():
    g = GomillChannel(ENGINE)
    for cmd in ("name", "protocol_version", "version"):
        assert g.do_command(cmd)
    cmds = g.do_command("list_commands").split("\n")
    assert "gogui-interrupt" in cmds            # interrupt probe: '# interrupt' supported
    g.do_command("gogui-interrupt")
    g.do_command("name")
    g.do_command("protocol_version")
    analyze = g.do_command("gogui-analyze_commands").split("\n")
    g.do_command("boardsize", "9")
    g.do_command("clear_board")
    g.do_command("komi", "0")                   # GoGui sends 0 for an undefined komi
    g.do_command("time_settings", "0", "1", "0")
    g.do_command("gogui-setup", "b", "C3", "w", "G7")
    g.do_command("gogui-setup_player", "b")
    g.do_command("gogui-play_sequence", "b", "E5", "w", "D4", "b", "F6")
    g.do_command("gg-undo", "2")
    g.do_command("play", "w", "D5")
    mv = g.do_command("genmove", "b")
    assert re.fullmatch(r"[A-HJ]\d|PASS|pass|resign", mv)
    g.do_command("kgs-genmove_cleanup", "w")
    g.do_command("final_status_list", "dead")
    float(g.do_command("cputime"))
    for entry in analyze:
        typ, label, cmd = entry.split("/", 2)
        if "%" in cmd:
            continue
        reply = g.do_command(*cmd.split())
        if typ == "param":
            for line in reply.split("\n"):
                key_type, key, value = re.fullmatch(r"\[([^\]]+)\] (\S+) ?(.*)", line).groups()
                assert key_type in ("bool", "string") or key_type.startswith("list/")
            # GoGui sets a parameter by sending the same command with key value
            first = reply.split("\n")[0]
            key, value = first.split(" ", 2)[1:3]
            g.do_command(*cmd.split(), key, value)
        elif typ == "gfx":
            for line in reply.split("\n"):
                assert line.split(" ")[0] in ("INFLUENCE", "LABEL", "TEXT", "VAR", "MARK", "CLEAR"), line
    g.do_command("go-set_pool_size", "10000")
    assert "capacity 10000" in g.do_command("go-memory_report")
    g.close()


@pytest.mark.gnugo
def test_full_game_against_gnugo_through_match(tmp_path):
    from tools.match import our_engine_command, play_match, format_table
    ours = our_engine_command(None, ["search.playouts=200", "player.score_playouts=100", "search.seed=3",
                                     "prior.evaluator=none"])
    res = play_match(ours, f"{GNUGO} --mode gtp --level 1", 1, 9, 7.0, str(tmp_path), 1,
                     names=("gomcts", "gnugo"), move_timeout=60, progress=False)
    g = res["games"][0]
    assert not g["result"].endswith("+F"), g["reason"]
    assert g["result"].endswith("+R") or g["scored_by"] == "referee", g
    assert g["moves"] > 10
    sgf = (tmp_path / g["sgf"]).read_text()
    assert sgf.startswith("(;") and f"RE[{g['result']}]" in sgf and "winrate" in sgf
    assert "gomcts" in format_table(res)
    # a rerun resumes: nothing is replayed (the game's record is not written again)
    before = (tmp_path / g["sgf"]).stat().st_mtime_ns
    res2 = play_match(ours, f"{GNUGO} --mode gtp --level 1", 1, 9, 7.0, str(tmp_path), 1,
                      names=("gomcts", "gnugo"), progress=False)
    assert res2["games"] == res["games"] and (tmp_path / g["sgf"]).stat().st_mtime_ns == before
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["summary"]["a"]["games"] == 1


@pytest.mark.gnugo
def test_match_forfeits_a_crashing_or_illegal_engine(tmp_path):
    from tools.match import play_match
    fake = tmp_path / "bad_engine.py"
    fake.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    w = line.split()\n"
        "    if not w: continue\n"
        "    if w[0] == 'genmove': print('= Z99\\n', flush=True)\n"
        "    elif w[0] == 'quit': print('=\\n', flush=True); break\n"
        "    else: print('=\\n', flush=True)\n")
    crash = tmp_path / "crash_engine.py"
    crash.write_text("import sys\nsys.stdin.readline(); print('=\\n', flush=True)\n")
    gnugo = f"{GNUGO} --mode gtp --level 1"
    res = play_match([PY, str(fake)], gnugo, 2, 9, 7.0, str(tmp_path / "out"), 1,
                     move_timeout=10, progress=False)
    g0, g1 = res["games"]
    assert g0["result"] == "W+F" and "malformed" in g0["reason"]      # A is Black in game 0
    assert g1["result"] == "B+F" and "malformed" in g1["reason"]
    assert res["summary"]["forfeits"] == 2 and res["summary"]["a"]["losses"] == 2
    res = play_match([PY, str(crash)], gnugo, 1, 9, 7.0, str(tmp_path / "out2"), 1,
                     move_timeout=10, progress=False)
    g = res["games"][0]
    assert g["result"] == "W+F" and "crashed" in g["reason"]
