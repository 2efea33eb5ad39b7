"""Threads on one tree (engine/walk.pyx simulate_threads, search.threads):
the tree's invariants after every search under stress, the modes that
cannot run threaded named, one thread unchanged (the fingerprints in
tests/unit/test_tree_fingerprint.py cover the trees), and the speed-up measured
in bench/threads.py, not here."""
import random

import pytest

from board_ext.board import Board
from engine import config, factory
from engine.config import ConfigError
from engine.search import search_threads
from engine.factory import bare_tree


def cfg(*sets):
    return config.load(None, ["search.seed=11", "prior.evaluator=none"] + list(sets))


def test_threads_run_the_simulations_asked_and_keep_the_tree_whole():
    for threads in (2, 3, 5):
        t = bare_tree(9, 200000, "recycle", seed=threads)
        t.configure(rollout="expert", tree="rave")
        t.set_params("rave", dict(t.params("rave"), rave=True, expand_visits=2, virtual_loss=1.0))
        t.set_root(Board(9))
        t.expand_root()
        assert t.simulate_threads(3000, threads) == 3000
        assert t.check_invariants() == t.n_used
        assert sum(c[1] for c in t.children()) == pytest.approx(3000, abs=1)   # every simulation passed a child


def test_a_full_pool_stops_the_expansions_not_the_search():
    t = bare_tree(9, 500, "recycle", seed=3)
    t.configure(rollout="random", tree="rave")
    t.set_params("rave", dict(t.params("rave"), rave=True, expand_visits=1, virtual_loss=1.0))
    t.set_root(Board(9))
    t.expand_root()
    assert t.simulate_threads(4000, 4) == 4000
    assert t.n_used <= 500 and t.stats()["recycled"] == 0
    assert t.check_invariants() == t.n_used


def test_stress_many_short_searches_with_reuse_analysis_and_the_net():
    """Many short searches on 2 threads and on more threads than cores: a
    small pool that runs out, the tree kept across moves (reuse), analysis
    between searches, the net's request queue (the shipped 9x9 net); the
    invariants hold after each.  bench/threads.py --stress runs 1,000."""
    rnd = random.Random(5)
    ev = factory.load_evaluator(cfg("prior.evaluator=net"), 9)
    for threads, pool in ((2, 3000), (6, 40000)):
        s = factory.make_search(cfg(f"search.threads={threads}", f"pool.pool_size={pool}",
                                    "search.early_stop=false", "prior.dcnn_nodes=20", "rave.net_visits=4",
                                    "rave.expand_visits=2"), ev)
        assert s.threads == threads
        b = Board(9)
        for i in range(30):
            s.set_position(b, 7.0)
            r = s.run(playouts=rnd.choice((50, 200, 700)))
            assert s.tree.check_invariants() == s.tree.n_used
            rows = s.analysis()
            assert rows and sum(x["visits"] for x in rows) <= s.tree.node(s.tree.root_id)["N"] + 1e-3
            legal = [m for m in b.legal_moves()] + [81]
            b = b.copy()
            b.play(r.move if r.move in legal and rnd.random() < 0.8 else rnd.choice(legal))
            if b.passes >= 2:
                b = Board(9)
        assert s.ask.nets_asked > 0


def test_modes_that_cannot_run_threaded_are_named():
    for sets, mode in ((["search.tree=uct"], "search.tree = uct"), (["search.rollout=bhrf"], "search.rollout = bhrf"),
                       (["memory.enabled=true"], "memory.enabled = true")):
        with pytest.raises(ConfigError) as e:
            cfg("search.threads=2", *sets)
        assert mode in str(e.value) and "search.threads = 1" in str(e.value)
        assert search_threads(cfg("search.threads=0", *sets)) == 1       # every core: one here
    for bad in ("search.threads=-1", "search.threads=257", "search.threads=two"):
        with pytest.raises(ConfigError) as e:
            cfg(bad)
        assert "search.threads" in str(e.value)
    t = bare_tree(9, 1000, "recycle", seed=1)
    t.configure(tree="uct")
    t.set_root(Board(9))
    with pytest.raises(RuntimeError, match=r"this tree \(uct.*engine.config.threads_refused"):    # the kernel's own guard
        t.simulate_threads(10, 2)


def test_every_core_is_the_default_unless_a_seed_asks_for_a_replay():
    """search.threads = 0 (the default): one thread a core; one where a
    seed is set, so set_random_seed still replays a game (the Player
    resolves it before it fills in its clock seed)."""
    import os
    from engine.player import Player
    assert config.load(None).search.threads == 0
    assert search_threads(config.load(None, ["search.threads=0"])) == (os.cpu_count() or 1)
    assert search_threads(cfg("search.threads=0")) == 1                 # search.seed = 11
    assert search_threads(cfg("search.threads=3")) == 3
    p = Player(config.load(None, ["gtp.boardsize=9", "prior.evaluator=none"]))
    assert p.search().threads == (os.cpu_count() or 1)
    p.set_seed(77)
    assert p.search().threads == 1
