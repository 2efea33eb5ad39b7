"""BHRF: forest updates (Algorithms 1, 2) and the rollout policy (3, 4)."""
import math
import random

import pytest

from board_ext.bhrf import Forest, select64
from board_ext.board import BLACK, WHITE, Board
from engine import config
from engine.search import Search


def test_update_adds_one_node_per_tree_per_update():
    f = Forest(9, max_depth=3)
    seq = [10, 20, 30, 40]
    f.update(seq, BLACK, 1.0)
    # reply 40 (black's 2nd... index 3 = white) learns context (30,) only
    assert [p[0] for p in f.patterns(40)] == [(30,)]
    f.update(seq, BLACK, 1.0)
    assert sorted(p[0] for p in f.patterns(40)) == [(30,), (30, 20)]
    f.update(seq, BLACK, 1.0)
    f.update(seq, BLACK, 1.0)
    pats = dict((p[0], p) for p in f.patterns(40))
    # capped at max_depth = 3
    assert set(pats) == {(30,), (30, 20), (30, 20, 10)}
    # the reply 40 was white's move; black won: mean 0 for white
    assert pats[(30,)][2] == 0.0 and pats[(30,)][1] == 4
    # reply 30 is black's: mean 1
    assert f.patterns(30)[0][2] == 1.0
    # the first move has no context
    assert f.patterns(10) == []


def test_root_context_and_skip_expansion():
    """Deviations (off by default): the game moves before the root are
    context, never replies; the move into the new node is no reply."""
    b = Board(9)
    b.play(5)
    b.play(6)                         # black to move; last moves 6 (white), 5
    f = Forest(9, max_depth=3, root_context=True, skip_expansion=True)
    f.set_root(b)
    f.update([10, 20, 30], BLACK, 1.0)
    assert f.patterns(10) == [((6,), 1, 1.0)]      # black's root move, after white's 6
    assert f.patterns(20) == [((10,), 1, 0.0)]     # white's reply lost
    assert f.patterns(30) == []                    # the expansion move: not stored
    assert f.patterns(5) == [] and f.patterns(6) == []
    f.update([10, 20, 30], BLACK, 1.0)
    assert sorted(p[0] for p in f.patterns(10)) == [(6,), (6, 5)]
    # default: neither
    g = Forest(9, max_depth=3)
    g.set_root(b)
    g.update([10, 20, 30], BLACK, 1.0)
    assert g.patterns(10) == [] and len(g.patterns(30)) == 1
    with pytest.raises(ValueError):
        g.set_root(Board(13))


def test_longest_context_wins():
    f = Forest(9, max_depth=3)
    f.update([1, 2, 3], BLACK, 1.0)        # reply 3 after (2,)
    f.update([5, 2, 7], BLACK, 1.0)        # reply 7 after (2,)
    f.update([5, 2, 7], BLACK, 1.0)        # reply 7 after (2, 5)
    b = Board(9)
    for m in (5, 2):
        b.play(m)
    assert f.suggest(b) == [7]              # context (2, 5) beats (2,)
    b2 = Board(9)
    for m in (1, 2):
        b2.play(m)
    assert f.suggest(b2) == [3, 7]          # only (2,) matches: both replies


@pytest.mark.parametrize("selection", ["soft-uct", "last-reply", "uniform"])
def test_rollouts_follow_the_forest(selection):
    f = Forest(9, epsilon=1.0, selection=selection)
    for _ in range(50):
        f.update([40, 41], BLACK, 0.0)     # white's reply 41 to 40 always wins
    b = Board(9)
    b.play(40)
    firsts = [f.playout(b, seed=s)[1][0] for s in range(40)]
    assert firsts.count(41) > 30
    assert f.stats()["played"] > 0
    off = Forest(9, epsilon=0.0, selection=selection)
    for _ in range(50):
        off.update([40, 41], BLACK, 0.0)
    assert [off.playout(b, seed=s)[1][0] for s in range(40)].count(41) < 10


def test_horizon_asks_the_forest_only_near_the_root():
    """bhrf.horizon = h: positions h or more moves past the root (set_root)
    get the default policy alone; 0 asks at every rollout move."""
    b = Board(9)
    b.play(40)
    capped = Forest(9, epsilon=1.0, horizon=3)
    capped.set_root(b)
    free = Forest(9, epsilon=1.0)
    free.set_root(b)
    for f in (capped, free):
        for _ in range(50):
            f.update([40, 41], BLACK, 0.0)
    lengths = [len(capped.playout(b, seed=s)[1]) for s in range(10)]
    assert min(lengths) > 3
    assert capped.stats()["asked"] == 3 * 10          # root + 0, 1, 2 moves
    n = sum(len(free.playout(b, seed=s)[1]) for s in range(10))
    assert free.stats()["asked"] == n                  # every rollout move
    b.play(41)
    capped.set_root(b)                                 # the horizon moves with the root
    capped.playout(b, seed=1)
    assert capped.stats()["asked"] == 3 * 11
    with pytest.raises(config.ConfigError, match="bhrf.horizon"):
        config.load(None, ["bhrf.horizon=-1"])


def test_horizon_share_scales_the_horizon_with_the_empty_points():
    """bhrf.horizon_share = s: the forest is asked in the first
    int(s x empty points at the root) rollout moves; with horizon, the
    smaller cap; at least one move."""
    b = Board(9)
    for m in (40, 41, 30, 31):
        b.play(m)                                      # 77 empty points
    f = Forest(9, epsilon=1.0, horizon_share=0.1)
    f.set_root(b)
    lengths = [len(f.playout(b, seed=s)[1]) for s in range(10)]
    assert min(lengths) > 7
    assert f.stats()["asked"] == 7 * 10                # int(0.1 * 77)
    both = Forest(9, epsilon=1.0, horizon=5, horizon_share=0.1)
    both.set_root(b)
    both.playout(b, seed=1)
    assert both.stats()["asked"] == 5
    tiny = Forest(9, epsilon=1.0, horizon_share=0.001)
    tiny.set_root(b)
    tiny.playout(b, seed=1)
    assert tiny.stats()["asked"] == 1
    with pytest.raises(ValueError, match="horizon_share"):
        Forest(9, horizon_share=1.5)
    with pytest.raises(config.ConfigError, match="bhrf.horizon_share"):
        config.load(None, ["bhrf.horizon_share=2"])


def test_search_with_bhrf_persists_and_clears():
    cfg = config.load(None, ["search.playouts=800", "search.rollout=bhrf"])
    s = Search(cfg)
    b = Board(9)
    s.set_position(b, 7.0)
    r = s.run()
    n1 = s.bhrf.stats()["nodes"]
    assert n1 > 0
    b.play(r.move)
    s.set_position(b, 7.0)
    s.run()
    assert s.bhrf.stats()["nodes"] >= n1      # kept across moves
    s.clear()
    assert s.bhrf.stats()["nodes"] == 0


def test_search_forest_capacity_bounds_the_forest():
    cfg = config.load(None, ["search.playouts=1500", "search.rollout=bhrf", "bhrf.capacity=1000",
                             "search.early_stop=false", "search.seed=5"])
    s = Search(cfg)
    b = Board(9)
    for _ in range(3):
        s.set_position(b, 7.0)
        r = s.run()
        st = s.bhrf.stats()
        assert st["nodes"] <= 1000
        b.play(r.move)
    assert st["nodes"] == 1000        # filled, then held at the bound
    assert st["played"] > 0           # and still suggesting replies


def test_bad_bhrf_config_names_key():
    with pytest.raises(config.ConfigError, match="bhrf.epsilon"):
        config.load(None, ["bhrf.epsilon=1.5"])
    with pytest.raises(config.ConfigError, match="bhrf.selection"):
        config.load(None, ["bhrf.selection=greedy"])
    with pytest.raises(config.ConfigError, match="bhrf.capacity"):
        config.load(None, ["bhrf.capacity=10"])
    with pytest.raises(ValueError, match="bhrf.epsilon"):
        Forest(9, epsilon=-0.1)


def _reference_forest(seqs, max_depth, capacity, nn):
    """Algorithms 1 and 2 in plain Python: {(reply, context): [n, w]}."""
    pats = {}
    for seq, first, black_reward in seqs:
        for i in range(len(seq) - 1, -1, -1):
            r = seq[i]
            if r >= nn:
                continue
            color = first if i % 2 == 0 else 3 - first
            out = black_reward if color == BLACK else 1.0 - black_reward
            ctx = ()
            for d in range(min(i, max_depth)):
                ctx = ctx + (seq[i - 1 - d],)
                key = (r, ctx)
                if key not in pats:
                    if len(pats) >= capacity:
                        break
                    pats[key] = [1, out]
                    break
                pats[key][0] += 1
                pats[key][1] += out
    return pats


@pytest.mark.parametrize("capacity", [1_000_000, 300])
def test_forest_matches_reference_through_table_growth(capacity):
    """Thousands of random descents (both hash tables double several
    times): every stored pattern and count is the reference's."""
    rng = random.Random(5)
    nn = 81
    seqs = []
    for _ in range(3000):
        seq = [rng.randrange(nn + 1) for _ in range(rng.randrange(1, 9))]
        seqs.append((seq, rng.choice((BLACK, WHITE)), rng.choice((0.0, 0.5, 1.0))))
    f = Forest(9, max_depth=3, capacity=capacity)
    for seq, first, reward in seqs:
        f.update(seq, first, reward)
    ref = _reference_forest(seqs, 3, capacity, nn)
    got = {}
    for r in range(nn):
        for ctx, n, mean in f.patterns(r):
            got[(r, ctx)] = (n, mean)
    assert set(got) == set(ref)
    for key, (n, w) in ref.items():
        assert got[key][0] == n and got[key][1] == pytest.approx(w / n)
    assert f.stats()["nodes"] == len(ref)
    # lookups: the replies of the longest stored context of the last moves
    by_ctx = {}
    for r, ctx in ref:
        by_ctx.setdefault(ctx, []).append(r)
    checked = 0
    for seq, _, _ in seqs:
        if len(seq) < 2 or len(set(seq)) < len(seq) or nn in seq:
            continue
        b = Board(9)
        for m in seq[:-1]:
            b.play(m)
        last = seq[-2::-1]
        want = []
        for d in range(1, 4):
            replies = sorted(by_ctx.get(tuple(last[:d]), []))
            if not replies:
                break
            want = replies
        assert f.suggest(b) == want
        checked += 1
    assert checked > 100


def _context_forest(size, last, stats, accept="estimate", trials=0, selection="soft-uct"):
    """A forest whose only context is (last,): reply r seen `wins` times
    won and `losses` times lost by its player (white)."""
    f = Forest(size, epsilon=1.0, selection=selection, accept=accept, trials=trials)
    for r, (wins, losses) in stats.items():
        for _ in range(wins):
            f.update([last, r], BLACK, 0.0)
        for _ in range(losses):
            f.update([last, r], BLACK, 1.0)
    return f


def _check_draws(f, b, n=40000):
    est = f.estimates(b)
    total = sum(est.values())
    draws = f.draws(b, n, seed=9)
    assert set(draws) <= set(est)
    for r, u in est.items():
        assert draws.get(r, 0) / n == pytest.approx(u / total, abs=0.015), r
    return est


def _check_uniform(draws, replies, n):
    """Each reply drawn 1 / len(replies) of the n times, within 1.2 points."""
    for r in replies:
        assert draws[r] / n == pytest.approx(1 / len(replies), abs=0.012), r


def test_soft_uct_draws_follow_equation_1_over_empty_replies():
    # mixed visit counts: the rejection stage does nearly all the draws
    f = _context_forest(9, 40, {41: (10, 0), 42: (0, 10), 43: (1, 0), 44: (0, 1),
                                50: (3, 2), 60: (5, 0), 0: (5, 0)})
    b = Board(9)
    for m in (60, 1, 70, 9, 40):            # 60 is taken, 0 is white's own eye
        b.play(m)
    est = _check_draws(f, b)
    assert set(est) == {41, 42, 43, 44, 50}
    assert est[43] > est[41] > est[42]      # exploration term at n = 1


def test_soft_uct_draws_exact_when_acceptance_is_low():
    # well-visited losing replies: u_r is small against its bound 1 + b lg,
    # so many draws end in the weighed stage; the law must not change
    f = _context_forest(9, 40, {41: (0, 300), 42: (0, 100), 43: (0, 30), 44: (1, 30)})
    b = Board(9)
    b.play(40)
    _check_draws(f, b)


def test_soft_uct_sees_every_word_of_a_19x19_board():
    # replies in the first, middle and last 64-point words, the last ones
    # past the final 32-point load (352..360)
    f = _context_forest(19, 180, {5: (2, 2), 100: (2, 2), 200: (2, 2), 355: (2, 2), 360: (2, 2)})
    b = Board(19)
    for m in (100, 181, 180):
        b.play(m)
    est = _check_draws(f, b)
    assert set(est) == {5, 200, 355, 360}


@pytest.mark.parametrize("trials", [1, 3])
def test_soft_uct_trials_keep_equation_1_and_leave_the_rest_to_the_default(trials):
    """With bhrf.trials the draw picks records of the whole block: among
    the playable replies it still follows equation (1), and it finds none
    with probability (1 - p)^trials, p = sum of u_r over the playable
    replies / ((1 + b lg) x the number of replies stored)."""
    stats = {41: (10, 0), 42: (0, 10), 43: (1, 0), 44: (0, 1), 50: (3, 2), 60: (5, 0), 0: (5, 0)}
    f = _context_forest(9, 40, stats, trials=trials)
    b = Board(9)
    for m in (60, 1, 70, 9, 40):            # 60 is taken, 0 is white's own eye
        b.play(m)
    est = f.estimates(b)
    assert set(est) == {41, 42, 43, 44, 50}
    n = 60000
    draws = f.draws(b, n, seed=3)
    found = n - draws.get(None, 0)
    total = sum(est.values())
    for r, u in est.items():
        assert draws.get(r, 0) / found == pytest.approx(u / total, abs=0.015), r
    top = 1 + 0.7 * math.sqrt(math.log(sum(w + l for w, l in stats.values())))
    p = total / (top * len(stats))
    assert draws.get(None, 0) / n == pytest.approx((1 - p) ** trials, abs=0.01)
    # the same forest without trials draws a reply every time
    assert None not in _context_forest(9, 40, stats).draws(b, 1000)
    with pytest.raises(ValueError, match="bhrf.trials"):
        Forest(9, trials=2, accept="probability")
    with pytest.raises(config.ConfigError, match="bhrf.trials"):
        config.load(None, ["bhrf.trials=2", "bhrf.accept=probability"])
    with pytest.raises(config.ConfigError, match="bhrf.trials"):
        config.load(None, ["bhrf.trials=-1"])


@pytest.mark.parametrize("size, last, replies, moves", [
    (9, 40, {41: (10, 0), 42: (0, 10), 43: (1, 0), 50: (3, 2), 60: (5, 0), 0: (5, 0)},
     (60, 1, 70, 9, 40)),                   # 60 is taken, 0 is white's own eye
    (19, 180, {5: (2, 2), 100: (9, 0), 200: (0, 9), 355: (2, 2), 360: (1, 0)}, (100, 181, 180)),
])
def test_uniform_draws_every_playable_reply_alike(size, last, replies, moves):
    """selection = "uniform": each playable reply of the longest context
    equally often whatever its record, never a taken point or an own eye,
    always played (its rollouts: test_rollouts_follow_the_forest)."""
    f = _context_forest(size, last, replies, selection="uniform")
    b = Board(size)
    for m in moves:
        b.play(m)
    playable = set(f.estimates(b))
    assert playable and playable < set(replies)
    n = 40000
    draws, played = f.draws(b, n, seed=5, plays=True)
    assert set(draws) == playable and played == n
    _check_uniform(draws, playable, n)
    g = _context_forest(9, 40, {41: (3, 0)}, selection="uniform")
    b2 = Board(9)
    for m in (41, 50, 40):                  # the only reply is taken
        b2.play(m)
    assert g.draws(b2, 100) == {None: 100}
    with pytest.raises(config.ConfigError, match="bhrf.selection"):
        config.load(None, ["bhrf.selection=uniformly"])


@pytest.mark.parametrize("selection", ["soft-uct", "uniform"])
def test_draws_stay_exact_when_few_replies_are_playable(selection):
    """With 20 of a context's 24 replies taken the draws still follow
    their law over the 4 playable ones: equation (1), or uniform."""
    points = [19 * row + col for row in range(2, 17, 2) for col in (2, 8, 14)]
    replies = {p: (1 + i % 5, i % 3) for i, p in enumerate(points)}
    f = _context_forest(19, 180, replies, selection=selection)
    b = Board(19)
    for p in points[:20]:                   # scattered stones, both colours
        b.play(p)
    b.play(180)
    est = f.estimates(b)
    assert set(est) == set(points[20:])
    if selection == "soft-uct":
        _check_draws(f, b)
    else:
        _check_uniform(f.draws(b, 40000, seed=3), est, 40000)


def test_soft_uct_no_candidate_falls_back():
    f = _context_forest(9, 40, {41: (3, 0)})
    b = Board(9)
    for m in (41, 50, 40):                  # the only reply is taken
        b.play(m)
    assert f.draws(b, 100) == {None: 100}
    assert f.suggest(b) == [41]


def test_last_reply_plays_the_reply_updated_last():
    f = Forest(9, epsilon=1.0, selection="last-reply")
    f.update([40, 41], BLACK, 0.0)
    f.update([40, 42], BLACK, 1.0)          # 42 chosen last after 40
    b = Board(9)
    b.play(40)
    assert all(f.playout(b, seed=s)[1][0] == 42 for s in range(10))
    b2 = Board(9)
    for m in (42, 50, 40):                  # 42 taken: the default policy plays
        b2.play(m)
    firsts = [f.playout(b2, seed=s)[1][0] for s in range(30)]
    assert firsts.count(41) < 5


def test_last_reply_with_and_without_longer_contexts():
    """A forest of depth-1 contexts (max_depth 1) and one with longer
    contexts both give the reply updated last in the longest context that
    matches."""
    shallow = Forest(9, epsilon=1.0, selection="last-reply", max_depth=1)
    deep = Forest(9, epsilon=1.0, selection="last-reply", max_depth=3)
    for f in (shallow, deep):
        for _ in range(2):
            f.update([30, 40, 41], BLACK, 1.0)     # (40,) -> 41, then (40, 30) -> 41
        f.update([20, 40, 42], BLACK, 1.0)         # (40,) -> 42 last
        f.update([21, 22], BLACK, 1.0)             # another context updated last
    assert all(len(ctx) == 1 for r in range(81) for ctx, _, _ in shallow.patterns(r))
    assert any(len(ctx) == 2 for ctx, _, _ in deep.patterns(41))
    b = Board(9)
    for m in (20, 40):                      # only (40,) matches in either forest
        b.play(m)
    for f in (shallow, deep):
        assert [f.playout(b, seed=s)[1][0] for s in range(5)] == [42] * 5
    b2 = Board(9)
    for m in (30, 40):                      # (40, 30) matches in the deep forest
        b2.play(m)
    assert [deep.playout(b2, seed=s)[1][0] for s in range(5)] == [41] * 5
    assert [shallow.playout(b2, seed=s)[1][0] for s in range(5)] == [42] * 5
    shallow.clear()
    assert shallow.stats()["nodes"] == 0
    assert [shallow.playout(b, seed=s)[1][0] for s in range(20)].count(42) < 5   # forgotten
    assert shallow.stats()["played"] == 0


@pytest.mark.parametrize("selection", ["last-reply", "soft-uct"])
def test_legal_first_matching_tries_the_shorter_context(selection):
    """bhrf.match = legal (the paper's prose): when the longest matching
    context has no playable reply, a shorter one answers; longest-first
    (Algorithm 3) leaves that move to the default policy."""
    got = {}
    for match in ("longest", "legal"):
        f = Forest(9, epsilon=1.0, selection=selection, max_depth=3, match=match)
        for _ in range(2):
            f.update([30, 40, 41], BLACK, 1.0)     # (40,) -> 41 and (40, 30) -> 41
        f.update([20, 40, 42], BLACK, 1.0)         # (40,) -> 42, updated last
        b = Board(9)
        for m in (41, 50, 30, 40):                 # (40, 30) matches; its one reply, 41, is taken
            b.play(m)
        got[match] = [f.playout(b, seed=s)[1][0] for s in range(20)]
    assert got["legal"] == [42] * 20
    assert got["longest"].count(42) < 5
    with pytest.raises(ValueError, match="bhrf.match"):
        Forest(9, match="shortest")
    with pytest.raises(Exception, match="bhrf.match"):
        config.load(None, ["bhrf.match=shortest"])


@pytest.mark.parametrize("accept", ["estimate", "probability", "mean"])
def test_soft_uct_play_probability(accept):
    """A drawn reply is played with probability min(1, u_r) ("estimate"),
    P(r|c) = u_r / sum u ("probability", equation 1 itself) or its win
    rate ("mean")."""
    stats = {40: (9, 1), 41: (1, 9), 42: (5, 5), 43: (0, 3)}
    f = _context_forest(9, 30, stats, accept=accept)
    b = Board(9)
    b.play(10)
    b.play(30)
    est = f.estimates(b)
    total = sum(est.values())
    n = 40000
    draws, played = f.draws(b, n, seed=5, plays=True)
    means = {40: 0.9, 41: 0.1, 42: 0.5, 43: 0.0}
    if accept == "estimate":
        want = sum(u / total * min(1.0, u) for u in est.values())
    elif accept == "mean":
        want = sum(u / total * means[r] for r, u in est.items())
    else:
        want = sum((u / total) ** 2 for u in est.values())
    assert played / n == pytest.approx(want, abs=0.015)
    with pytest.raises(ValueError, match="bhrf.accept"):
        Forest(9, accept="sometimes")


def test_select_finds_the_kth_set_bit_both_ways():
    rng = random.Random(5)
    for _ in range(300):
        x = rng.getrandbits(64) & rng.getrandbits(64) | (1 << rng.randrange(64))
        bits = [i for i in range(64) if x >> i & 1]
        for k in range(len(bits)):
            assert select64(x, k) == bits[k]
            assert select64(x, k, broadword=True) == bits[k]
    with pytest.raises(ValueError):
        select64(0b1011, 3)


def test_rollout_profile_report_names_its_settings(tmp_path):
    """tools.rollout_profile on a small board: the report (under --name)
    has a row per policy, shares in [0, 100], and the --set settings the
    search ran with."""
    import re

    from tools import rollout_profile

    rollout_profile.main(["--size", "5", "--games", "1", "--playouts", "40", "--samples", "1",
                          "--set", "prior.evaluator=expert", "--name", "prof-test", "--out-dir", str(tmp_path)])
    text = (tmp_path / "prof-test.md").read_text()
    assert (tmp_path / "prof-test.png").stat().st_size > 0
    assert "--set prior.evaluator=expert --name prof-test" in text
    rows = {m.group(1): (int(m.group(2)), float(m.group(3)), float(m.group(4)))
            for m in re.finditer(r"^\| (random|expert|BHRF) \| (\d+) \| ([\d.]+)% \| ([\d.]+)% \|$", text, re.M)}
    assert set(rows) == {"random", "expert", "BHRF"}
    for n, local, pat in rows.values():
        assert n > 0 and 0 <= pat <= local <= 100
