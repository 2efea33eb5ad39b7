"""Playouts: deterministic per seed, end, never fill a true own eye."""
import pytest

from board_ext import playout
from board_ext.board import BLACK, WHITE, Board


@pytest.mark.parametrize("policy", ["random", "expert"])
@pytest.mark.parametrize("size", [9, 19])
def test_same_seed_same_result(policy, size):
    b = Board(size)
    assert playout.playout(b, policy, 7) == playout.playout(b, policy, 7)
    assert playout.playout(b, policy, 7)[1] != playout.playout(b, policy, 8)[1]


@pytest.mark.parametrize("policy", ["random", "expert"])
def test_playouts_are_legal_end_and_keep_eyes(policy):
    for seed in range(30):
        b = Board(9)
        score, moves = playout.playout(b, policy, seed, komi=7.0)
        assert len(moves) < 3 * 81 and moves[-2:] == [81, 81]
        replay = Board(9, superko=False)
        for m in moves:
            c = replay.to_move
            if m != 81:
                assert not replay.is_eye(m, c)
            replay.play(m, c)            # raises if illegal
        assert replay.score(7.0) == score
        # at the end every empty point is a one-colour region (playout finished)
        assert all(v != 0 for v in replay.area_owner())


def test_score_sign_and_ownership():
    own, mean = playout.ownership(Board(9), 64, "random", 3, komi=7.0)
    assert len(own) == 81 and all(-1 <= v <= 1 for v in own)
    assert -81 <= mean <= 81
    # a board where black owns almost everything
    b = Board.from_ascii("\n".join(["XXXXXXXXX"] * 4 + [".X.X.X.X."] + ["XXXXXXXXX"] * 4))
    own, mean = playout.ownership(b, 16, "expert", 1, komi=0.0)
    assert mean == 81 and min(own) == 1


def test_expert_policy_captures_and_escapes():
    E5, F5, D3 = 4 * 9 + 4, 4 * 9 + 5, 2 * 9 + 3
    # white's last move E5 put itself in atari: the expert captures at F5
    b = Board.from_ascii("""
        .........
        .........
        .........
        ....X....
        ...X.....
        ....X....
        .........
        .........
        .........""", to_move=WHITE)
    b.play(E5, WHITE)
    for seed in range(20):
        assert playout.playout(b, "expert", seed)[1][0] == F5
    # black's D3 is put in atari by white's last move D2: the expert escapes
    c = Board.from_ascii("""
        .........
        .........
        .........
        .........
        .........
        ...O.....
        ..OX.....
        .........
        .........""", to_move=WHITE)
    c.play(1 * 9 + 3, WHITE)            # D2: black D3 now has one liberty, E3
    assert c.liberties(D3) == 1
    for seed in range(20):
        assert playout.playout(c, "expert", seed)[1][0] == 2 * 9 + 4
    # the random policy does neither reliably
    firsts = {playout.playout(b, "random", seed)[1][0] for seed in range(20)}
    assert len(firsts) > 1


def test_patterns_table():
    assert playout.N_PATTERN_CODES > 100
    # hane: X O X above an empty row -> the point below O matches
    b = Board.from_ascii("""
        .........
        .........
        .........
        ...XOX...
        .........
        .........
        .........
        .........
        .........""")
    assert playout.matches_pattern(b, 4 * 9 + 4)
    assert not playout.matches_pattern(b, 1 * 9 + 1)


@pytest.mark.parametrize("size", [5, 9, 19])
def test_playable_is_legal_and_not_own_eye(size):
    """The random policy's one-read test agrees with the two full tests
    (simple ko, eyes) on every empty point of positions along playouts."""
    checked = 0
    for seed in range(1, 6):
        _, moves = playout.playout(Board(size), "random", seed=seed)
        b = Board(size)
        b.superko = False
        for k, m in enumerate(moves):
            if k % 7 == 0:
                for p in range(size * size):
                    for col in (BLACK, WHITE):
                        if b.color_at(p) != 0:
                            assert not playout.playable(b, p, col)
                            continue
                        want = b.is_legal(p, col) and not b.is_eye(p, col)
                        assert playout.playable(b, p, col) == want, (seed, k, p, col)
                        checked += 1
            b.play(m)
    assert checked > 500


def test_expert_prior_weights():
    """Each rule of the expert priors on a crafted position (Black to move)."""
    import numpy as np
    from board_ext.playout import PRIOR_WEIGHTS as W, expert_priors
    b = Board.from_ascii("""
        .......O.
        .......OO
        .........
        .........
        .........
        .........
        .........
        XX....O..
        .X...O...""", to_move=BLACK)
    out = np.full(82, -1.0, np.float32)
    expert_priors(b, out)
    at = lambda x, y: float(out[y * 9 + x])       # noqa: E731
    assert at(1, 0) == 0.0                          # occupied
    assert at(8, 8) == 0.0                          # suicide in White's eye
    assert at(0, 0) == pytest.approx(W["own_eye"])  # Black's own true eye
    assert at(6, 0) == pytest.approx(W["self_atari"])
    assert at(4, 8) == pytest.approx(W["edge"])     # first line, nothing within 2
    assert at(4, 4) == pytest.approx(W["plain"])
    assert out[81] == pytest.approx(W["pass_"])
    assert (out >= 0).all()
    with pytest.raises(ValueError):
        expert_priors(b, np.zeros(81, np.float32))
