"""The match referee and seki: GNU Go 3.8 (the referee, from apt) calls an
eyeless group in seki dead; tools.match keeps stones in a seki the engine
reads out alive, and tools.rescore applies the same rule to rows played
before.  The fixtures are two games of the row against Fuego 1.1
(docs/results/strength.md) that ended in passes with such a seki on the
board: in fuego-0068 White's 15 stones at the top share their two last
liberties (G9, J9) with Black's H8-H9, so whoever fills one is captured."""
import json
import os
import shutil
import sys

from engine import coords
from engine.game import Game
from engine.scoring import seki_points
from tools import match, referee, rescore, sgfpack
from tests.conftest import ROOT

DATA = os.path.join(ROOT, "tests", "data", "seki")
SEKI_0068 = {"C7", "F7", "G7", "H7", "J7", "C8", "E8", "F8", "G8", "J8", "B9", "C9", "D9", "E9", "F9"}

# a GTP engine that plays the moves of its colour from a file, then passes
SCRIPTED = """import sys
moves = open(sys.argv[1]).read().split()
for line in sys.stdin:
    w = line.split()
    if not w: continue
    if w[0] == 'genmove':
        print('= ' + (moves.pop(0) if moves else 'pass') + '\\n', flush=True)
    elif w[0] == 'known_command': print('= false\\n', flush=True)
    elif w[0] == 'quit': print('=\\n', flush=True); break
    else: print('=\\n', flush=True)
"""


def _game(name):
    with open(os.path.join(DATA, name), "rb") as fh:
        return Game.from_sgf_bytes(fh.read(), superko=False)


def test_the_referee_calls_the_seki_dead_and_the_match_keeps_it_alive():
    g = _game("fuego-0068.sgf")
    assert {coords.to_gtp(p, 9) for p in seki_points(g.board)} >= SEKI_0068
    score, dead = referee.referee_verdict(g.moves, 9, 7.0)
    assert score == "B+12.0"                         # GNU Go: White's top group dead
    assert {coords.to_gtp(p, 9) for p in dead} >= SEKI_0068
    fixed, note = referee.keep_seki_alive(g.board, score, dead)
    assert fixed == "W+20"                           # area score with the seki alive
    assert "15 stones in seki" in note and "B9" in note
    # the board's own Tromp-Taylor count (every stone alive) agrees here
    assert g.board.score(7.0) == -20.0


def test_no_seki_leaves_the_referee_result():
    g = _game("fuego-0068.sgf")
    assert referee.keep_seki_alive(g.board, "B+12.0", []) == ("B+12.0", None)
    empty = Game(9, 7.0)
    assert referee.keep_seki_alive(empty.board, "W+7.0", []) == ("W+7.0", None)


def test_a_match_game_ending_in_the_seki_is_scored_with_it_alive(tmp_path):
    """The game replayed through tools.match by two scripted engines: the
    real referee scores it, the seki is kept alive and the reason noted."""
    g = _game("fuego-0068.sgf")
    script = tmp_path / "scripted.py"
    script.write_text(SCRIPTED)
    cmds = []
    for colour in (1, 2):
        f = tmp_path / f"moves-{colour}.txt"
        f.write_text(" ".join(coords.to_gtp(m, 9) for c, m in g.moves if c == colour))
        cmds.append([sys.executable, str(script), str(f)])
    rec, game = match.play_game(0, cmds[0], cmds[1], 9, 7.0, names=("fuego", "gomcts"))
    assert rec["scored_by"] == "referee"
    assert rec["result"] == "W+20" and rec["winner"] == "white"
    assert "in seki as dead" in rec["reason"]
    assert game.board.colors() == g.board.colors()


def _row(tmp_path, packed):
    """A row folder as tools.match leaves it, with both games as the
    referee scored them before the seki rule (our engine lost both)."""
    row = tmp_path / "row"
    row.mkdir()
    games = []
    for i, (name, ours, result) in enumerate((("fuego-0011.sgf", "black", "W+22.0"),
                                               ("fuego-0068.sgf", "white", "B+12.0"))):
        shutil.copy(os.path.join(DATA, name), row / f"game-{i + 1:04d}.sgf")
        games.append({"index": i, "black": "", "white": "", "result": result,
                      "winner": "white" if result[0] == "W" else "black", "reason": "", "moves": 80,
                      "scored_by": "referee", "a_color": ours, "winner_engine": "fuego",
                      "sgf": f"game-{i + 1:04d}.sgf"})
    meta = {"engine_a": "a", "engine_b": "b", "names": ["gomcts", "fuego"], "size": 9, "komi": 7.0,
            "games": 2, "time": None}
    match._write_results(str(row / "results.json"), meta, {g["index"]: g for g in games})
    if packed:
        sgfpack.pack(str(row), keep=0)
    return row


def _check_row(row):
    data = json.loads((row / "results.json").read_text())
    assert [g["result"] for g in data["games"]] == ["B+2", "W+20"]
    assert [g["winner_engine"] for g in data["games"]] == ["gomcts", "gomcts"]
    assert data["summary"]["a"]["wins"] == 2 and data["summary"]["a"]["losses"] == 0


def test_rescore_rewrites_a_row(tmp_path):
    row = _row(tmp_path, packed=False)
    lines = []
    changes = rescore.rescore(str(row), dry_run=True, out=lines.append)
    assert [(i, old, new) for i, old, new, _ in changes] == [(0, "W+22.0", "B+2"), (1, "B+12.0", "W+20")]
    assert json.loads((row / "results.json").read_text())["summary"]["a"]["wins"] == 0   # dry run
    written = []
    rescore.rescore(str(row), out=lines.append, written=written)
    _check_row(row)
    assert "RE[W+20]" in (row / "game-0002.sgf").read_text()
    assert sorted(os.path.basename(p) for p in written) == ["game-0001.sgf", "game-0002.sgf", "results.json"]
    # a second pass finds nothing left to change
    assert rescore.rescore(str(row), out=lines.append) == []


def test_rescore_a_packed_row_stays_packed(tmp_path):
    row = _row(tmp_path, packed=True)
    assert not list(row.glob("*.sgf"))
    rescore.rescore(str(row), out=lambda line: None)
    _check_row(row)
    assert not list(row.glob("*.sgf"))
    sgfpack.unpack(str(row))
    assert "RE[B+2]" in (row / "game-0001.sgf").read_text()
