"""The opening book (engine/book.py, tools/book.py): one entry per
symmetry class, moves given back in the board's own orientation, only for
the komi and rules it was built for; the Player plays it while the game is
in it; the builder resumes."""
import json
import os

import pytest

from board_ext.board import Board
from engine import coords
from engine.book import Book, BookError, canonical
from engine.config import load
from engine.player import Player
from tools import book as book_tool


def board(size, *moves):
    b = Board(size)
    for m in moves:
        b.play(coords.from_gtp(m, size))
    return b


def test_symmetric_positions_share_an_entry_and_moves_come_back_in_place():
    # C3 then its seven images: one key
    keys = {canonical(board(9, m))[0] for m in ("C3", "G3", "C7", "G7")}
    assert len(keys) == 1
    assert canonical(board(9, "C3"))[0] != canonical(board(9, "C4"))[0]
    bk = Book(9, 7.0)
    bk.add(board(9, "C3"), [(coords.from_gtp("G7", 9), 90, 0.5), (coords.from_gtp("C7", 9), 10, 0.4)])
    assert len(bk) == 1
    # the mirror image: White's answer is mirrored too
    got = bk.lookup(board(9, "G3"), 7.0)
    assert [coords.to_gtp(m, 9) for m, _v, _w in got] == ["C7", "G7"]
    got = bk.lookup(board(9, "C3"), 7.0)
    assert [coords.to_gtp(m, 9) for m, _v, _w in got] == ["G7", "C7"] and got[0][1] == 90
    assert bk.lookup(board(9, "C3"), 6.5) is None               # another komi
    assert bk.lookup(board(9, "C3"), 7.0, "japanese") is None   # other rules
    assert bk.lookup(board(9, "E5"), 7.0) is None               # not in the book
    assert bk.lookup(board(13, "C3"), 7.0) is None


def test_book_files_round_trip_and_bad_ones_are_named(tmp_path):
    bk = Book(9, 7.0, playouts=100)
    bk.add(Board(9), [(40, 50, 0.55), (81, 1, 0.1)])
    p = tmp_path / "b.json"
    p.write_text(bk.to_json())
    again = Book.load(str(p))
    assert again.positions == bk.positions and again.komi == 7.0 and again.playouts == 100
    for text in ("{", json.dumps({"size": 9, "komi": 7}), json.dumps({"size": 9, "komi": 7, "positions": {"x": []}}),
                 json.dumps({"size": 9, "komi": 7, "positions": {"." * 81 + "B": [["Z99", 1, 0.5]]}})):
        p.write_text(text)
        with pytest.raises(BookError) as e:
            Book.load(str(p))
        assert str(p) in str(e.value)


def test_the_player_plays_the_book_while_the_game_is_in_it(tmp_path):
    bk = Book(9, 7.0)
    bk.add(Board(9), [(coords.from_gtp("E5", 9), 100, 0.55)])
    bk.add(board(9, "E5"), [(coords.from_gtp("C4", 9), 100, 0.45)])
    path = tmp_path / "9x9.json"
    path.write_text(bk.to_json())
    sets = ["gtp.boardsize=9", "gtp.komi=7", "prior.evaluator=none", "search.playouts=50", "search.seed=3",
            "player.book=true", f"player.book_file={path}"]
    p = Player(load(None, sets))
    assert coords.to_gtp(p.genmove(1), 9) == "E5" and p.last["source"] == "book" and p.last["result"] is None
    w = coords.to_gtp(p.genmove(2), 9)
    assert w in ("C4", "G4", "C6", "G6", "D3", "F3", "D7", "F7") and p.last["source"] == "book"
    p.genmove(1)
    assert p.last["source"] == "search"                        # out of the book
    p = Player(load(None, sets + ["player.book=false"]))
    p.genmove(1)
    assert p.last["source"] == "search"
    p = Player(load(None, sets))
    p.set_komi(6.5)
    p.genmove(1)
    assert p.last["source"] == "search"                        # built for komi 7
    p = Player(load(None, sets))
    p.fixed_handicap(2)
    p.genmove(2)
    assert p.last["source"] == "search"


def test_the_builder_searches_each_class_once_and_resumes(tmp_path):
    out = str(tmp_path / "5x5.json")
    cfg = load(None, ["prior.evaluator=none", "search.seed=2", "search.seconds=0"])
    logs = []
    bk = book_tool.build(cfg, 5, 0.5, 200, 2, 2, out, log=logs.append)
    n = len(bk)
    assert 1 < n <= 1 + 2 + 4 and os.path.exists(out) and len(logs) == n
    assert Book.load(out).positions == bk.positions
    logs.clear()
    assert len(book_tool.build(cfg, 5, 0.5, 200, 2, 2, out, log=logs.append)) == n and logs == []
    with pytest.raises(BookError):
        book_tool.build(cfg, 5, 7.5, 200, 2, 2, out)
    assert book_tool.build(cfg, 5, 0.5, 200, 3, 2, out, log=logs.append) is not None and logs   # deeper: resumes


def test_a_bad_or_foreign_book_is_refused_with_the_reason_and_play_goes_on(tmp_path, caplog):
    import logging
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    other = tmp_path / "13.json"
    other.write_text(Book(13, 7.0).to_json())
    for path, words in ((bad, "not an opening book"), (other, "is a 13x13 book"),
                        (tmp_path / "missing.json", "not an opening book")):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="gomcts.player"):
            p = Player(load(None, ["gtp.boardsize=9", "gtp.komi=7", "prior.evaluator=none", "search.playouts=30",
                                   "search.seed=1", "player.book=true", f"player.book_file={path}"]))
            p.prepare()
            p.genmove(1)
        assert p.last["source"] == "search"
        assert any(words in r.getMessage() and str(path) in r.getMessage() for r in caplog.records), caplog.text


def test_a_book_read_at_start_up_on_another_board_is_played_once_the_size_is_its(tmp_path):
    """The engine starts on 19x19 and reads the book then; a controller's
    boardsize 9 afterwards must find the 9x9 book (it was once cached as
    missing for good)."""
    bk = Book(9, 7.0)
    bk.add(Board(9), [(coords.from_gtp("E5", 9), 100, 0.55)])
    path = tmp_path / "9x9.json"
    path.write_text(bk.to_json())
    p = Player(load(None, ["gtp.komi=7", "prior.evaluator=none", "search.playouts=30", "search.seed=1",
                           "player.book=true", f"player.book_file={path}"]))
    assert p.size == 19
    p.prepare()
    p.genmove(1)
    assert p.last["source"] == "search"
    p.set_board_size(9)
    p.set_komi(7)
    assert coords.to_gtp(p.genmove(1), 9) == "E5" and p.last["source"] == "book"


def test_the_book_switched_on_needs_a_book_file():
    """No book ships: player.book alone would do nothing, so it is refused, naming the key it needs."""
    from engine.config import ConfigError
    with pytest.raises(ConfigError, match="player.book_file"):
        load(None, ["player.book=true"])
    assert load(None, []).player.book is False



FAKE_TEACHER = r'''
import json, sys
count, mode = sys.argv[1], sys.argv[2]
ORDER = ["C3", "B2", "D4", "B4", "D2", "C2", "B3", "C4", "D3"]   # the fake's taste, best first
for line in sys.stdin:
    q = json.loads(line)
    n = q["boardXSize"]
    with open(count, "a") as fh:
        fh.write(" ".join(m for _c, m in q["moves"]) + "\n")
    taken = {m for _c, m in q["moves"]}
    free = [m for m in ORDER if m not in taken]
    cols = "ABCDEFGHJ"[:n]
    pol = [[0.0] * n for _ in range(n)]
    rest = [c + str(r) for c in cols for r in range(1, n + 1) if c + str(r) not in taken and c + str(r) not in free[:2]]
    for m in rest:
        pol[n - int(m[1:])][cols.index(m[0])] = 0.1 / len(rest)
    for m, p in zip(free[:2], (0.6, 0.3)):
        pol[n - int(m[1:])][cols.index(m[0])] = p
    t = q["analyzeTurns"][0]
    black = t % 2 == 0
    ans = {"id": q["id"], "turnNumber": t, "isDuringSearch": False,
           "moveInfos": [{"move": free[0], "visits": 10, "winrate": 0.55 if black else 0.45},
                         {"move": free[1], "visits": 5, "winrate": 0.5}],
           "rootInfo": {"winrate": 0.5, "scoreLead": 0.0, "currentPlayer": "B" if black else "W"},
           "policy": [p for row in pol for p in row] + [0.0], "ownership": [0.0] * (n * n)}
    if mode == "bad" and q["moves"] == [["B", "C3"]]:
        ans["policy"] = ans["policy"][:-2]                     # too short: this answer is skipped
    print(json.dumps(ans), flush=True)
'''


def fake_teacher(tmp_path, mode="ok"):
    script = tmp_path / "fake_teacher.py"
    script.write_text(FAKE_TEACHER)
    import sys
    return f"{sys.executable} {script} {tmp_path / 'asked.txt'} {mode}", tmp_path / "asked.txt"


def test_the_teachers_book_takes_the_positions_the_book_meets_most_first_and_resumes(tmp_path):
    """Reach: the book's colour plays the teacher's most visited move, the
    other by the teacher's policy.  From the empty 5x5 board: C3 (the book's
    Black move, reach 1 for both colours), then White's book reply B2 after
    it (reach 1 for the White book), then C3 B2 (0.6 each way, above B2
    alone for White's book, 0.3)."""
    cmd, asked = fake_teacher(tmp_path)
    out = str(tmp_path / "5x5.json")
    logs = []
    bk = book_tool.build_from_teacher(cmd, 5, 0.5, "chinese", 10, 3, out, log=logs.append)
    assert set(bk.positions) == {canonical(board(5, *ms))[0] for ms in ((), ("C3",), ("C3", "B2"))}
    got = bk.lookup(board(5, "C3"), 0.5)
    assert [(coords.to_gtp(m, 5), v) for m, v, _w in got] == [("B2", 10), ("D4", 5)]
    assert got[0][2] == pytest.approx(0.55)                          # White's own win rate (1 - Black's 0.45)
    assert Book.load(out).positions == bk.positions and bk.playouts == 10
    assert asked.read_text().splitlines() == ["", "C3", "C3 B2"]
    # against the teacher's policy the book plays Black's C3, then its move after White's B2 or D4 (one
    # position, 0.9 of White's policy, and a little more from B4 and D2), and White's B2 after Black's C3
    black, white = book_tool.book_moves_expected(out + ".tree.json")
    assert 1.9 <= black <= 1.91 and white == pytest.approx(0.6)
    # resumed with a larger budget: only the new positions are asked
    bk = book_tool.build_from_teacher(cmd, 5, 0.5, "chinese", 10, 6, out, log=logs.append)
    lines = asked.read_text().splitlines()
    assert len(bk) == 6 and len(lines) == 6 and lines[:3] == ["", "C3", "C3 B2"]
    # a position where both colours left the book's move never enters it, at any budget: Black's
    # second choice B2 (reach 0.3 for White's book), then White's second choice D4 there
    bk = book_tool.build_from_teacher(cmd, 5, 0.5, "chinese", 10, 200, out, depth=2, min_reach=0.0)
    lines = asked.read_text().splitlines()
    assert "B2" in lines and "B2 C3" in lines and "B2 D4" not in lines and len(lines) == len(bk) < 200
    with pytest.raises(BookError, match="komi"):
        book_tool.build_from_teacher(cmd, 5, 7.5, "chinese", 10, 6, out)


def test_a_teachers_answer_that_does_not_parse_is_named_and_skipped(tmp_path):
    cmd, _asked = fake_teacher(tmp_path, "bad")
    out = str(tmp_path / "5x5.json")
    logs = []
    bk = book_tool.build_from_teacher(cmd, 5, 0.5, "chinese", 10, 3, out, log=logs.append)
    assert canonical(board(5, "C3"))[0] not in bk.positions and len(bk) >= 1
    assert any("after C3 skipped" in s and "policy" in s for s in logs), logs
    with pytest.raises(BookError, match="no such executable"):
        book_tool.build_from_teacher("/no/katago analysis", 5, 0.5, "chinese", 10, 3, str(tmp_path / "x.json"))


def test_a_book_named_relative_to_the_project_is_found_from_any_folder(tmp_path, monkeypatch):
    """A GUI may start the engine in any folder: player.book_file, like
    net.weights, is read relative to the project when the working directory
    has no such file (engine.factory.project_file).  The teacher's 9x9 book
    opens on E5."""
    monkeypatch.chdir(tmp_path)
    p = Player(load(None, ["gtp.boardsize=9", "gtp.komi=7", "prior.evaluator=none", "search.playouts=30",
                           "search.seed=1", "player.book=true",
                           "player.book_file=records/games/book/9x9-b10-100.json"]))
    assert coords.to_gtp(p.genmove(1), 9) == "E5" and p.last["source"] == "book"


def test_a_resumed_teachers_book_takes_the_positions_an_unbroken_run_takes(tmp_path):
    cmd, _asked = fake_teacher(tmp_path)
    whole = book_tool.build_from_teacher(cmd, 5, 0.5, "chinese", 10, 12, str(tmp_path / "whole.json"), depth=6,
                                         log=lambda s: None)
    part = str(tmp_path / "part.json")
    book_tool.build_from_teacher(cmd, 5, 0.5, "chinese", 10, 5, part, depth=6, log=lambda s: None)
    resumed = book_tool.build_from_teacher(cmd, 5, 0.5, "chinese", 10, 12, part, depth=6, log=lambda s: None)
    assert len(whole) == 12 and set(resumed.positions) == set(whole.positions)
