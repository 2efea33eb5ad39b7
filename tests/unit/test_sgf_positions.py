"""Positions loaded from SGF fixtures in tests/data/sgf (sgfmill)."""
import os

from board_ext.board import BLACK, WHITE
from engine import coords
from engine.game import Game
from tests.conftest import DATA

HERE = os.path.join(DATA, "sgf")


def test_snapback_from_sgf():
    g = Game(9)
    g.load_sgf(os.path.join(HERE, "snapback.sgf"))
    b = g.board
    # black's retake at C1 captured the whole white chain
    assert b.stones(WHITE) == []
    assert b.captures(BLACK) == 8 and b.captures(WHITE) == 1
    assert b.color_at(coords.from_gtp("C1", 9)) == BLACK
    # GTP loadsgf semantics: the position before move 2, i.e. after white's
    # capture at C2, which left white's chain in atari
    g.load_sgf(os.path.join(HERE, "snapback.sgf"), move_number=2)
    b = g.board
    assert b.color_at(coords.from_gtp("C2", 9)) == WHITE
    assert b.liberties(coords.from_gtp("C2", 9)) == 1
    assert b.color_at(coords.from_gtp("C1", 9)) == 0 and b.to_move == BLACK
    # move_number=1: the setup position, white to move (PL[W])
    g.load_sgf(os.path.join(HERE, "snapback.sgf"), move_number=1)
    assert g.board.color_at(coords.from_gtp("C1", 9)) == BLACK and g.to_move == WHITE
