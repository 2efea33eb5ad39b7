"""net.root_symmetries: the root's priors (and the raw net's move) as the
mean of the net's answer over the board's symmetries."""
import numpy as np
import pytest
import torch

from board_ext.board import Board
from nets.evaluator import Evaluator
from nets.model import ModelConfig, GoNet

N = 9


def _root_search(ev, board, tree, k, playouts, *more):
    from engine import config
    from engine.search import Search
    s = Search(config.load(None, [f"search.tree={tree}", "search.rollout=random", "search.seed=7",
                                  f"search.playouts={playouts}", "search.early_stop=false", "player.book=false",
                                  "prior.evaluator=net", "search.value_lambda=[0.0]",
                                  f"net.root_symmetries={k}", *more]), evaluator=ev)
    s.set_position(board, 7.0)
    s.run()
    return s


@pytest.mark.parametrize("tree", ["rave", "uct"])
def test_root_symmetries_give_the_root_the_mean_over_the_boards_symmetries(tree):
    """net.root_symmetries = 8: the root's priors are the mean of the net's
    answer over the board's eight symmetries (KataGo's
    rootNumSymmetriesToSample), where 1 gives the board as it stands; in
    the rave tree each child's prior wins move with its prior, and a root
    the search reuses (its priors asked when it was a child) gets the mean
    as well."""
    torch.manual_seed(3)
    net = GoNet(ModelConfig.tiny(N, value_head=True))
    with torch.no_grad():
        net.fc.weight.mul_(200)                             # a policy far from uniform
    ev = Evaluator(net, cache_size=0)
    b = Board(N)
    for p in (10, 20, 41):
        b.play(p)
    want = {k: ev.raw(b, range(k))["policy"] for k in (1, 8)}
    assert np.abs(want[1] - want[8]).max() > 0.01          # the tiny net is not symmetric
    # the uct tree makes a root child a visit: enough visits that most have one
    searches = {k: _root_search(ev, b, tree, k, 1 if tree == "rave" else 300) for k in (1, 8)}
    for k, s in searches.items():
        priors = {d["move"]: d["prior"] for d in s.analysis()}
        assert any(abs(want[1][m] - want[8][m]) > 0.01 for m in priors)     # a move that tells them apart
        for move, p in priors.items():
            assert abs(p - want[k][move]) < 2e-3, (k, move)
    if tree != "rave":
        return
    n0 = {k: {ch[0]: s.tree.node(ch[6])["N0"] for ch in s.tree.children()} for k, s in searches.items()}
    moved = [(np.sign(n0[8][m] - n0[1][m]), np.sign(np.sqrt(want[8][m]) - np.sqrt(want[1][m])))
             for m in n0[1] if m != N * N and abs(np.sqrt(want[8][m]) - np.sqrt(want[1][m])) > 0.01]
    assert len(moved) > 5 and all(a == b for a, b in moved)
    # a reused root: a long search, the move it likes, then the position after it
    s = _root_search(ev, b, tree, 8, 400, "rave.net_visits=2")
    move = max(s.tree.children(), key=lambda ch: ch[1])[0]
    nb = b.copy()
    nb.play(move)
    s.set_position(nb, 7.0)
    assert s.tree.has_net_priors(s.tree.root_id)            # asked when it was a child: the board as it stood
    s.run(playouts=1)
    mean = ev.raw(nb, range(8))["policy"]
    for d in s.analysis():
        assert abs(d["prior"] - mean[d["move"]]) < 2e-3


def test_the_raw_net_reads_the_root_symmetries_too():
    """net.rawnet with net.root_symmetries = 8 plays the most probable move
    of the mean over the eight symmetries, not of the board as it stands."""
    from engine import config, factory
    torch.manual_seed(3)
    net = GoNet(ModelConfig.tiny(N, value_head=True))
    with torch.no_grad():
        net.fc.weight.mul_(200)
    ev = Evaluator(net, cache_size=0)
    b = Board(N)
    for p in (10, 20, 41):
        b.play(p)
    best = {k: int(np.argmax(ev.raw(b, range(k))["policy"])) for k in (1, 8)}
    assert best[1] != best[8]
    for k in (1, 8):
        cfg = config.load(None, ["net.rawnet=true", f"net.root_symmetries={k}"])
        assert factory.Nets(lambda: cfg, factory=lambda size: ev).raw_move(b) == best[k]


def test_symmetry_all_reads_every_board_in_all_eight_orientations():
    """net.symmetry = all: each board of a batch is the mean of the net's
    answer over the eight symmetries (priors over the legal moves, value,
    lead) as Evaluator.raw gives it; the features stay the board's own."""
    from engine import config, factory
    torch.manual_seed(4)
    net = GoNet(ModelConfig.tiny(N, value_head=True, aux_heads=True))
    with torch.no_grad():
        net.fc.weight.mul_(200)
    ev = Evaluator(net, cache_size=0, symmetry="all")
    plain = Evaluator(net, cache_size=0)
    boards = [Board(N)]
    for p in (10, 20, 41):
        boards.append(boards[-1].copy())
        boards[-1].play(p)
    pri, feats, val, lead = ev.evaluate_all(boards, want_features=True, want_lead=True)
    p0, f0, v0 = plain.evaluate_all(boards, want_features=True)
    assert np.abs(pri - p0).max() > 0.01                     # not the board as it stands
    for i, b in enumerate(boards):
        want = plain.raw(b, range(8))
        assert np.allclose(pri[i], want["policy"], atol=1e-5)
        assert abs(float(val[i]) - want["value"]) < 1e-5 and abs(float(lead[i]) - want["lead"]) < 1e-4
    assert np.allclose(feats, f0, atol=1e-6)
    assert factory.load_evaluator(config.load(None, ["net.symmetry=all", "prior.evaluator=net"]), 9).symmetry == "all"
