"""The search and its node pool."""
import pytest

from board_ext.board import BLACK, WHITE, Board
from engine import config
from engine.evaluator import ScriptedEvaluator
from engine.pool import BYTES_PER_NODE
from engine.factory import bare_tree
from engine.search import RESIGN, Search

# the paper's memory (every node, its lambda schedule, no confidence), which the
# memory tests below check; the shipped defaults are the equal-time winner
PAPER_MEMORY = ("memory.nodes=all", "memory.confidence=false", "memory.lambda_schedule=share")
PAPER_MEMORY_CFG = dict(nodes=0, confidence=False, lambda_schedule="share")


def cfg(*sets):
    return config.load(None, ["search.rollout=random", "search.seed=7"] + list(sets))


def test_bytes_per_node_counts_every_per_node_array():
    """53 bytes, within the paper's 48-56: the paper's node plus the value
    (4) and score-lead (2) statistics; the AMAF statistics (8) only for a
    tree that reads them, the memory's (8) only with the memory on.  The
    figure is the pool's own count of what it allocates, and a pool of
    more nodes reports the same."""
    from engine.pool import BASE_BYTES_PER_NODE, NodePool
    assert BASE_BYTES_PER_NODE == 2 + 2 + 4 * 3 + 4 * 2 + 4 + 4 * 2 + 4 * 2 + 2 + 4 + 2 + 1 == 53 <= 56
    assert BYTES_PER_NODE == BASE_BYTES_PER_NODE + 8 + 8 + 8 == 77
    assert NodePool(9, 1000).bytes_per_node == BASE_BYTES_PER_NODE

    def node_bytes(*sets):
        s = Search(cfg("pool.pool_size=1000", *sets))
        s.set_position(Board(9), 7.0)
        return s.tree.stats()["bytes_per_node"]
    assert node_bytes("search.tree=uct") == 53                       # the papers' tree
    assert node_bytes("search.tree=uct", "uct.rave=true") == 61
    assert node_bytes("search.tree=rave") == 61                      # the shipped tree reads AMAF
    t = bare_tree(9, 1000, "recycle")                                    # the uct tree by default
    t.configure(use_memory=True)                                     # a search with an M-MCTS memory
    assert t.stats()["bytes_per_node"] == 61
    t.configure(tree="rave")
    assert t.stats()["bytes_per_node"] == 69


@pytest.mark.parametrize("policy", ["stop", "stunt", "ensemble", "flatten", "recycle", "fuego_gc"])
def test_pool_never_exceeds_capacity(policy):
    t = bare_tree(9, 60, policy, seed=3)
    t.configure(rollout="random")
    t.set_root(Board(9))
    ran = t.simulate(1500)
    assert t.n_used <= 60
    assert t.check_invariants() == t.n_used
    if policy == "stop":
        assert ran < 1500 and t.stopped
    else:
        assert ran == 1500


def test_recycling_takes_least_recently_updated():
    t = bare_tree(5, 40, "recycle", seed=5)
    t.configure(rollout="random")
    t.set_root(Board(5))
    t.simulate(26)                      # the root tries all 25 points + pass
    assert t.n_used == 27 and t.lru_order() == [t.root_id]
    while t.n_used < 40:
        t.simulate(1)
    checked = 0
    for _ in range(60):
        order = t.lru_order()
        before = {c: t.node(c)["parent"] for c in range(40)}
        leaf_of = {v: [ch[-1] for ch in t.children(v)] for v in order}
        r0 = t.stats()["recycled"]
        t.simulate(1)
        if t.stats()["recycled"] == r0 + 1:
            moved = [c for c in range(40) if t.node(c)["parent"] != before[c]]
            # the recycled node was the first child of one of the least
            # recently updated non-leaf nodes (the front of Theta, unless
            # this very descent passed through the front)
            assert any(leaf_of[v] and leaf_of[v][0] in moved for v in order[:2])
            checked += 1
        assert t.n_used == 40
        t.check_invariants()
    assert checked > 10
    assert t.lru_order()[-1] == t.root_id


def test_root_visits_and_win_rates():
    s = Search(cfg("search.playouts=3000"))
    b = Board(9)
    s.set_position(b, 7.0)
    r = s.run()
    assert r.playouts == 3000
    an = s.analysis()
    assert sum(d["visits"] for d in an) == 3000
    assert all(0.0 <= d["winrate"] <= 1.0 for d in an)
    assert r.move == an[0]["move"]


# white to move; the black chain C5-F5 has one liberty, G5: white's capture
# there takes four stones, while black's extension there saves them
CAPTURE = """
        .........
        .........
        .........
        ..OOOO...
        .OXXXX...
        ..OOOO...
        .........
        .........
        ........."""
G5 = 4 * 9 + 6


def test_finds_the_capture_that_wins():
    b = Board.from_ascii(CAPTURE, to_move=WHITE)
    for tree in ("rave", "uct"):
        s = Search(cfg(f"search.tree={tree}", "search.playouts=2000", "search.early_stop=false",
                       "uct.rave=true"))
        s.set_position(b, 7.0)
        r = s.run()
        assert r.move == G5, tree
        assert r.winrate > 0.9


def test_min_prior_keeps_the_choice_among_the_moves_the_net_allows():
    """search.min_prior: the final move is the most visited of the root's
    children whose net prior is at least that share of the largest.  The
    capture that wins has a prior of a thousandth of the others': the search
    finds it all the same, and plays it with the floor off; with the floor
    at 0.1 it plays the most visited of the moves the net allows."""
    b = Board.from_ascii(CAPTURE, to_move=WHITE)
    weights = {G5: 0.001}
    chosen = {}
    for share in (0.0, 0.1):
        s = Search(cfg("search.playouts=2000", "search.early_stop=false", f"search.min_prior={share}"),
                   evaluator=ScriptedEvaluator(weights))
        s.set_position(b, 7.0)
        r = s.run()
        an = s.analysis()
        top = max(d["prior"] for d in an)
        assert an[0]["move"] == G5 and an[0]["prior"] < 0.01 * top     # the search's favourite either way
        allowed = [d for d in an if d["prior"] >= share * top and d["visits"] > 0]
        assert r.move == allowed[0]["move"]
        chosen[share] = r.move
    assert chosen[0.0] == G5 and chosen[0.1] != G5


def test_priors_steer_visits():
    ev = ScriptedEvaluator({40: 100.0})
    s = Search(cfg("search.playouts=1500", "uct.cnn_strength=200"), evaluator=ev)
    s.set_position(Board(9), 7.0)
    r = s.run()
    assert r.move == 40
    an = s.analysis()
    assert an[0]["move"] == 40 and an[0]["prior"] > 0.5
    assert ev.calls >= 1


def test_expert_priors_reach_every_node():
    """prior.evaluator = expert at every node: the priors table grows past
    its first allocation, up to the nodes of the search, and never past the
    pool (dcnn_nodes far above the pool size is safe)."""
    from engine.evaluator import ExpertEvaluator
    s = Search(cfg("search.tree=uct", "search.playouts=1500", "search.early_stop=false", "uct.cnn_strength=20",
                   "prior.evaluator=expert", "prior.dcnn_nodes=all"), evaluator=ExpertEvaluator())
    b = Board(9)
    s.set_position(b, 7.0)
    r = s.run()
    assert r.playouts == 1500 and s.tree.prior_nodes > 1000
    small = Search(cfg("search.tree=uct", "search.playouts=400", "search.early_stop=false", "pool.pool_size=300",
                       "prior.evaluator=expert", "prior.dcnn_nodes=all"), evaluator=ExpertEvaluator())
    small.set_position(b, 7.0)
    small.run()
    assert small.tree.prior_nodes <= 301


def test_expert_priors_find_the_capture():
    """The capture of a chain in atari is the most favoured move; 10
    simulations with the expert priors already choose it."""
    from engine.evaluator import ExpertEvaluator
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
    pr, feats = ExpertEvaluator().evaluate([b])
    cap = 6 * 9 + 4                     # the white stone's last liberty (x 4, y 6)
    assert feats is None and abs(pr[0].sum() - 1) < 1e-5
    assert pr[0].argmax() == cap
    s = Search(cfg("search.playouts=10", "search.early_stop=false", "prior.evaluator=expert",
                   "prior.dcnn_nodes=all"), evaluator=ExpertEvaluator())
    s.set_position(b, 7.0)
    assert s.run().move == cap


def test_tree_reuse_keeps_counts():
    s = Search(cfg("search.playouts=4000"))
    b = Board(9)
    s.set_position(b, 7.0)
    s.run()
    best = s.analysis()[0]
    reply_visits = best["N"]
    b.play(best["move"])
    assert s.set_position(b, 7.0) is True
    # the new root carries the visits the child had
    assert abs(s.tree.node(s.tree.root_id)["N"] - reply_visits) < 1e-6
    s.tree.check_invariants()


def test_time_budget_and_stop():
    s = Search(cfg("search.playouts=100000000", "search.early_stop=false"))
    s.set_position(Board(9), 7.0)
    r = s.run(playouts=None, seconds=0.3)
    assert r.stopped_by == "time" and 0 < r.playouts < 100000000
    import threading
    ev = threading.Event()
    ev.set()
    r = s.run(playouts=10**8, stop_event=ev)
    assert r.stopped_by == "interrupt"


def test_early_stop_when_decided():
    """With one move far ahead the search stops once the runner-up cannot
    catch up in the budget left; without early stop it spends it all."""
    b = Board.from_ascii(CAPTURE, to_move=WHITE)
    s = Search(cfg("search.playouts=20000"))
    s.set_position(b, 7.0)
    r = s.run()
    assert r.stopped_by == "early" and r.move == G5
    assert r.playouts < 12000
    first, second = s._top_two()
    assert first - second > 20000 - r.playouts
    s = Search(cfg("search.playouts=4000", "search.early_stop=false"))
    s.set_position(b, 7.0)
    r = s.run()
    assert r.stopped_by == "budget" and r.playouts == 4000


def test_resign_when_hopeless():
    # black has one stone against a white wall; komi 7: hopeless for black
    b = Board.from_ascii("""
        .........
        .OOOOOOO.
        .O.....O.
        .O.....O.
        .O..X..O.
        .O.....O.
        .O.....O.
        .OOOOOOO.
        .........""", to_move=BLACK)
    s = Search(cfg("search.playouts=3000", "search.resign_threshold=0.1", "search.resign_min_visits=500"))
    s.set_position(b, 7.0)
    assert s.run().move == RESIGN


def test_bad_budgets_rejected():
    s = Search(cfg())
    s.set_position(Board(9), 7.0)
    with pytest.raises(ValueError):
        s.run(playouts=0)
    with pytest.raises(ValueError):
        s.run(playouts=None, seconds=-1)
    with pytest.raises(ValueError):
        bare_tree(9, 1, "recycle")
    with pytest.raises(config.ConfigError, match="pool.pool_size"):
        config.load(None, ["pool.pool_size=1"])
    with pytest.raises(config.ConfigError, match="pool.full_policy"):
        config.load(None, ["pool.full_policy=lru"])


def test_uct_tree_rave_keeps_amaf_statistics():
    """uct.rave (search.tree = uct) gathers AMAF statistics at the root,
    which rate the capture highest; without it there are none."""
    b = Board.from_ascii(CAPTURE, to_move=WHITE)
    s = Search(cfg("search.tree=uct", "uct.rave=true", "search.playouts=1000", "search.early_stop=false"))
    s.set_position(b, 7.0)
    r = s.run()
    # the most visited board move (a pass among them is the Player's to judge: Endgame.decide)
    assert next(d["move"] for d in s.analysis() if d["move"] != 81) == G5 and r.playouts == 1000
    amaf = {m: aw / an for m, (_, _, an, aw) in s.tree.child_priors().items() if an >= 50}
    assert len(amaf) > 20 and max(amaf, key=amaf.get) == G5 and amaf[G5] > 0.9
    s = Search(cfg("search.tree=uct", "uct.rave=false", "search.playouts=300"))
    s.set_position(b, 7.0)
    s.run()
    assert all(an == 0 for _, _, an, _ in s.tree.child_priors().values())


def test_uct_tree_puct_follows_the_prior():
    """uct.policy = puct (search.tree = uct) spends its visits where the
    prior points: on the capture when the prior favours it, and several
    times more on the corner when the prior moves there."""
    b = Board.from_ascii(CAPTURE, to_move=WHITE)

    def visits(weights):
        s = Search(cfg("search.tree=uct", "uct.policy=puct", "search.playouts=1000",
                       "search.early_stop=false", "uct.cnn_strength=0"),
                   evaluator=ScriptedEvaluator(weights))
        s.set_position(b, 7.0)
        r = s.run()
        assert r.playouts == 1000
        return r.move, {d["move"]: d["visits"] for d in s.analysis()}

    move, on_capture = visits({G5: 20.0})
    assert move == G5 and on_capture[G5] > 300
    _, on_corner = visits({0: 20.0})
    assert on_corner[0] > 3 * on_capture.get(0, 0) and on_corner[G5] < on_capture[G5]


def test_board_pickles():
    import pickle
    b = Board(9)
    for m in (40, 41, 81):
        b.play(m)
    c = pickle.loads(pickle.dumps(b))
    assert c.to_ascii() == b.to_ascii() and c.hash == b.hash and c._history() == b._history()
    assert c.legal_moves() == b.legal_moves() and c.last_moves == b.last_moves


def test_mmcts_memory_hooks():
    import dataclasses
    from engine.config import MemoryConfig
    from engine.memory import Memory
    ev = ScriptedEvaluator(features=64)
    mem = Memory(dataclasses.replace(MemoryConfig(), memory_size=500, M=10, tau=0.1, D=128, **PAPER_MEMORY_CFG), 64)
    s = Search(cfg("search.tree=uct", "search.playouts=300", "memory.enabled=true", *PAPER_MEMORY, "prior.dcnn_nodes=50"),
               evaluator=ev, memory=mem)
    s.set_position(Board(9), 7.0)
    s.run()
    # every new node was added to the memory and its V_M backed up to the root
    assert len(mem) > 100
    root = s.tree.node(s.tree.root_id)
    assert root["NM"] > 0 and 0.0 <= root["VM"] <= 1.0
    kids = [s.tree.node(c[-1]) for c in s.tree.children()]
    assert any(k["NM"] > 0 for k in kids)
    st = mem.stats()
    assert st["queries"] > 100
    s.clear()
    assert len(mem) == 0


@pytest.mark.parametrize("keep", ["game", "search"])
def test_memory_keep_search_empties_the_memory_at_a_new_position(keep):
    """memory.keep = search: the memory holds this search's entries only
    (a new position empties it, the same position asked again does not);
    game (the default) keeps every search's entries until clear_board."""
    import dataclasses
    from engine.config import MemoryConfig
    from engine.memory import Memory
    ev = ScriptedEvaluator(features=64)
    mem = Memory(dataclasses.replace(MemoryConfig(), memory_size=2000, M=10, tau=0.1, D=128, **PAPER_MEMORY_CFG), 64)
    s = Search(cfg("search.tree=uct", "search.playouts=200", "memory.enabled=true", *PAPER_MEMORY,
                   "prior.dcnn_nodes=50", f"memory.keep={keep}"), evaluator=ev, memory=mem)
    b = Board(9)
    s.set_position(b, 7.0)
    s.run()
    first = len(mem)
    assert first > 50
    s.set_position(b, 7.0)                      # the same position again: nothing forgotten
    assert len(mem) == first
    b.play(b.legal_moves()[40])
    s.set_position(b, 7.0)
    assert len(mem) == (first if keep == "game" else 0)
    s.run()
    assert len(mem) > (first if keep == "game" else 50)


def test_mmcts_memory_nodes_bounds_adds_and_syncs():
    import dataclasses
    from engine.config import MemoryConfig
    from engine.memory import Memory
    ev = ScriptedEvaluator(features=64)
    mem = Memory(dataclasses.replace(MemoryConfig(), memory_size=500, M=10, tau=0.1, D=128, **PAPER_MEMORY_CFG), 64)
    s = Search(cfg("search.tree=uct", "search.playouts=400", "memory.enabled=true", *PAPER_MEMORY, "prior.dcnn_nodes=30",
                   "memory.nodes=30", "search.early_stop=false"), evaluator=ev, memory=mem)
    s.set_position(Board(9), 7.0)
    s.run()
    # only the first 30 new nodes of the search reached the memory
    assert 25 <= len(mem) <= 30 + s.cfg.search.batch_size
    assert mem.stats()["queries"] == len(mem)
    # after the search every stored position's entry holds its nodes' final
    # real N and V (their own simulations, never the prior's virtual visits),
    # summed over the nodes of that position (a transposition merges)
    with_prior = 0
    for key, nodes in s.ask.key_nodes.items():
        sts = [s.tree.node(n) for n in nodes]
        V, N = mem.value_of(key)
        with_prior += sum(st["N0"] > 0 for st in sts)
        n, w = sum(st["N"] for st in sts), sum(st["W"] for st in sts)
        if n > 0:
            assert N == n and abs(V - w / n) < 1e-6
        else:
            assert N == 0 and V == 0.5
    assert with_prior > 0         # the priors were there to be left out
    # a bad value names the key
    with pytest.raises(Exception, match="memory.nodes"):
        cfg("memory.nodes=-1")


def test_mmcts_confidence_scales_nm_by_closest_match():
    """memory.confidence: N_M shrinks by exp((max cos - 1) / tau), so the
    root gathers less memory weight than without it, never more."""
    import dataclasses
    from engine.config import MemoryConfig
    from engine.memory import Memory
    got = {}
    for conf in (False, True):
        ev = ScriptedEvaluator(features=64)
        mem = Memory(dataclasses.replace(MemoryConfig(), memory_size=500, M=10, tau=0.1, D=128, **PAPER_MEMORY_CFG), 64)
        s = Search(cfg("search.tree=uct", "search.playouts=300", "memory.enabled=true", *PAPER_MEMORY, "prior.dcnn_nodes=50",
                       "search.early_stop=false", f"memory.confidence={str(conf).lower()}"),
                   evaluator=ev, memory=mem)
        s.set_position(Board(9), 7.0)
        s.run()
        got[conf] = s.tree.node(s.tree.root_id)["NM"]
        assert -2.0 <= mem.last_max_cos <= 1.0 + 1e-6
    assert got[False] > 0 and got[True] < got[False]


def _memory_search(*sets, playouts=300, batch=None):
    import dataclasses
    from engine.config import MemoryConfig
    from engine.memory import Memory
    ev = ScriptedEvaluator(features=64)
    mem = Memory(dataclasses.replace(MemoryConfig(), memory_size=5000, M=10, tau=0.1, D=128, **PAPER_MEMORY_CFG), 64)
    extra = [f"search.batch_size={batch}"] if batch else []
    s = Search(cfg("search.tree=uct", f"search.playouts={playouts}", "memory.enabled=true", *PAPER_MEMORY,
                   "prior.dcnn_nodes=50", "search.early_stop=false", *extra, *sets), evaluator=ev, memory=mem)
    return s, mem, ev


@pytest.mark.parametrize("schedule", ["share", "capped"])
def test_mmcts_lambda_schedule(schedule):
    """(1 - lambda_s) V + lambda_s V_M with the configured schedule, read
    back from the value in-tree selection uses."""
    s, mem, _ = _memory_search("memory.lambda_c=20", f"memory.lambda_schedule={schedule}")
    s.set_position(Board(9), 7.0)
    s.run()
    checked = 0
    for *_, c in s.tree.children():
        st = s.tree.node(c)
        if st["N"] <= 0 or st["NM"] <= 0:
            continue
        n, nm = st["N"] + st["N0"], st["NM"]
        if schedule == "share":
            lam = nm / (nm + n + 20.0)
        else:
            lam = min(nm, 20.0) / (min(nm, 20.0) + n)
        want = (1 - lam) * (st["W"] + st["W0"]) / n + lam * st["VM"]
        assert s.tree.value(c) == pytest.approx(want, abs=1e-9)
        assert s.tree.memory_lambda(c) == pytest.approx(lam, abs=1e-9)
        checked += 1
    assert checked > 3
    with pytest.raises(Exception, match="memory.lambda_schedule"):
        cfg("memory.lambda_schedule=linear")
    with pytest.raises(Exception, match="memory.lambda_schedule"):
        cfg("memory.lambda_schedule=nm")      # renamed: share


def test_mmcts_capped_lambda_decays_with_the_nodes_own_visits():
    """The paper's lambda_s is "a decay parameter to guarantee no bias
    asymptotically": under the shipped schedule (capped) the memory's
    weight at a node is at most c / (c + N), so the busiest root child's
    falls tenfold from 300 simulations to 3,000; under share it grows to
    1/2 and more (N_M grows with the subtree).  No prior visits here (cnn_strength
    0), so that N counts the search alone."""
    lam = {}
    for schedule in ("capped", "share"):
        for playouts in (300, 3000):
            s, _, _ = _memory_search("memory.lambda_c=20", f"memory.lambda_schedule={schedule}",
                                     "uct.cnn_strength=0", playouts=playouts)
            s.set_position(Board(9), 7.0)
            s.run()
            kids = [c[-1] for c in s.tree.children()]
            best = max(kids, key=lambda c: s.tree.node(c)["N"])
            st = s.tree.node(best)
            assert st["NM"] > 0
            lam[schedule, playouts] = s.tree.memory_lambda(best)
            if schedule == "capped":
                for c in kids:
                    t = s.tree.node(c)
                    assert s.tree.memory_lambda(c) <= 20.0 / (20.0 + t["N"] + t["N0"]) + 1e-12
    assert lam["capped", 3000] < lam["capped", 300] / 10 and lam["capped", 3000] < 0.05
    assert lam["share", 3000] > 0.4 and lam["share", 3000] >= lam["share", 300]


def test_mmcts_no_memory_entry_written_or_read_under_virtual_loss():
    """The uct tree evaluates its new leaves in batches under virtual loss;
    the memory's add, query and update run only once the batch has backed
    up, so a new leaf enters with its real statistics (here: its one
    rollout), never the virtual loss's V = 0, N = 1."""
    s, mem, _ = _memory_search(batch=8)
    seen = []
    for name in ("add_phi", "update", "query"):
        orig = getattr(mem, name)

        def spy(*a, _orig=orig, _name=name, **k):
            seen.append((_name, s.tree.batch_pending))
            return _orig(*a, **k)
        setattr(mem, name, spy)
    adds = []
    orig_step = s.ask.memory_step

    def step(node, board, zeta):
        orig_step(node, board, zeta)
        adds.append((node, s.tree.node(node)["N"], mem.value_of(board.hash)))
    s.ask.memory_step = step
    s.set_position(Board(9), 7.0)
    s.run()
    assert len(seen) > 300 and {p for _, p in seen} == {0}
    new_leaves = [(n, N, e) for n, N, e in adds if n != s.tree.root_id]
    assert len(new_leaves) > 100
    # the leaf's own rollout is in its entry: wins as well as losses
    assert all(N >= 1 for _, N, _ in new_leaves)
    assert 0.2 < sum(e[0] for *_, e in new_leaves) / len(new_leaves) < 0.8


def test_mmcts_exact_position_counts_and_readding_merges():
    """The state's own entry counts in its query (as tau -> 0 the memory is
    a transposition table), and adding a stored state again merges its
    statistics with the new node's instead of wiping them."""
    s, mem, ev = _memory_search()
    b = Board(9)
    s.set_position(b, 7.0)
    _, feats = ev.evaluate([b], want_features=True)
    mem.add(b.hash, feats[0], 0.9, 1000)      # an earlier search's root, say
    root = s.tree.root_id
    s.ask.memory_step(root, b, feats[0])
    V, N = mem.value_of(b.hash)
    assert N == 1000 and V == pytest.approx(0.9)     # merged with the new root's 0 visits
    st = s.tree.node(root)
    assert st["NM"] == pytest.approx(1000, rel=1e-6) and st["VM"] == pytest.approx(0.9, abs=1e-6)


def test_root_respects_positional_superko():
    from tests.unit.test_board import KO, pt
    b = Board.from_ascii(KO, to_move=BLACK)
    b.play(pt("D2"), BLACK)
    b.play(81, WHITE)
    b.play(81, BLACK)
    assert b.illegal_reason(pt("C2"), WHITE) == "superko"
    s = Search(cfg("search.playouts=3000", "prior.evaluator=none"))
    s.set_position(b, 7.0)
    s.run()
    assert pt("C2") not in [d["move"] for d in s.analysis()]


def test_ensemble_decides_on_summed_visits():
    s = Search(cfg("search.tree=uct", "search.playouts=600", "search.early_stop=false", "prior.evaluator=none",
                   "pool.pool_size=40", "pool.full_policy=ensemble"))
    s.set_position(Board(9), 7.0)
    r = s.run()
    an = s.analysis()
    # the trees were discarded but their root visits still count (a stunted
    # simulation at each reset reaches no child)
    assert sum(d["visits"] for d in an) >= 560
    assert r.move == an[0]["move"] and r.visits >= 560


def test_no_noise_pass_on_an_open_board():
    # 500 playouts over 362 root moves: a pass that won its few playouts
    # must not be played while the board is open
    s = Search(cfg("search.playouts=500", "prior.evaluator=none", "search.early_stop=false"))
    b = Board(19)
    for _ in range(3):
        s.set_position(b, 7.5)
        r = s.run()
        assert r.move != 361
        b.play(r.move)


def test_safe_pass_rules():
    """The one pass decision (Endgame.decide, after the search): the
    search's pass stands only when meant; after the opponent's pass,
    passing ends the game, so only when the count wins."""
    from engine.endgame import Endgame

    def decide(board, rows, move=81):
        return Endgame(board, 7.0, 30, 1).decide(board.to_move, move, rows)
    b = Board(9)
    noisy = [{"move": 81, "visits": 3, "winrate": 1.0}, {"move": 40, "visits": 2, "winrate": 0.6}]
    assert Endgame(b, 7.0, 30, 1).safe_pass(noisy) == 40
    sure = [{"move": 81, "visits": 400, "winrate": 0.9}, {"move": 40, "visits": 100, "winrate": 0.6}]
    assert Endgame(b, 7.0, 30, 1).safe_pass(sure) == 81
    # after the opponent's pass, passing ends the game: only if the area score wins
    b.play(81)                      # white to move, empty board, komi 7: white wins by passing
    assert Endgame(b, 7.0, 30, 1).safe_pass(sure) == 81
    assert decide(b, sure, move=40) == 81          # pass_when_won: over the search's board move
    b2 = Board(9)
    b2.play(40)
    b2.play(81, WHITE)              # black to move after white's pass; black leads 81 - 7
    assert Endgame(b2, 7.0, 30, 1).safe_pass(sure) == 81
    b3 = Board(9)
    b3.play(40, BLACK)
    b3.play(81, BLACK)              # white to move after black's pass: white would lose by passing
    assert Endgame(b3, 7.0, 30, 1).safe_pass(sure) == 40
    assert decide(b3, sure) == 40


def test_tree_counts_rollout_moves():
    # capped rollouts from the empty 9x9 board run exactly the cap
    s = Search(cfg("search.playouts=200", "search.early_stop=false", "search.max_rollout_moves=5"))
    s.set_position(Board(9), 7.0)
    r = s.run()
    st = s.tree.stats()
    assert st["sims"] == r.playouts and st["rollout_moves"] == 5 * st["sims"]
    # uncapped, a rollout fills the board: far more moves than the tree's depth
    s = Search(cfg("search.playouts=200", "search.early_stop=false"))
    s.set_position(Board(9), 7.0)
    s.run()
    st = s.tree.stats()
    assert 60 < st["rollout_moves"] / st["sims"] < 3 * 81


def _moggy_tree(s, size=9):
    s.set_position(Board(size), 7.5)
    s.run(playouts=400)
    return sorted((int(m), float(n)) for m, n, *_ in s.tree.children())


def test_moggy_rates_belong_to_each_search():
    """Two engines built in one process keep their own [moggy] rates:
    the side built last no longer sets them for both."""
    from engine.factory import make_search
    sets = ["search.rollout=moggy", "search.tree=rave", "prior.evaluator=none", "search.early_stop=false"]
    a = cfg(*sets, "moggy.pattern=0.0", "moggy.capture=0.0", "moggy.selfatari=0.0")
    b = cfg(*sets)
    alone = _moggy_tree(make_search(a))
    other = _moggy_tree(make_search(b))
    assert alone != other                       # the rates change the tree
    sa = make_search(a)
    make_search(b)                              # built last
    assert _moggy_tree(sa) == alone


def test_a_seed_replays_the_search_with_the_net():
    """Under a playout budget the search's chunks do not follow the clock,
    so the net's priors arrive at the same simulations: a seed replays."""
    import os
    from engine.factory import load_evaluator, make_search
    from tests.conftest import ROOT
    c = config.load(os.path.join(ROOT, "configs", "9x9.toml"), ["search.seed=4", "search.seconds=0",
                                                               "search.early_stop=false"])

    def tree():
        s = make_search(c, load_evaluator(c, 9))
        s.set_position(Board(9), 7.0)
        s.run(playouts=800)
        return sorted((m, n) for m, n, *_ in s.tree.children())
    assert tree() == tree()


@pytest.mark.parametrize("unclear,why", [(True, "extended"), (False, "time")])
def test_an_unclear_move_thinks_on_to_its_extension(monkeypatch, unclear, why):
    """The clock is the search's own reading of time, here one that moves
    10 ms a reading whatever the machine does: a stall cannot jump past
    the extension."""
    import types
    from engine import search as search_mod
    now = [0.0]

    def perf_counter():
        now[0] += 0.01
        return now[0]
    monkeypatch.setattr(search_mod, "time", types.SimpleNamespace(perf_counter=perf_counter, time=lambda: 1.0))
    s = Search(cfg("search.playouts=100000000", "search.early_stop=false"))
    monkeypatch.setattr(Search, "_unclear", lambda self: unclear)
    s.set_position(Board(9), 7.0)
    r = s.run(playouts=None, seconds=0.05, extend_to=0.15)
    assert r.stopped_by == why
    # the fake clock's seconds (10 ms a reading), not the wall clock: a busy machine cannot move them
    assert (0.15 if unclear else 0.05) <= r.seconds <= (0.15 if unclear else 0.05) + 0.03


def test_unclear_reads_the_two_most_visited_and_the_best_valued():
    s = Search(cfg("search.playouts=2000", "search.early_stop=false"))
    s.set_position(Board(5), 7.0)
    s.run()
    ch = sorted(((c[1], c[2] / c[1]) for c in s.tree.children() if c[1] > 0), reverse=True)
    (n1, q1), (n2, _) = ch[0], ch[1]
    expect = n2 * 1.5 > n1 or max(q for n, q in ch if n >= 0.1 * n1) > q1 + 0.02
    assert s._unclear() == expect


class _ValueEvaluator:
    """Uniform priors and a value head that says the side to move wins
    with probability 0.9 everywhere."""
    has_value = True
    has_aux = False

    def evaluate(self, boards, want_features=False):
        import numpy as np
        n = boards[0].size ** 2 + 1
        return np.full((len(boards), n), 1.0 / n, np.float32), None

    def evaluate_all(self, boards, want_features=False, want_lead=False):
        import numpy as np
        pr, ft = self.evaluate(boards, want_features)
        return pr, ft, np.full(len(boards), 0.9, np.float32)


def test_uct_tree_mixes_the_value_of_the_leaf_it_evaluated():
    """The uct tree with the net at every new leaf and search.value_lambda
    = 1 (AlphaGo Zero's evaluation): each simulation's result is the
    value head's answer at its own leaf (0.9 for the side to move there,
    so 0.1 or 0.9 for Black), never a rollout's 0 or 1.  Before, the uct
    tree never asked for a value, and the same settings ran on rollouts."""
    s = Search(cfg("search.tree=uct", "uct.policy=puct", "prior.dcnn_nodes=all", "search.value_lambda=[1.0]",
                   "search.playouts=200", "search.early_stop=false"), evaluator=_ValueEvaluator())
    s.set_position(Board(9), 7.0)
    s.run()
    kids = [(n, w) for _m, n, w, *_ in s.tree.children() if n > 0]
    assert sum(n for n, _ in kids) >= 190
    for n, w in kids:
        k = (w - 0.1 * n) / 0.8            # simulations that ended at a leaf with Black to move
        assert abs(k - round(k)) < 1e-3 and 0 <= round(k) <= n
    # a leaf's value as a share of the result: (1 - lambda) rollout + lambda value
    s2 = Search(cfg("search.tree=uct", "prior.dcnn_nodes=all", "search.value_lambda=[0.5]",
                    "search.playouts=200", "search.early_stop=false"), evaluator=_ValueEvaluator())
    s2.set_position(Board(9), 7.0)
    s2.run()
    assert any(abs(w * 20 - round(w * 20)) < 1e-3 and abs(w - round(w)) > 1e-3
               for _m, n, w, *_ in s2.tree.children() if n > 0)


def test_puct_fpu_reduction_narrows_the_search():
    """uct.fpu_reduction (Leela Zero's first-play urgency): an unvisited
    child's value is the parent's less the reduction times the square root
    of the prior already visited, so a search under it tries fewer of the
    root's moves than one whose unvisited children take the parent's value
    (0, the default: every child of equal prior is tried before any twice)."""
    def tried(reduction):
        s = Search(cfg("search.tree=uct", "uct.policy=puct", "prior.dcnn_nodes=all", "search.value_lambda=[1.0]",
                       f"uct.fpu_reduction={reduction}", "search.playouts=200", "search.early_stop=false"),
                   evaluator=_ValueEvaluator())
        s.set_position(Board(9), 7.0)
        s.run()
        return sum(1 for _m, n, *_ in s.tree.children() if n > 0)
    wide, narrow = tried(0.0), tried(0.5)
    assert wide >= 60, wide
    assert narrow * 3 <= wide, (narrow, wide)
