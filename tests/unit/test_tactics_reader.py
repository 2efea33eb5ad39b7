"""The ladder reader (board_ext/tactics.pyx): hand-built ladders at 9x9 and
19x19 (working, broken by a breaker, broken by a counter-capture), and the C
reader against a plain Python reading of the same rule on random positions."""
import random

import pytest

from board_ext import playout, tactics
from board_ext.board import BLACK, WHITE, Board, IllegalMove


def _board(size, black, white, to_move):
    b = Board(size, superko=False)
    b.setup([y * size + x for x, y in black], [y * size + x for x, y in white])
    b.to_move = to_move
    return b


def _ladder(size, x0, y0, extra_black=(), extra_white=(), atari=True):
    """Black stone at (x0, y0) netted by white on its left, below and
    above-right; with atari=True white has also played above it, so black
    (to move) has one liberty, right of the stone, and extending there
    gives two: a ladder that runs down and right towards the lower edge."""
    white = [(x0 - 1, y0), (x0, y0 - 1), (x0 + 1, y0 + 1)] + list(extra_white)
    if atari:
        white.append((x0, y0 + 1))
    return _board(size, [(x0, y0)] + list(extra_black), white, BLACK if atari else WHITE)


CASES = [  # size, start, breaker (a black stone on the ladder's path)
    (9, (3, 3), (6, 1)),
    (19, (9, 9), (14, 4)),
]


@pytest.mark.parametrize("size,start,breaker", CASES)
def test_working_ladder_is_dead(size, start, breaker):
    x0, y0 = start
    b = _ladder(size, x0, y0)
    p = y0 * size + x0
    assert b.liberties(p) == 1
    assert tactics.ladder_status(b, p)
    # the two-liberty form: white to move finds the atari that works
    pre = _ladder(size, x0, y0, atari=False)
    assert pre.liberties(p) == 2
    assert tactics.ladder_status(pre, p)
    above, right = (y0 + 1) * size + x0, y0 * size + x0 + 1
    assert tactics.ladder_atari_works(pre, above, WHITE)
    # the atari from the other side drives black up and left: also a
    # ladder on an empty board; the reader and the Python reading agree
    after = _play(pre, right, WHITE)
    assert tactics.ladder_atari_works(pre, right, WHITE) == _read_defender(after, p, 200)


@pytest.mark.parametrize("size,start,breaker", CASES)
def test_breaker_saves_the_ladder(size, start, breaker):
    x0, y0 = start
    p = y0 * size + x0
    assert not tactics.ladder_status(_ladder(size, x0, y0, extra_black=[breaker]), p)
    pre = _ladder(size, x0, y0, extra_black=[breaker], atari=False)
    assert not tactics.ladder_atari_works(pre, (y0 + 1) * size + x0, WHITE)
    # a white stone at the same place only helps white
    assert tactics.ladder_status(_ladder(size, x0, y0, extra_white=[breaker]), p)


@pytest.mark.parametrize("size,start,breaker", CASES)
def test_counter_capture_breaks_the_ladder(size, start, breaker):
    """The white stone left of the black one is in atari (black stones
    above and below it): black captures it instead of running, and the
    ladder no longer works, although running alone would die."""
    x0, y0 = start
    p = y0 * size + x0
    b = _ladder(size, x0, y0, extra_black=[(x0 - 1, y0 + 1), (x0 - 1, y0 - 1)])
    assert b.liberties((y0) * size + x0 - 1) == 1
    assert not tactics.ladder_status(b, p)
    assert _read_defender(b, p, 200, counter=False)      # running alone dies


def test_depth_bound_and_bad_points():
    b = _ladder(19, 9, 9)
    p = 9 * 19 + 9
    assert tactics.ladder_status(b, p)
    assert not tactics.ladder_status(b, p, max_depth=6)   # cut short: not proved
    assert not tactics.ladder_status(b, 0)                # empty point
    with pytest.raises(ValueError):
        tactics.ladder_status(b, 19 * 19)
    big = _board(9, [(4, 4)], [], BLACK)                   # four liberties
    assert not tactics.ladder_status(big, 4 * 9 + 4)


def test_edge_ladder_and_snapback_shape():
    # a black stone on the first line in atari, running along the edge into
    # white's stone: dead
    b = _board(9, [(3, 0)], [(2, 0), (3, 1), (5, 0)], BLACK)
    assert tactics.ladder_status(b, 3)
    # open edge: extending gives two liberties, then white's atari is answered
    b = _board(9, [(3, 0)], [(2, 0), (3, 1)], BLACK)
    assert tactics.ladder_status(b, 3) == _read_defender(b, 3, 200)


# ---------------------------------------------------------------- reference
def _play(b, p, c):
    nb = b.copy()
    try:
        nb.play(p, c)
    except IllegalMove:
        return None
    return nb


def _read_defender(b, p, depth, counter=True):
    """Python reading of the reader's rule: the owner of the chain at p (in
    atari) is to move; True when every answer leaves it captured."""
    if depth <= 0:
        return False
    d = b.color_at(p)
    answers = []
    if counter:
        seen = set()
        for s in b.chain(p):
            for q in _nbrs(b.size, s):
                if b.color_at(q) == 3 - d and b.liberties(q) == 1:
                    r = min(b.chain(q))
                    if r not in seen:
                        seen.add(r)
                        answers.append(b.chain_liberties(q)[0])
    answers += b.chain_liberties(p)
    for m in answers:
        nb = _play(b, m, d)
        if nb is None:
            continue
        n = nb.liberties(p)
        if n >= 3 or (n == 2 and not _read_attacker(nb, p, depth - 1, counter)):
            return False
    return True


def _read_attacker(b, p, depth, counter=True):
    if depth <= 0:
        return False
    a = 3 - b.color_at(p)
    for m in b.chain_liberties(p):
        nb = _play(b, m, a)
        if nb is not None and nb.liberties(p) == 1 and _read_defender(nb, p, depth - 1, counter):
            return True
    return False


def _nbrs(s, p):
    x, y = p % s, p // s
    return [q for q, ok in ((p - 1, x > 0), (p + 1, x < s - 1), (p - s, y > 0), (p + s, y < s - 1)) if ok]


def test_reader_matches_python_reading_on_random_positions():
    """Chains in atari and with two liberties from random playouts: the C
    reader and the Python reading agree (whenever the Python reading is
    not cut by the depth used here)."""
    rng = random.Random(5)
    checked = dead = 0
    for seed in range(40):
        size = 9
        _, moves = playout.playout(Board(size), "random", seed)
        b = Board(size, superko=False)
        for m in moves[: rng.randrange(20, 60)]:
            b.play(m)
        for p in range(size * size):
            c = b.color_at(p)
            if c == 0 or min(b.chain(p)) != p or b.liberties(p) not in (1, 2):
                continue
            want = b.liberties(p) == 1 and c or 3 - c
            bb = b.copy()
            bb.to_move = want
            if b.liberties(p) == 1:
                ref = _read_defender(bb, p, 36)
            else:
                ref = _read_attacker(bb, p, 36)
            assert tactics.ladder_status(b, p) == ref, (b.to_ascii(), p)
            checked += 1
            dead += ref
    assert checked > 100 and 0 < dead < checked


@pytest.mark.parametrize("size", [9, 19])
def test_inplace_reading_puts_the_board_back(size):
    """The rollouts read ladders on their own board, playing and taking
    back moves: on positions from random playouts the board is byte for
    byte the same after, and the answers equal those read on a copy."""
    rng = random.Random(size)
    n = 0
    for seed in range(25 if size == 9 else 8):
        _, moves = playout.playout(Board(size), "random", seed)
        b = Board(size, superko=False)
        for m in moves[: rng.randrange(size * size // 4, size * size)]:
            b.play(m)
        for to_move in (BLACK, WHITE):
            b.to_move = to_move
            before = b.__reduce__()
            answers = tactics.check_inplace_reading(b)
            assert b.__reduce__() == before
            b.check_consistency()
            assert all(inplace == copied for _, _, inplace, copied in answers)
            n += len(answers)
    assert n > 50
