"""Board rules: captures, suicide, ko, superko, eyes, scoring, handicap."""
import random

import pytest
from hypothesis import given, settings, strategies as st

from board_ext.board import BLACK, WHITE, Board, IllegalMove, handicap_points
from engine import coords


def pt(v, size=9):
    return coords.from_gtp(v, size)


def test_sizes_range():
    for s in (2, 9, 19):
        assert Board(s).size == s
    for s in (0, 1, 20, 25):
        with pytest.raises(ValueError, match="not supported"):
            Board(s)


def test_single_capture_and_liberties():
    b = Board.from_ascii("""
        .........
        .........
        .........
        .........
        ....O....
        ...OXO...
        .........
        .........
        .........""")
    e4 = pt("E4")
    assert b.liberties(e4) == 1
    assert b.chain_liberties(e4) == [pt("E3")]
    assert b.play(pt("E3"), WHITE) == 1
    assert b.color_at(e4) == 0
    assert b.captures(WHITE) == 1


def test_multi_chain_capture():
    # white E5 captures the black chains D5 and F5-G5... two separate chains at once
    b = Board.from_ascii("""
        .........
        .........
        .........
        ...O.O...
        ..OX.XO..
        ...O.O...
        .........
        .........
        .........""")
    assert b.liberties(pt("D5")) == 1 and b.liberties(pt("F5")) == 1
    assert b.play(pt("E5"), WHITE) == 2
    assert b.stones(BLACK) == []
    assert b.liberties(pt("E5")) == 4


def test_snapback():
    # black's C1 is a throw-in: white captures it at C2 and is left in
    # atari, so black retakes at C1 and captures the whole white chain.
    b2 = Board.from_ascii("""
        .........
        .........
        .........
        .........
        .........
        XXXXX....
        XOOOX....
        XO.OX....
        XOXOX....""", to_move=WHITE)
    # white takes the throw-in at C1... C1 is black, in atari with liberty C2
    assert b2.liberties(pt("C1")) == 1
    assert b2.play(pt("C2"), WHITE) == 1          # white captures the single stone
    assert b2.liberties(pt("C2")) == 1           # ... and is left in atari (one liberty C1)
    assert b2.play(pt("C1"), BLACK) == 8         # snapback takes all eight
    assert b2.stones(WHITE) == []


def test_suicide_rules():
    b = Board.from_ascii("""
        .........
        .........
        .........
        .........
        .........
        .........
        OOO......
        XXO......
        .XO......""", to_move=BLACK)
    # A1 would leave black A2-B2-B1 (plus A1) with no liberty: multi-stone suicide
    with pytest.raises(IllegalMove) as e:
        b.play(pt("A1"), BLACK)
    assert e.value.reason == "suicide"
    assert b.stones(BLACK) == sorted(pt(v) for v in ("A2", "B2", "B1"))
    tt = Board.from_ascii(b.to_ascii(), to_move=BLACK, allow_suicide=True)
    tt.play(pt("A1"), BLACK)
    assert tt.stones(BLACK) == []
    assert tt.captures(WHITE) == 4
    # a lone stone's suicide stays illegal even then (it repeats the position)
    lone = Board.from_ascii("""
        ...
        O..
        .O.""", allow_suicide=True)
    assert lone.illegal_reason(pt("A1", 3), BLACK) == "suicide"


def test_occupied_and_off_board():
    b = Board(9)
    b.play(pt("E5"))
    for bad, reason in ((pt("E5"), "occupied"), (-1, "off-board"), (82, "off-board"), (10**6, "off-board")):
        with pytest.raises(IllegalMove) as e:
            b.play(bad)
        assert e.value.reason == reason


KO = """
    .........
    .........
    .........
    .........
    .........
    .........
    ..XO.....
    .XO.O....
    ..XO....."""


def test_simple_ko():
    b = Board.from_ascii(KO, to_move=BLACK)
    assert b.play(pt("D2"), BLACK) == 1        # black takes the ko (C2)
    assert b.ko == pt("C2")
    with pytest.raises(IllegalMove) as e:
        b.play(pt("C2"), WHITE)
    assert e.value.reason == "ko"
    b.play(pt("J9"), WHITE)                     # ko threat
    b.play(pt("J8"), BLACK)
    assert b.play(pt("C2"), WHITE) == 1        # now white may retake


def test_superko_after_passes():
    # black takes the ko, both pass, white retakes: simple ko allows it,
    # but it recreates the position before black's capture.
    b = Board.from_ascii(KO, to_move=BLACK)
    b.play(pt("D2"), BLACK)
    b.play(81, WHITE)
    b.play(81, BLACK)
    assert b.illegal_reason(pt("C2"), WHITE) == "superko"
    b.superko = False
    assert b.is_legal(pt("C2"), WHITE)


def _ko_template(b_pts, w_pts, ox, oy, white_inside):
    """Three-row ko shape at (ox, oy); white_inside: black can take."""
    rows = [".XO.", "XO.O", ".XO."] if white_inside else [".XO.", "X.XO", ".XO."]
    for i, row in enumerate(rows):
        y = oy + 2 - i
        for x, ch in enumerate(row):
            p = y * 13 + ox + x
            (b_pts if ch == "X" else w_pts if ch == "O" else []).append(p)


def test_triple_ko_cycle_is_superko():
    bl, wh = [], []
    _ko_template(bl, wh, 0, 0, True)
    _ko_template(bl, wh, 0, 4, False)
    _ko_template(bl, wh, 0, 8, True)
    b = Board(13)
    b.setup(bl, wh)
    P = lambda x, y: y * 13 + x
    cycle = [(P(2, 1), BLACK), (P(1, 5), WHITE), (P(2, 9), BLACK),
             (P(1, 1), WHITE), (P(2, 5), BLACK)]
    start = b.position_hash
    for m, c in cycle:
        assert b.play(m, c) == 1
    # the sixth capture would recreate the start position
    assert b.illegal_reason(P(1, 9), WHITE) == "superko"
    b.superko = False
    b.play(P(1, 9), WHITE)
    assert b.position_hash == start


def test_eyes():
    b = Board.from_ascii("""
        .X.X.....
        X.X......
        .X.......
        .........
        .........
        .........
        .........
        .........
        .........""")
    assert b.is_eye(pt("A9"), BLACK)
    assert b.is_eye(pt("B8"), BLACK)
    assert not b.is_eye(pt("B8"), WHITE)
    b.setup(white=[pt("C7")])
    # one bad diagonal in the centre is still an eye; on the edge it is not
    assert b.is_eye(pt("B8"), BLACK)
    b.setup(white=[pt("D8")])
    assert not b.is_eye(pt("C9"), BLACK)


def test_area_score_with_seki():
    # the point A2 touches both colours (a shared liberty, as in seki):
    # Tromp-Taylor counts it for neither side
    b = Board.from_ascii("""
        .....
        OOOO.
        XXXO.
        .OXO.
        OOXO.""")
    # black: 5 stones; white: 10 stones + the 9 empty points reaching only white
    s = b.score(0)
    own = b.area_owner()
    assert own[pt("A2", 5)] == 0            # seki liberty: neutral
    black = sum(1 for v in own if v == 1)
    white = sum(1 for v in own if v == -1)
    assert s == black - white
    assert black == 5 and white == 19


def test_score_empty_and_komi():
    b = Board(9)
    assert b.score(7.0) == -7.0
    b.play(pt("E5"))
    assert b.score(7.0) == 81 - 7.0


@pytest.mark.parametrize("size", [7, 9, 13, 19])
def test_handicap_layout(size):
    maxh = 9 if size % 2 and size > 7 else 4
    for n in range(2, maxh + 1):
        pts = handicap_points(size, n)
        assert len(set(pts)) == n
    with pytest.raises(ValueError):
        handicap_points(size, maxh + 1)
    with pytest.raises(ValueError):
        handicap_points(size, 1)
    if size == 19:
        assert sorted(coords.to_gtp(p, 19) for p in handicap_points(19, 9)) == sorted(
            "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10".split())


def test_copy_is_independent():
    b = Board(9)
    b.play(pt("E5"))
    c = b.copy()
    c.play(pt("E6"))
    assert b.color_at(pt("E6")) == 0 and c.color_at(pt("E6")) == WHITE
    assert c._history()[:2] == b._history()


def test_hash_and_to_move():
    a, b = Board(9), Board(9)
    a.play(pt("C3")); a.play(pt("G7")); a.play(pt("C7"))
    b.play(pt("C7")); b.play(pt("G7")); b.play(pt("C3"))
    assert a.hash == b.hash and a.to_move == WHITE
    a.play(81)
    assert a.hash != b.hash and a.position_hash == b.position_hash


def test_ascii_roundtrip():
    text = "X.O\n.X.\nO.."
    assert Board.from_ascii(text).to_ascii() == text


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 19), st.lists(st.tuples(st.integers(-5, 400), st.sampled_from([None, 1, 2])),
                                    max_size=120))
def test_fuzz_play_never_crashes(size, moves):
    b = Board(size)
    for p, c in moves:
        before = (b.colors(), b.to_move, b.position_hash)
        try:
            b.play(p, c)
        except IllegalMove as e:
            assert e.reason in ("occupied", "suicide", "ko", "superko", "off-board")
            assert (b.colors(), b.to_move, b.position_hash) == before
        # every chain has a liberty after any legal move
        for q in range(size * size):
            if b.color_at(q):
                assert b.liberties(q) >= 1


@pytest.mark.parametrize("size,suicide", [(5, False), (9, False), (9, True), (13, False), (19, False)])
def test_incremental_state_matches_recomputation(size, suicide):
    """Chains, stone and liberty sets, liberty counts, neighbour counts and the
    empty list, kept incrementally by play, equal a recomputation from the
    colours after every move of random games (captures, merges, suicides)."""
    rng = random.Random(size * 7 + suicide)
    for game in range(3 if size < 19 else 1):
        b = Board(size, allow_suicide=suicide, superko=False)
        for _ in range(3 * size * size):
            moves = [p for p in b.legal_moves() if not b.is_eye(p, b.to_move)]
            b.play(rng.choice(moves) if moves else b.pass_move)
            b.check_consistency()
            if b.passes >= 2:
                break



SEKI = """
OOOOOOO
..XXXXX
XXXXXXX
OOOOOOO
O.O.O.O
OOOOOOO
.......
"""


def test_seki_shared_liberties_are_neutral_and_filling_them_is_self_atari():
    """Top: a white chain and a black chain with no eyes share the two
    liberties a and b (seki); below, a living white group with eyes and
    territory. Area scoring counts the stones of both seki chains and leaves
    a and b to nobody."""
    b = Board.from_ascii(SEKI)
    a, bb = 5 * 7 + 0, 5 * 7 + 1            # row 2 from the top: y = 5
    white_top, black_mid = 6 * 7, 5 * 7 + 2
    assert b.chain_liberties(white_top) == [a, bb]
    assert b.chain_liberties(black_mid) == [a, bb]
    for color in (BLACK, WHITE):
        for first, second in ((a, bb), (bb, a)):
            t = b.copy()
            t.to_move = color
            assert t.is_legal(first)
            t.play(first)                    # legal, but self-atari ...
            assert t.liberties(first) == 1
            own = t.captures(3 - color)
            t.play(second)                   # ... the opponent takes the chain
            # the filler's whole chain, with the stone just played, is taken
            assert t.captures(3 - color) - own == (8 if color == WHITE else 13)
    # black 12 stones; white 25 stones + 3 eyes + 7 points of territory
    assert b.score(0.0) == 12 - 35
    owner = b.area_owner()
    assert owner[a] == 0 and owner[bb] == 0
    assert all(owner[q] == -1 for q in range(7))                 # white territory (bottom row)
    assert owner[black_mid] == 1 and owner[white_top] == -1
