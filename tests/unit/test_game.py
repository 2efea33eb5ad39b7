"""The game record keeps moves, not a board per move: the positions it
gives back (undo, replays from snapshots) are the ones that were played,
and its length is bounded."""
import random

import pytest

from board_ext.board import BLACK, WHITE, Board, IllegalMove
from engine import game as game_mod
from engine.game import MAX_GAME_LENGTH, Game, GameError, SgfError


def _random_game(seed, n, size=9):
    """A game of n steps (moves, some passes, a mid-game setup, a change of
    the side to move) and the board after each step, taken as it was made."""
    rng = random.Random(seed)
    g = Game(size=size, komi=7)
    seen = [g.board.to_ascii() + str(g.to_move)]
    while len(g.history) < n:
        r = rng.random()
        if r < 0.02 and g.history:
            free = [p for p in range(size * size)
                    if p not in g.board.stones(BLACK) and p not in g.board.stones(WHITE)]
            try:
                g.setup(black=[rng.choice(free)])
            except IllegalMove:          # a stone without liberties
                continue
        elif r < 0.04 and g.history:
            g.to_move = WHITE if g.to_move == BLACK else BLACK
            seen[-1] = g.board.to_ascii() + str(g.to_move)
            continue
        else:
            legal = g.board.legal_moves()
            mv = rng.choice(legal) if legal and rng.random() > 0.05 else g.pass_move
            g.play(g.to_move, mv)
        seen.append(g.board.to_ascii() + str(g.to_move))
    return g, seen


def test_undo_gives_back_every_position_played():
    g, seen = _random_game(3, 3 * game_mod.KEEP_EVERY + 17)
    assert len(g._kept) < len(g.history) // 8        # snapshots, not a board a move
    h = g.board._history()
    while g.history:
        k = random.Random(len(g.history)).randint(1, min(40, len(g.history)))
        g.undo(k)
        assert g.board.to_ascii() + str(g.to_move) == seen[len(g.history)]
    # the superko history came back with the position
    g2, _ = _random_game(3, 3 * game_mod.KEEP_EVERY + 17)
    g2.undo(5)
    g2b, _ = _random_game(3, 3 * game_mod.KEEP_EVERY + 12)
    assert g2.board._history() == g2b.board._history() and len(h) > len(g2.board._history())


def test_a_copy_keeps_its_own_history():
    g, seen = _random_game(5, game_mod.KEEP_EVERY + 30)
    c = g.copy()
    c.undo(60)
    assert c.board.to_ascii() + str(c.to_move) == seen[len(c.history)]
    assert g.board.to_ascii() + str(g.to_move) == seen[-1]


def test_a_setup_that_removes_stones_survives_undo_past_it():
    sgf = "(;GM[1]FF[4]SZ[9];B[ee];W[dd];AE[ee]AB[aa];W[cc];B[gg])"
    g = Game(9)
    g.load_sgf_bytes(sgf.encode())
    after = g.board.to_ascii()
    moves = g.moves[-2:]
    before = Game(9)
    before.load_sgf_bytes(sgf.encode(), move_number=3)       # after the AE node
    g.undo(2)
    assert g.board.to_ascii() == before.board.to_ascii() and len(g.board.stones(BLACK)) == 1
    for c, m in moves:
        g.play(c, m)
    assert g.board.to_ascii() == after


def test_a_game_longer_than_the_limit_is_refused(monkeypatch):
    monkeypatch.setattr(game_mod, "MAX_GAME_LENGTH", 300)
    g = Game(9)
    for _ in range(300):
        g.play(g.to_move, g.pass_move)
    with pytest.raises(GameError, match="at most 300"):
        g.play(g.to_move, g.pass_move)
    assert len(g.history) == 300
    # an SGF of more nodes than the limit is refused before it is parsed
    sgf = "(;GM[1]SZ[9]" + ";B[]" * 305 + ")"
    with pytest.raises(SgfError, match="more than 300 nodes"):
        Game(9).load_sgf_bytes(sgf.encode())
