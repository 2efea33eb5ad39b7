"""Playouts: deterministic per seed, end, never fill a true own eye."""
import pytest

from board_ext import playout
from board_ext.board import BLACK, WHITE, Board


@pytest.mark.parametrize("policy", ["random", "expert", "moggy"])
@pytest.mark.parametrize("size", [9, 19])
def test_same_seed_same_result(policy, size):
    b = Board(size)
    assert playout.playout(b, policy, 7) == playout.playout(b, policy, 7)
    assert playout.playout(b, policy, 7)[1] != playout.playout(b, policy, 8)[1]


@pytest.mark.parametrize("policy", ["random", "expert", "moggy"])
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
        # at the end every empty point is a one-colour region (playout
        # finished); moggy also leaves points where either side's move is a
        # self-atari (seki: both pass)
        for p, v in enumerate(replay.area_owner()):
            if v == 0:
                assert policy == "moggy" and _self_atari_for_both(replay, p), replay.to_ascii()


def _self_atari_for_both(board, p):
    """Either colour's move at p is illegal or leaves its chain one
    liberty without capturing."""
    for c in (BLACK, WHITE):
        if not board.is_legal(p, c):
            continue
        b = board.copy()
        if b.play(p, c) or b.liberties(p) > 1:
            return False
    return True


def test_score_sign_and_ownership():
    own, mean = playout.ownership(Board(9), 64, "random", 3, komi=7.0)
    assert len(own) == 81 and all(-1 <= v <= 1 for v in own)
    assert -81 <= mean <= 81
    # a board where black owns almost everything
    b = Board.from_ascii("\n".join(["XXXXXXXXX"] * 4 + [".X.X.X.X."] + ["XXXXXXXXX"] * 4))
    own, mean = playout.ownership(b, 16, "expert", 1, komi=0.0)
    assert mean == 81 and min(own) == 1


def _e5_in_atari():
    """White's last move E5 put itself in atari among three black stones:
    F5 captures it."""
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
    b.play(4 * 9 + 4, WHITE)
    return b


def test_expert_policy_captures_and_escapes():
    F5, D3 = 4 * 9 + 5, 2 * 9 + 3
    # white's last move E5 put itself in atari: the expert captures at F5
    b = _e5_in_atari()
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
    # the edge patterns read the points off the board as their own value:
    # "side: chase" (X . / O [centre], the line below off the board)
    e = Board.from_ascii("""
        .........
        .........
        .........
        .........
        .........
        .........
        .........
        ...X.....
        ...O.....""")
    assert e.color_at(3) and e.color_at(12)
    assert playout.matches_pattern(e, 4)            # first line, next to O below X
    assert not playout.matches_pattern(e, 5)
    assert not playout.matches_pattern(e, 8 * 9 + 4)
    assert not any(playout.matches_pattern(Board(9), p) for p in range(81))


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


# ---------------------------------------------------------------- moggy
def _only(rules):
    """Moggy with only the named rules (probability 1), the others off."""
    playout.set_moggy_rates(**{k: (1.0 if k in rules else 0.0) for k in playout.RULE_NAMES})


@pytest.fixture
def moggy_defaults():
    yield
    playout.set_moggy_rates(**playout.DEFAULT_RATES)


def _atari_ladder(size, x0, y0, breaker=None):
    """Black at (x0, y0) netted by white; white's last move (above it) put
    it in atari; running right gives two liberties, a ladder down and right
    that works unless the breaker (a black stone on its path) is there."""
    b = Board(size, superko=False)
    white = [(x0 - 1, y0), (x0, y0 - 1), (x0 + 1, y0 + 1)]
    black = [(x0, y0)] + ([breaker] if breaker else [])
    b.setup([y * size + x for x, y in black], [y * size + x for x, y in white])
    b.to_move = WHITE
    b.play((y0 + 1) * size + x0, WHITE)
    return b


@pytest.mark.parametrize("size,start,breaker", [(9, (3, 3), (6, 1)), (19, (9, 9), (14, 4))])
def test_moggy_does_not_run_out_of_a_dead_ladder(moggy_defaults, size, start, breaker):
    """The defence rule runs from atari only when the ladder does not work:
    with the breaker black's first move is the run in every playout; without
    it the run is left to the random fallback (about 1 in 75 at 9x9)."""
    _only({"defend"})
    x0, y0 = start
    run = y0 * size + x0 + 1
    firsts = [playout.playout(_atari_ladder(size, x0, y0, breaker), "moggy", s)[1][0] for s in range(40)]
    assert firsts.count(run) == 40
    firsts = [playout.playout(_atari_ladder(size, x0, y0), "moggy", s)[1][0] for s in range(40)]
    assert firsts.count(run) <= 3


def test_moggy_chases_a_working_ladder(moggy_defaults):
    """Black ran from atari to two liberties; the ladder rule plays the
    atari that works (below the new stone, driving it to the edge)."""
    _only({"ladder"})
    size, x0, y0 = 9, 3, 3
    b = Board(size, superko=False)
    white = [(x0 - 1, y0), (x0, y0 - 1), (x0 + 1, y0 + 1)]
    b.setup([y0 * size + x0], [y * size + x for x, y in white])
    b.to_move = WHITE
    b.play((y0 + 1) * size + x0, WHITE)      # atari
    b.play(y0 * size + x0 + 1, BLACK)        # runs: two liberties
    from board_ext import tactics
    firsts = {playout.playout(b, "moggy", seed)[1][0] for seed in range(20)}
    assert len(firsts) == 1
    m = firsts.pop()
    assert tactics.ladder_atari_works(b, m, WHITE)


def test_moggy_captures_and_plays_nakade(moggy_defaults):
    # white's last move E5 put itself in atari: capture at F5
    _only({"capture"})
    F5 = 4 * 9 + 5
    b = _e5_in_atari()
    assert {playout.playout(b, "moggy", s)[1][0] for s in range(20)} == {F5}
    # black played into white's straight-three eye space: white (to move)
    # takes the vital point, the middle
    _only({"nakade"})
    n = Board.from_ascii("""
        .........
        .........
        .........
        .........
        .........
        OOOOO....
        O...O....
        OOOOO....
        .........""", to_move=BLACK)
    n.play(2 * 9 + 1, BLACK)                 # B3: the end of the space
    assert {playout.playout(n, "moggy", s)[1][0] for s in range(20)} == {2 * 9 + 2}


def test_moggy_rates_check_their_values(moggy_defaults):
    assert playout.moggy_rates().keys() == playout.DEFAULT_RATES.keys()
    with pytest.raises(ValueError, match="moggy.capture"):
        playout.set_moggy_rates(capture=1.5)
    with pytest.raises(ValueError, match="moggy.bogus"):
        playout.set_moggy_rates(bogus=0.5)


def test_moggy_profile_counts_every_move(moggy_defaults):
    prof, total = playout.moggy_profile(Board(9), 50, seed=3)
    moves = sum(v for k, v in prof.items() if k != "selfatari_rejected")
    assert moves == total > 0
    assert prof["pattern"] > 0 and prof["random"] > 0


def test_rollout_config_matches_the_policy_defaults():
    from engine import config as C
    import dataclasses
    assert dataclasses.asdict(C.Config().moggy) == playout.DEFAULT_RATES
    for key in playout.RULE_NAMES:
        with pytest.raises(C.ConfigError, match=f"moggy.{key}"):
            C.load(None, [f"moggy.{key}=1.5"])
        with pytest.raises(C.ConfigError, match=f"moggy.{key}"):
            C.load(None, [f"moggy.{key}=-0.1"])
    with pytest.raises(C.ConfigError, match="moggy.ko"):
        C.load(None, ["moggy.ko=0.5"])
    assert C.load(None, ["search.rollout=moggy", "bhrf.fallback=moggy"]).search.rollout == "moggy"


def test_bhrf_falls_back_to_moggy(moggy_defaults):
    """bhrf.fallback = moggy: with the forest never asked the rollout is
    moggy's (it captures the stone the last move put in atari)."""
    from board_ext.bhrf import Forest
    _only({"capture"})
    b = _e5_in_atari()
    f = Forest(9, epsilon=0.0, fallback="moggy")
    assert {f.playout(b, seed=s)[1][0] for s in range(10)} == {4 * 9 + 5}
    with pytest.raises(ValueError, match="bhrf.fallback"):
        Forest(9, fallback="moggy2")
