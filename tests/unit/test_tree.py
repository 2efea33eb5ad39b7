"""The rave tree (search.tree = rave): prior knowledge at every node, real
statistics kept apart from prior ones, RAVE, the net as a queued term,
tree reuse, resignation and the pool policies."""
import pytest

from board_ext.board import BLACK, WHITE, Board
from board_ext.priors import tree_priors
from engine import config, tree_policies
from engine.evaluator import ScriptedEvaluator
from engine.factory import bare_tree
from engine.search import RESIGN, Search


def cfg(*sets):
    return config.load(None, ["search.rollout=random", "search.seed=7", "prior.evaluator=none"] + list(sets))


COLS = "ABCDEFGHJ"


def pt(v, size=9):
    return (int(v[1:]) - 1) * size + COLS.index(v[0])


def value(n0, w0, p):
    return w0[p] / n0[p]


def test_prior_knowledge_values():
    b = Board.from_ascii("""
        .........
        .........
        .........
        ...XOX...
        ....X....
        .........
        .........
        .........
        .........""", to_move=BLACK)
    n0, w0 = tree_priors(b)
    cap = pt("E7")                      # the white stone's last liberty
    assert value(n0, w0, cap) == pytest.approx(1.0) and n0[cap] >= 9
    plain = pt("B2")
    assert value(n0, w0, plain) < value(n0, w0, cap)
    assert n0[plain] <= 6               # a few visits, not hundreds
    # pass is unlikely unless the opponent just passed
    assert value(n0, w0, 81) < 0.2
    b.play(81)
    n0b, w0b = tree_priors(b)           # white to move after black's pass
    assert value(n0b, w0b, 81) == pytest.approx(0.5)
    # occupied points and illegal moves have no prior
    assert n0[pt("D6")] == 0


def test_prior_knowledge_reads_the_ladder_and_self_atari():
    # black D4 in atari (white C4, D3, D5, E5): running at E4 dies in a
    # ladder, so the escape gets a losing prior; with a black ladder
    # breaker at G2 it is a good move
    def ladder(breaker):
        b = Board(9)
        b.setup([pt("D4")] + ([pt("G2")] if breaker else []), [pt(v) for v in ("C4", "D3", "D5", "E5")])
        b.to_move = BLACK
        return b
    esc = pt("E4")
    n0, w0 = tree_priors(ladder(False))
    assert value(n0, w0, esc) < 0.3
    n0, w0 = tree_priors(ladder(True))
    assert value(n0, w0, esc) > 0.9
    # a self-atari of a group is worth nothing
    sa = Board.from_ascii("""
        .........
        .........
        .........
        .........
        .........
        .........
        O........
        XO.......
        .........""", to_move=BLACK)
    n0, w0 = tree_priors(sa)
    assert value(n0, w0, pt("A1")) == 0.0 and n0[pt("A1")] >= 9


def test_every_child_at_once_and_real_statistics_apart():
    s = Search(cfg("search.playouts=600", "search.early_stop=false"))
    s.set_position(Board(9), 7.0)
    r = s.run()
    t = s.tree
    kids = t.children()
    assert len(kids) == 82              # every point and pass, at once
    total = sum(k[1] for k in kids)
    assert total == r.visits == 600 and t.node(t.root_id)["N"] == 600
    pri = t.child_priors()
    for move, N, W, P, NM, VM, node in kids:
        st = t.node(node)
        assert st["N0"] == pri[move][0] > 0 and N == st["N"]
    # analysis reports the real statistics, not the priors
    for d in s.analysis():
        st = next(t.node(k[-1]) for k in kids if k[0] == d["move"])
        if st["N"] > 0:
            assert d["winrate"] == pytest.approx(st["W"] / st["N"]) and d["visits"] == st["N"]
    # the tree goes deeper than one ply (2 plies at least along the PV)
    assert len(s.analysis()[0]["pv"]) >= 3
    t.check_invariants()


def test_rave_first_play_amaf():
    """AMAF counts a move for a child only when its player played that
    point first, from the node on: after a search the AMAF counts of root
    children exceed their real visits (every rollout updates many)."""
    s = Search(cfg("search.playouts=300", "search.early_stop=false"))
    s.set_position(Board(9), 7.0)
    s.run()
    pri = s.tree.child_priors()
    kids = s.tree.children()
    more = sum(1 for m, N, *_ in kids if m < 81 and pri[m][2] - pri[m][0] > N)
    assert more > 60
    assert pri[81][2] == pri[81][0]      # pass never gets AMAF updates


def test_net_equiv_by_board_size():
    """The net prior's weight by board size comes from the per-size tables:
    9x9 and smaller take the value for every size unless [size.9] says
    otherwise, up to 15x15 the table of 13, above it the table of 19."""
    c = config.load(None, ["rave.net_equiv=30", "size.13.rave.net_equiv=100", "size.19.rave.net_equiv=400"])
    assert [config.at_size(c, n).rave.net_equiv for n in (5, 9, 11, 13, 15, 16, 19)] == \
        [30, 30, 100, 100, 100, 400, 400]
    assert config.at_size(config.load(), 19).rave.net_equiv == config.SIZE_DEFAULTS["19"]["rave"]["net_equiv"]
    with pytest.raises(config.ConfigError, match="'tree.net_equiv_19' is now 'size.19.rave.net_equiv'"):
        config.load(None, ["tree.net_equiv_19=3"])


@pytest.mark.parametrize("size", [9, 13])
def test_the_search_gives_the_net_the_weight_of_its_board_size(size):
    """A 13x13 search adds its table's net_equiv * sqrt(p) prior wins to the
    net's favoured move, a 9x9 one net_equiv * sqrt(p), from the same config."""
    fav = pt("G3", size)
    ev = ScriptedEvaluator({fav: 1e6})
    s = Search(cfg("search.playouts=50", "search.early_stop=false", "prior.dcnn_nodes=1",
                   "rave.net_equiv=10", "size.13.rave.net_equiv=200", "size.19.rave.net_equiv=1000"), evaluator=ev)
    s.set_position(Board(size), 7.0)
    s.run()
    t = s.tree
    assert t.has_net_priors(t.root_id)
    pri = t.child_priors()
    n0_prior_only = tree_priors(Board(size))[0]
    gained = pri[fav][0] - n0_prior_only[fav]
    assert gained == pytest.approx(10 if size == 9 else 200, rel=0.01)


def tuned(tree, **changes):
    """Set some of the tree's kernel parameters, the others as they are."""
    tree.set_params(tree.tree_name, dict(tree.params(tree.tree_name), **changes))
    return tree


def test_net_fade_by_move_number():
    """rave.net_fade takes its share off the net's weight linearly (the
    kernel's rave_net_weight, read at the root's move number), reaching it
    at move net_fade_end * board points and staying there; off, the weight
    is the board size's at every move."""
    def weight_at(c, moves):
        b = Board(13)
        for _ in range(moves):
            b.play(169)                     # passes: only the move number counts
        t = bare_tree(13, 100, seed=1)
        t.configure(tree="rave")
        t.set_params("rave", tree_policies.get("rave").params(c))
        t.set_root(b)
        return t.net_weight

    c = config.at_size(config.load(None, ["size.13.rave.net_equiv=200", "rave.net_fade=0.75",
                                          "rave.net_fade_end=0.5"]), 13)
    end = 0.5 * 169
    weights = {moves: weight_at(c, moves) for moves in (0, 42, 84, 85, 300)}
    assert weights[0] == 200
    assert weights[42] == pytest.approx(200 * (1 - 0.75 * 42 / end))
    assert weights[84] == pytest.approx(200 * (1 - 0.75 * 84 / end))
    assert weights[85] == pytest.approx(50) and weights[300] == pytest.approx(50)
    off = config.at_size(config.load(None, ["size.13.rave.net_equiv=200"]), 13)
    assert off.rave.net_fade == 0 and weight_at(off, 150) == 200
    with pytest.raises(config.ConfigError, match="rave.net_fade"):
        config.load(None, ["rave.net_fade=1.5"])


FILL_B = [c + "9" for c in COLS] + [c + "8" for c in COLS] + ["A7", "B7"]
FILL_W = [c + "5" for c in COLS] + [c + "4" for c in COLS] + ["A3", "B3"]


def test_the_search_fades_the_net_with_the_game():
    """Later in the game the root's children get the faded weight: the net's
    favoured move gains fewer prior wins at move 40 than at the start, by
    the factor the kernel's rave_net_weight gives at the root's move
    number."""
    size = 9
    fav = pt("G3", size)
    opts = ("search.playouts=50", "search.early_stop=false", "prior.dcnn_nodes=1", "rave.net_equiv=100",
            "rave.net_fade=0.8", "rave.net_fade_end=0.5")
    gained = []
    for moves in (0, 40):
        b = Board(size)
        for i in range(moves // 2):       # two walls, no captures: black on top, white below
            b.play(pt(FILL_B[i], size))
            b.play(pt(FILL_W[i], size))
        s = Search(cfg(*opts), evaluator=ScriptedEvaluator({fav: 1e6}))
        s.set_position(b, 7.0)
        assert s.tree.net_weight == pytest.approx(100 * (1 - 0.8 * min(1.0, moves / (0.5 * size * size))))
        s.run()
        t = s.tree
        pri = t.child_priors()
        gained.append(pri[fav][0] - tree_priors(b)[0][fav])
    assert gained[0] == pytest.approx(100, rel=0.01)
    assert gained[1] == pytest.approx(100 * (1 - 0.8 * 40 / 40.5), rel=0.01)


def test_net_grow_by_board_size():
    """rave.net_grow is a threshold in visits: each size class takes its own
    table's (9x9 and smaller, up to 15x15, above); a value for every size
    set after the tables replaces theirs."""
    c = config.load(None, ["rave.net_grow=0", "size.13.rave.net_grow=500", "size.19.rave.net_grow=2000"])
    assert [config.at_size(c, n).rave.net_grow for n in (7, 9, 11, 13, 17, 19)] == [0, 0, 500, 500, 2000, 2000]
    later = config.load(None, ["size.13.rave.net_grow=500", "rave.net_grow=40"])
    assert [config.at_size(later, n).rave.net_grow for n in (9, 13, 19)] == [40, 40, 40]


def test_the_net_prior_grows_with_the_parents_visits():
    """With rave.net_grow the net's prior visits on a child grow as
    sqrt(N_parent / net_grow): the favoured child's value rises (more prior
    wins), a child the net gave nothing keeps its value, and below the
    threshold nothing changes."""
    fav = pt("G3")
    ev = ScriptedEvaluator({fav: 1e6})
    s = Search(cfg("search.playouts=600", "search.early_stop=false", "prior.dcnn_nodes=1",
                   "rave.net_equiv=10"), evaluator=ev)
    s.set_position(Board(9), 7.0)
    s.run()
    t = s.tree
    kids = {m: c for (m, _n, _w, _p, _nm, _vm, c) in t.children()}
    other = pt("C7")
    assert sum(n for (_m, n, *_rest) in t.children()) > 500
    fixed = (t.value(kids[fav]), t.value(kids[other]))
    tuned(t, net_grow=50.0)
    grown = (t.value(kids[fav]), t.value(kids[other]))
    assert grown[1] == fixed[1]
    assert grown[0] > fixed[0]
    tuned(t, net_grow=1e6)               # above the parent's visits: as fixed
    assert t.value(kids[fav]) == fixed[0]
    with pytest.raises(config.ConfigError, match="rave.net_grow"):
        config.load(None, ["rave.net_grow=-1"])


def test_a_growing_net_prior_steers_more_visits_to_the_favourite():
    fav = pt("G3")
    visits = {}
    for grow in (0, 50):
        s = Search(cfg("search.playouts=1500", "search.early_stop=false", "prior.dcnn_nodes=1",
                       "rave.net_equiv=10", f"rave.net_grow={grow}"), evaluator=ScriptedEvaluator({fav: 1e6}))
        s.set_position(Board(9), 7.0)
        s.run()
        visits[grow] = {d["move"]: d["visits"] for d in s.analysis()}[fav]
    assert visits[50] > 2 * visits[0] + 30


def test_net_priors_are_queued_and_added_to_children():
    ev = ScriptedEvaluator({pt("G3"): 1000.0})
    s = Search(cfg("search.playouts=400", "search.early_stop=false", "rave.net_visits=8",
                   "prior.dcnn_nodes=20", "rave.net_equiv=30"), evaluator=ev)
    s.set_position(Board(9), 7.0)
    s.run()
    t = s.tree
    assert t.has_net_priors(t.root_id)
    assert 1 < s.ask.nets_asked <= 20
    pri = t.child_priors()
    n0_prior_only = tree_priors(Board(9))[0]
    # the favoured move gained net_equiv * sqrt(p) wins, the others little
    g3 = pt("G3")
    assert pri[g3][0] - n0_prior_only[g3] > 25
    assert max(pri[m][0] - n0_prior_only[m] for m in pri if m != g3) < 3
    an = {d["move"]: d for d in s.analysis()}
    assert an[g3]["prior"] > 0.9
    # and it steers the visits: far more than without the net
    s0 = Search(cfg("search.playouts=400", "search.early_stop=false"))
    s0.set_position(Board(9), 7.0)
    s0.run()
    an0 = {d["move"]: d for d in s0.analysis()}
    assert an[g3]["visits"] > 3 * an0[g3]["visits"] + 10


def test_net_prior_is_overturned_by_real_visits():
    """The net's favourite is a self-atari that loses a group: tens of real
    visits overturn the prior (the old tree needed ~200)."""
    b = Board.from_ascii("""
        .........
        .........
        .........
        .........
        ....O....
        ...OXO...
        ...OXO...
        ....X....
        .........""", to_move=WHITE)
    bad = pt("E1")
    good = pt("D2")
    ev = ScriptedEvaluator({bad: 1000.0})
    s = Search(cfg("search.playouts=3000", "search.early_stop=false"), evaluator=ev)
    s.set_position(b, 7.0)
    r = s.run()
    assert r.move != bad
    an = {d["move"]: d for d in s.analysis()}
    assert an[bad]["visits"] < 1000


def test_priors_and_statistics_survive_tree_reuse():
    ev = ScriptedEvaluator({pt("E5"): 50.0})
    s = Search(cfg("search.playouts=2000", "search.early_stop=false", "rave.net_visits=4"), evaluator=ev)
    b = Board(9)
    s.set_position(b, 7.0)
    s.run()
    best = s.analysis()[0]
    child = next(k[-1] for k in s.tree.children() if k[0] == best["move"])
    had_net = s.tree.has_net_priors(child)
    kept = dict(s.tree.child_priors(child))
    b.play(best["move"])
    assert s.set_position(b, 7.0) is True
    root = s.tree.root_id
    assert s.tree.node(root)["N"] == best["visits"]
    assert s.tree.has_net_priors(root) == had_net
    assert s.tree.child_priors() == kept
    s.run(playouts=100)
    s.tree.check_invariants()


def test_resigns_at_a_small_budget():
    b = Board.from_ascii("""
        OOOOOOOOO
        OOOOOOOOO
        OOOOOOOOO
        OOOOOOOOO
        .O.O.O.O.
        OOOOOOOOO
        ...X.....
        .........
        .........""", to_move=BLACK)
    s = Search(cfg("search.playouts=200", "search.resign_threshold=0.1", "search.resign_min_visits=5000"))
    s.set_position(b, 7.0)
    assert s.run().move == RESIGN


@pytest.mark.parametrize("policy", ["stop", "recycle", "fuego_gc", "flatten"])
def test_rave_pool_never_exceeds_capacity(policy):
    t = bare_tree(9, 400, policy, seed=3)
    t.configure(rollout="random", tree="rave")
    tuned(t, rave=True, expand_visits=2)
    t.set_root(Board(9))
    ran = t.simulate(2000)
    assert t.n_used <= 400
    assert t.check_invariants() == t.n_used
    if policy == "stop":
        assert ran < 2000 and t.stopped
    else:
        assert ran == 2000
    if policy == "recycle":
        assert t.stats()["recycled"] > 0


def test_tree_knobs_are_checked():
    with pytest.raises(config.ConfigError, match="rave.expand_visits"):
        config.load(None, ["rave.expand_visits=0"])
    with pytest.raises(config.ConfigError, match="search.choose"):
        config.load(None, ["search.choose=best"])
    with pytest.raises(config.ConfigError, match="search.tree"):
        config.load(None, ["search.tree=mcts"])


def test_lcb_choice_runs():
    s = Search(cfg("search.playouts=500", "search.choose=lcb"))
    s.set_position(Board(9), 7.0)
    r = s.run()
    assert 0 <= r.move <= 81


def test_early_stop_counts_only_this_searchs_visits():
    """A reused tree's visits do not end the next search early: the leader
    must gain more new visits than are left to the others."""
    s = Search(cfg("search.playouts=6000", "search.early_stop=false"))
    b = Board(9)
    s.set_position(b, 7.0)
    s.run()
    b.play(s.analysis()[0]["move"])
    s.set_position(b, 7.0)
    s.cfg = config.load(None, ["search.rollout=random", "search.seed=7", "prior.evaluator=none",
                               "search.playouts=2000"])
    r = s.run()
    assert r.playouts >= 1000 and r.stopped_by in ("early", "budget")


@pytest.mark.parametrize("margin,passes", [(2, True), (-2, False)])
def test_passes_after_the_opponents_pass_when_the_count_is_ours(margin, passes):
    """All dame filled, White passed: Black passes when the count (komi 7)
    is his, and plays on when it is not (the one pass decision after the
    search, Endgame.decide, as the Player asks it)."""
    from engine.endgame import Endgame
    b = Board.from_ascii("\n".join(["....XO..."] * 9), to_move=WHITE)
    b.play(81)
    komi = 7.0 if margin > 0 else 11.0
    s = Search(cfg("search.playouts=300"))
    s.set_position(b, komi)
    r = s.run()
    move = Endgame(b, komi, 30, 1).decide(b.to_move, r.move, s.analysis())
    assert (move == 81) == passes


class _ValueNet(ScriptedEvaluator):
    """A stand-in net with a value head: uniform priors; black wins for sure
    wherever a black stone stands on ``point``, elsewhere even chances."""
    has_value = True

    def __init__(self, point):
        super().__init__({point: 1000.0})      # and the policy favours it
        self.point = point

    def evaluate_all(self, boards, want_features=False):
        import numpy as np
        pri, feats = self.evaluate(boards, want_features)
        vals = []
        for b in boards:
            black = b.color_at(self.point) == BLACK
            vals.append(0.5 if not black else (1.0 if b.to_move == BLACK else 0.0))
        return pri, feats, np.asarray(vals, np.float32)


class _LeadNet(ScriptedEvaluator):
    """A stand-in net with a score head: uniform priors, even values; Black
    leads by ``lead`` points wherever a black stone stands on ``point``,
    by 0 elsewhere (the head speaks for the side to move)."""
    has_value = has_aux = True

    def __init__(self, point, lead):
        super().__init__({})
        self.point, self.lead = point, lead

    def black_lead(self, b):
        return self.lead if b.color_at(self.point) == BLACK else 0.0

    def evaluate_all(self, boards, want_features=False, want_lead=False):
        import numpy as np
        pri, feats = self.evaluate(boards, want_features)
        vals = np.full(len(boards), 0.5, np.float32)
        leads = np.asarray([self.black_lead(b) * (1 if b.to_move == BLACK else -1) for b in boards], np.float32)
        return (pri, feats, vals, leads) if want_lead else (pri, feats, vals)


def test_score_utility_steers_the_roots_visits_by_the_lead():
    """rave.score_utility: a child of the root the net has evaluated adds
    score_utility * (2/pi) atan((its lead - the root's) / score_scale) to
    its value in the root's selection.  B2 (a poor move, a few visits
    without it) read 10 points up takes nearly every visit; read 10 points
    down it keeps no more than it had; 0 (the default) asks no leads."""
    b2 = pt("B2")

    def run(lead, su):
        s = Search(cfg("search.playouts=600", "search.early_stop=false", "rave.net_visits=4",
                       "prior.dcnn_nodes=500", f"rave.score_utility={su}", "rave.score_scale=2"),
                   evaluator=_LeadNet(b2, lead))
        s.set_position(Board(9), 7.0)
        s.run()
        t = s.tree
        kid = [c[6] for c in t.children() if c[0] == b2][0]
        visits = {c[0]: c[1] for c in t.children()}
        return t, kid, visits

    t0, kid0, v0 = run(10.0, 0)
    assert t0.net_lead(t0.root_id) is None and t0.net_lead(kid0) is None      # off: no leads kept
    assert 4 <= v0[b2] < 50
    t, kid, v = run(10.0, 0.5)
    assert t.net_lead(t.root_id) == 0.0 and t.net_lead(kid) == 10.0
    assert v[b2] == max(v.values()) and v[b2] > 400
    _, kid, v = run(-10.0, 0.5)
    assert v[b2] <= v0[b2]
    with pytest.raises(config.ConfigError, match="rave.score_utility"):
        cfg("rave.score_utility=2")


class _TurningLeadNet(_LeadNet):
    """A score head that reads Black ``lead`` points up just after a black
    stone lands on ``point`` (the child of the root), and that many down
    at every position deeper in its subtree."""

    def black_lead(self, b):
        if b.color_at(self.point) != BLACK:
            return 0.0
        return self.lead if b.move_count <= 1 else -self.lead


def test_score_backup_reads_the_leads_the_subtree_backed_up():
    """rave.score_backup: the root's score term reads a child's backed-up
    lead (the mean of the leads its simulations brought back), not the
    head's at the child.  B2 read 10 points up at the child and 10 down
    everywhere below it takes nearly every visit on the head's lead, and
    under half of those once its subtree's leads speak (its first
    simulations end above any evaluated grandchild and bring back the
    child's own +10)."""
    b2 = pt("B2")

    def run(backup):
        s = Search(cfg("search.playouts=600", "search.early_stop=false", "rave.net_visits=4",
                       "prior.dcnn_nodes=500", "rave.score_utility=0.5", "rave.score_scale=2",
                       f"rave.score_backup={str(backup).lower()}"),
                   evaluator=_TurningLeadNet(b2, 10.0))
        s.set_position(Board(9), 7.0)
        s.run()
        t = s.tree
        kid = [c[6] for c in t.children() if c[0] == b2][0]
        return t, kid, {c[0]: c[1] for c in t.children()}

    t, kid, v = run(False)
    assert t.net_lead(kid) == 10.0 and v[b2] == max(v.values()) and v[b2] > 400
    t, kid, vb = run(True)
    assert t.net_lead(kid) == 10.0          # the head says the same at the child
    assert vb[b2] < 0.6 * v[b2], (vb[b2], v[b2])


def test_value_head_mixes_into_the_results():
    """search.value_lambda = 1: a simulation's result is the value at the
    deepest node the net evaluated, so a net sure that the side to move
    loses once black holds E5 makes E5 look won for black and nothing else
    does."""
    e5 = pt("E5")
    ev = _ValueNet(e5)
    s = Search(cfg("search.playouts=600", "search.early_stop=false", "rave.net_visits=4",
                   "prior.dcnn_nodes=500", "search.value_lambda=1.0"), evaluator=ev)
    s.set_position(Board(9), 7.0)
    s.run()
    t = s.tree
    ch = {c[0]: (c[1], c[2]) for c in t.children()}
    kid = [c[6] for c in t.children() if c[0] == e5][0]
    assert t.net_value(kid) == 1.0          # white to move there, sure to lose: black wins
    n, w = ch[e5]
    # the first few visits came before the net looked (rollouts); the rest are wins
    assert n > 20 and w / n > 0.8
    assert ch[e5][0] == max(n for n, w in ch.values())
    # lambda 0 (the default) leaves the rollouts alone: the same net changes nothing
    s0 = Search(cfg("search.playouts=600", "search.early_stop=false", "rave.net_visits=4",
                    "prior.dcnn_nodes=500"), evaluator=_ValueNet(e5))
    s0.set_position(Board(9), 7.0)
    s0.run()
    n0, w0 = {c[0]: (c[1], c[2]) for c in s0.tree.children()}[e5]
    assert w0 / n0 < 0.8
    with pytest.raises(config.ConfigError, match="value_lambda"):
        cfg("search.value_lambda=1.5")


def test_value_backup_keeps_the_subtrees_values_apart_from_the_results():
    """rave.value_backup (AlphaGo's mixing): a simulation's result is its
    rollout's alone; each node the net evaluated enters its own and every
    ancestor's value evaluations once (VN, VW for the player who moved into
    each), and every child of the root gets its value before the search:
    E5, the net's favourite and a sure win for black by its value, reads
    that in its evaluations while its own mean stays the rollouts'; the
    selection counts each real visit as (1 - lambda) its rollout + lambda
    the evaluations' mean."""
    e5 = pt("E5")
    s = Search(cfg("search.playouts=600", "search.early_stop=false", "rave.net_visits=4",
                   "prior.dcnn_nodes=500", "search.value_lambda=1.0", "rave.value_backup=true"),
               evaluator=_ValueNet(e5))
    s.set_position(Board(9), 7.0)
    s.run()
    t = s.tree
    kids = {c[0]: c[6] for c in t.children()}
    assert all(t.node(k)["VN"] >= 1 for k in kids.values())     # the root's batch
    kid = t.node(kids[e5])
    # every evaluated node below E5 has black on E5: a sure win for black, who moved into E5
    assert kid["VN"] > 5 and kid["VW"] == kid["VN"]
    # the subtree adds up: a node's evaluations are its own and its children's
    below = sum(t.node(c[6])["VN"] for c in t.children(kids[e5]))
    assert kid["VN"] == 1 + below
    # the results are the rollouts': E5's own mean is far from the value's 1
    assert kid["N"] > 100 and kid["W"] / kid["N"] < 0.8
    # the win rates reported (and read for resigning) mix the same: at lambda 1 the evaluations' mean
    assert {d["move"]: d["winrate"] for d in s.analysis()}[e5] == pytest.approx(1.0)
    # and the selection reads each real visit as (1 - lambda) its rollout + lambda that mean, the
    # prior's visits as they are: with RAVE off, (W0 + (1 - lam) W + lam N VW / VN) / (N0 + N)
    for lam in (1.0, 0.5):
        s = Search(cfg("search.playouts=300", "search.early_stop=false", "rave.net_visits=4", "rave.rave=false",
                       "prior.dcnn_nodes=500", f"search.value_lambda={lam}", "rave.value_backup=true"),
                   evaluator=_ValueNet(e5))
        s.set_position(Board(9), 7.0)
        s.run()
        for m, k in {c[0]: c[6] for c in s.tree.children()}.items():
            d = s.tree.node(k)
            want = (d["W0"] + (1 - lam) * d["W"] + lam * d["N"] * d["VW"] / d["VN"]) / (d["N0"] + d["N"])
            assert s.tree.value(k) == pytest.approx(want, abs=1e-5), m
    # without it (the default) the pool keeps no such arrays
    s0 = Search(cfg("search.playouts=100", "rave.net_visits=4", "prior.dcnn_nodes=500",
                    "search.value_lambda=1.0"), evaluator=_ValueNet(e5))
    s0.set_position(Board(9), 7.0)
    s0.run()
    assert all(s0.tree.node(c[6])["VN"] == 0 for c in s0.tree.children())
    assert s0.tree.stats()["bytes_per_node"] == t.stats()["bytes_per_node"] - 8


def test_value_lambda_by_the_roots_phase():
    """Three numbers: the weight of the root's phase (opening, middle game,
    endgame).  [1, 0, 0] on an empty board (the opening) acts as 1; on a
    board of 30 stones (the middle game of 9x9) as 0."""
    e5 = pt("E5")

    def e5_rate(board, lam):
        s = Search(cfg("search.playouts=600", "search.early_stop=false", "rave.net_visits=4",
                       "prior.dcnn_nodes=500", f"search.value_lambda={lam}"), evaluator=_ValueNet(e5))
        s.set_position(board, 7.0)
        s.run()
        n, w = {c[0]: (c[1], c[2]) for c in s.tree.children()}[e5]
        return w / n
    assert e5_rate(Board(9), "[1.0,0.0,0.0]") > 0.8
    mid = Board(9)
    for m in ["A1", "J9", "A9", "J1", "B1", "H9", "B9", "H1", "C1", "G9", "C9", "G1", "A2", "J8", "A8",
              "J2", "A3", "J7", "A7", "J3", "B2", "H8", "B8", "H2", "A4", "J6", "A6", "J4", "C2", "G8"]:
        mid.play(pt(m))
    assert mid.move_count == 30
    assert e5_rate(mid, "[1.0,0.0,0.0]") < 0.8
    with pytest.raises(config.ConfigError, match="one number or three"):
        cfg("search.value_lambda=[0.5,0.5]")


def test_value_visits_add_visits_at_the_nets_value():
    """search.value_visits = [50, 50, 50]: every child of the root gets its
    value in one batch before the search, as 50 prior visits for its
    mover: E5 (white to move there, sure to lose) all won for black, every
    other child (value 0.5) half won; the net's later call at a node adds
    nothing twice."""
    e5 = pt("E5")

    def run(*sets):
        s = Search(cfg("search.playouts=600", "search.early_stop=false", "rave.net_visits=4",
                       "prior.dcnn_nodes=500", *sets), evaluator=_ValueNet(e5))
        s.set_position(Board(9), 7.0)
        s.run()
        return s.tree, s.tree.child_priors()

    t, pri = run("search.value_visits=[50, 50, 50]")
    t0, pri0 = run()
    kid = [c[6] for c in t.children() if c[0] == e5][0]
    assert t.net_value(kid) == 1.0
    n0, w0 = pri[e5][0] - pri0[e5][0], pri[e5][1] - pri0[e5][1]
    assert n0 == pytest.approx(50) and w0 == pytest.approx(50)
    assert len(t.children()) == 82
    for c in t.children():          # every child, searched or not
        assert t.net_value(c[6]) is not None
        if c[0] != e5:
            assert pri[c[0]][0] - pri0[c[0]][0] == pytest.approx(50)
            assert pri[c[0]][1] - pri0[c[0]][1] == pytest.approx(25, abs=1e-3)
    # by phase: the opening's count only, in the opening
    t, pri = run("search.value_visits=[7, 50, 50]")
    assert pri[e5][0] - pri0[e5][0] == pytest.approx(7)
    with pytest.raises(config.ConfigError, match="value_visits"):
        cfg("search.value_visits=[-1, 0, 0]")
    with pytest.raises(config.ConfigError, match="three numbers"):
        cfg("search.value_visits=[1, 2]")
    with pytest.raises(config.ConfigError, match="search.value_visits"):
        cfg("tree.value_prior=20")


def test_a_tree_without_its_kernels_parameters_refuses_to_search():
    from engine.walk import Tree
    t = Tree(9, 100, "recycle", seed=1)
    t.set_root(Board(9))
    with pytest.raises(ValueError, match="no parameters for the uct kernel"):
        t.simulate(1)
    t.set_params("uct", bare_tree(9, 10).params("uct"))
    assert t.simulate(5) == 5
