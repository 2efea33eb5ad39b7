"""Tests of the torch side: model, data, symmetries, training, Evaluator."""

import json
import os

import numpy as np
import pytest
import torch

from board_ext.board import Board
from board_ext.features import NUM_PLANES, planes
from nets import data as D
from nets.evaluator import Evaluator, WeightsError, available_sizes, weights_path
from nets.model import ModelConfig, GoNet, masked_softmax

torch.set_num_threads(1)

N = 9
PASS = N * N
# Three real 9x9 GNU Go level-5 self-play games (data/9x9/L05_00000.npz, games
# 0-2): flat moves, and 1 where the move is a GNU Go label (0: random opening).
GAMES = [
    ([49, 10, 30, 48, 28, 12, 57, 14, 42, 24, 34, 25, 26, 17, 35, 33, 52, 31, 39, 41, 50, 16,
      19, 20, 9, 21, 1, 11, 18, 29, 37, 40, 38, 32, 2, 3, 0, 81, 81],
     [0] * 4 + [1] * 35, 5000015),
    ([40, 20, 30, 37, 47, 60, 58, 33, 46, 21, 28, 19, 32, 24, 23, 29, 42, 43, 13, 36, 1, 51,
      15, 16, 68, 6, 14, 69, 78, 79, 77, 59, 67, 41, 70, 7, 61, 52, 62, 53, 80, 27, 9, 5, 12,
      11, 2, 49, 48, 50, 4, 81, 81],
     [1] * 53, 5000016),
    ([22, 68, 52, 29, 39, 12, 13, 38, 48, 55, 66, 21, 3, 2, 4, 10, 64, 56, 57, 65, 30, 75, 76,
      74, 67, 47, 81, 81],
     [0] * 3 + [1] * 25, 5000017),
]
N_LABELS = sum(sum(lab) for _, lab, _ in GAMES)


def write_shard(path, games=GAMES, level=5):
    moves = np.concatenate([np.asarray(m, np.int16) for m, _, _ in games])
    labels = np.concatenate([np.asarray(lab, bool) for _, lab, _ in games])
    offsets = np.cumsum([0] + [len(m) for m, _, _ in games]).astype(np.int64)
    np.savez_compressed(path, moves=moves, is_label=labels, offsets=offsets,
                        seeds=np.asarray([s for _, _, s in games], np.int64),
                        size=np.int32(N), level=np.int32(level), komi=np.float32(7.0))


@pytest.fixture(scope="module")
def shard_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("shards")
    write_shard(str(d / "L05_00000.npz"))
    return str(d)


@pytest.fixture(scope="module")
def positions(shard_dir):
    return D.load_positions(shard_dir)


# -- data -----------------------------------------------------------------------

def test_positions_match_replay(shard_dir, positions):
    assert len(positions) == N_LABELS and positions.X.dtype == np.uint8
    assert positions.X.shape == (N_LABELS, NUM_PLANES, N, N)
    assert positions.levels == [5] and positions.n_games == 3 and positions.skipped_moves == 0
    # first label of game 0: the position after the 4 random moves
    b = Board(N)
    for m in GAMES[0][0][:4]:
        b.play(m)
    assert np.array_equal(positions.X[0], planes(b).astype(np.uint8))
    assert positions.y[0] == GAMES[0][0][4] and positions.game[0] == GAMES[0][2]
    # every non-pass label is an empty point of its position
    pts = positions.y < PASS
    empty = positions.X[pts, 8].reshape(-1, PASS)
    assert empty[np.arange(len(empty)), positions.y[pts]].all()
    assert (positions.y == PASS).sum() == 6
    # the cache round-trips and is used
    cache = os.path.join(shard_dir, D.CACHE_DIR, f"p{NUM_PLANES}", "L05_00000.npz")
    assert os.path.exists(cache)
    again = D.load_positions(shard_dir)
    assert np.array_equal(again.X, positions.X) and np.array_equal(again.y, positions.y)
    assert D.list_shards(shard_dir) == [os.path.join(shard_dir, "L05_00000.npz")]


def test_split_by_game_is_stable():
    g = np.arange(10000, 20000, dtype=np.int64)
    m = D.split_by_game(g, 0.1)
    assert 0.07 < m.mean() < 0.13
    assert np.array_equal(D.split_by_game(g[::3], 0.1), m[::3])   # independent of the others


# -- symmetries -------------------------------------------------------------------

def test_symmetry_planes_match_rotated_game():
    moves = GAMES[1][0][:20]
    b = Board(N)
    for m in moves:
        b.play(m)
    x = planes(b)
    perms = D.move_perms(N)
    for s in range(8):
        rb = Board(N)
        for m in moves:
            rb.play(int(perms[s, m]))
        assert np.array_equal(D.sym_grid(x, s), planes(rb)), f"symmetry {s}"
        assert perms[s, PASS] == PASS
        assert sorted(perms[s]) == list(range(PASS + 1))
    # a simple case spelled out: s=4 (transpose) sends (x=1, y=0) to (x=0, y=1)
    assert perms[4, 1] == N


def test_augmenter_keeps_label_and_planes_consistent(positions):
    from nets.train import Augmenter
    aug = Augmenter(N, np.random.default_rng(0))
    X, y = positions.X, positions.y
    syms = np.arange(len(y)) % 8
    Xa, ya = aug(X, y, syms)
    assert np.array_equal(ya[y == PASS], y[y == PASS])          # pass stays pass
    for i in range(len(y)):
        assert np.array_equal(Xa[i], D.sym_grid(X[i], syms[i]))
        if y[i] < PASS:   # the label's point is still the one the stone goes on
            yy, xx = divmod(int(y[i]), N)
            s = np.zeros((N, N), np.uint8)
            s[yy, xx] = 1
            assert D.sym_grid(s, syms[i]).reshape(-1)[ya[i]] == 1


# -- model -------------------------------------------------------------------------

def test_model_shapes_and_names():
    m = GoNet(ModelConfig(board_size=N))
    assert m.config.name == "cs7-9x9-p30" and not m.config.value_head
    names = [k for k in m.state_dict() if k.endswith(".weight")]
    assert names == [f"conv{i}.weight" for i in range(1, 8)] + ["fc.weight"]
    assert [c.weight.shape[0] for c in m.convs] == [64, 64, 64, 48, 48, 32, 32]
    assert [c.weight.shape[2] for c in m.convs] == [7, 5, 5, 5, 5, 5, 5]
    x = torch.zeros(3, NUM_PLANES, N, N)
    assert m.conv7(x).shape == (3, 32, N, N)
    assert m(x).shape == (3, N * N + 1)
    assert m.fc.weight.shape == (N * N + 1, 32 * N * N)


def test_masked_softmax():
    logits = torch.randn(2, 5)
    legal = torch.tensor([[1, 0, 1, 0, 1], [0, 0, 0, 0, 1]], dtype=torch.bool)
    p = masked_softmax(logits, legal)
    assert torch.allclose(p.sum(1), torch.ones(2))
    assert (p[~legal] == 0).all() and p[1, 4] == 1


@pytest.mark.slow
def test_tiny_net_learns(positions):
    torch.manual_seed(0)
    m = GoNet(ModelConfig.tiny(N, width=16))
    X = torch.from_numpy(positions.X[:24]).float()
    y = torch.from_numpy(positions.y[:24])
    opt = torch.optim.Adam(m.parameters(), lr=3e-3)
    losses = []
    for _ in range(30):
        loss = torch.nn.functional.cross_entropy(m(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] - 1.0, losses


def test_value_sample_takes_k_positions_of_each_game():
    from nets.train import value_sample
    game = np.repeat(np.array([7, 3, 9, 5]), [40, 2, 13, 1])
    np.random.default_rng(0).shuffle(game)
    rng = np.random.default_rng(1)
    m = value_sample(game, 3, rng)
    assert {g: int(m[game == g].sum()) for g in (7, 3, 9, 5)} == {7: 3, 3: 2, 9: 3, 5: 1}
    m2 = value_sample(game, 3, rng)        # drawn anew: another choice in the long game
    assert (m2[game == 7] != m[game == 7]).any()
    assert value_sample(game, 0, rng).all()


# -- training end to end -------------------------------------------------------------

def test_train_writes_weights_and_resumes(shard_dir, tmp_path):
    from nets.train import ConfigError, load_config, train
    with pytest.raises(ConfigError, match="'epochz'"):
        load_config(None, ["epochz=3"])
    with pytest.raises(ConfigError, match="device"):
        load_config(None, ["device='tpu'"])
    cfg = load_config(None, [f"data_dirs=['{shard_dir}']", f"test_dir='{shard_dir}'",
                             "name='9x9'", f"weights_dir='{tmp_path / 'w'}'",
                             f"checkpoint_dir='{tmp_path / 'ck'}'", "epochs=2", "batch_size=16",
                             "val_fraction=0.34", "widths=[8,8,8,8,8,8,8]",
                             "kernels=[3,3,3,3,3,3,3]", "warmup_steps=2", "precision='fp32'"])
    logs = []
    prov = train(cfg, log=logs.append)
    w = tmp_path / "w" / "9x9.pt"
    sd = torch.load(w, weights_only=True)
    assert all(v.dtype == torch.float16 for v in sd.values())
    meta = json.loads((tmp_path / "w" / "9x9.json").read_text())
    assert meta["accuracy"]["test"]["top1"] == prov["accuracy"]["test"]["top1"]
    assert meta["data"]["teacher_levels"] == [5] and meta["epochs"] == 2
    assert set(meta["accuracy"]) == {"train", "val", "test", "value_train", "value_val", "value_test"}
    assert meta["heads"] == ["policy", "value"] and meta["model_config"]["in_planes"] == NUM_PLANES
    # an incomplete checkpoint is resumed: pretend the run stopped after epoch 1
    ck = torch.load(tmp_path / "ck" / "last.pt", weights_only=False)
    assert ck["complete"]
    ck["complete"], ck["epoch"], ck["epoch_step"] = False, 1, 0
    torch.save(ck, tmp_path / "ck" / "last.pt")
    logs.clear()
    prov2 = train(cfg, log=logs.append)
    assert any(s.startswith("resumed") for s in logs), logs
    assert prov2["epochs"] == 2
    # weights of a tiny net load, with their own architecture
    ev = Evaluator.load(str(w))
    assert ev.config.widths == (8,) * 7
    with pytest.raises(WeightsError, match="differs"):
        Evaluator.load(str(w), expect_config=ModelConfig(board_size=N))


# -- evaluator -------------------------------------------------------------------------

def ko_board():
    """White to move after black's ko capture at (3, 4) took the white stone
    at (4, 4): the ko point (4, 4) is illegal for white."""
    b = Board(N)
    xy = lambda x, y: y * N + x  # noqa: E731
    b.setup(black=[xy(4, 3), xy(5, 4), xy(4, 5)], white=[xy(3, 3), xy(2, 4), xy(3, 5), xy(4, 4)])
    b.to_move = 1
    b.play(xy(3, 4))       # black captures the white stone at (4, 4)
    return b, xy(4, 4)


def test_evaluator_priors_are_legal_distributions():
    torch.manual_seed(0)
    ev = Evaluator(GoNet(ModelConfig(board_size=N)), threads=1, cache_size=8)
    kb, ko = ko_board()
    assert kb.ko == ko and not kb.is_legal(ko)
    boards = [Board(N), kb]
    b2 = Board(N)
    for m in GAMES[1][0][:30]:
        b2.play(m)
    boards.append(b2)
    pri, feats = ev.evaluate(boards, want_features=True)
    assert pri.dtype == np.float32 and pri.shape == (3, PASS + 1)
    assert feats.dtype == np.float32 and feats.shape == (3, 32 * N * N)
    assert np.allclose(pri.sum(1), 1.0, atol=1e-5)
    for b, p in zip(boards, pri):
        legal = np.zeros(PASS + 1, bool)
        legal[b.legal_moves()] = True
        legal[PASS] = True
        assert (p[~legal] == 0).all() and (p[legal] > 0).all()
    assert pri[1, ko] == 0
    # features are the Conv7 activations, flattened (C, y, x)
    from board_ext.features import planes_batch
    with torch.inference_mode():
        ref = ev.model.conv7(torch.from_numpy(planes_batch(boards))).reshape(3, -1).numpy()
    assert np.allclose(feats, ref, atol=1e-4)
    # the cache answers repeats, keyed by board.hash
    pri2, f2 = ev.evaluate([b2, Board(N)], want_features=True)
    assert np.array_equal(pri2, pri[[2, 0]]) and np.array_equal(f2, feats[[2, 0]])
    assert ev.cache_info()["hits"] == 2
    p1, none = ev.evaluate_one(kb)
    assert none is None and p1[ko] == 0


def test_evaluator_device():
    """net.device: auto follows torch; cuda without a GPU is a clear error (at
    the evaluator, and naming the key at the factory, not a silent "no
    net"); with a GPU the priors and features match the CPU's."""
    import copy
    from engine import config as C
    from engine import factory
    from nets.evaluator import resolve_device
    has_gpu = torch.cuda.is_available()
    assert resolve_device("auto") == ("cuda" if has_gpu else "cpu")
    assert resolve_device("cpu") == "cpu"
    with pytest.raises(ValueError, match="cpu, cuda or auto"):
        resolve_device("tpu")
    with pytest.raises(C.ConfigError, match="net.device"):
        C.load(None, ["net.device=tpu"])
    torch.manual_seed(0)
    model = GoNet(ModelConfig(board_size=N))
    gpu_model = copy.deepcopy(model)
    b = Board(N)
    for m in GAMES[1][0][:20]:
        b.play(m)
    p_cpu, f_cpu = Evaluator(model, cache_size=0).evaluate([b], want_features=True)
    if has_gpu:
        ev = Evaluator(gpu_model, cache_size=0, device="cuda")
        assert next(ev.model.parameters()).is_cuda
        p, f = ev.evaluate([b], want_features=True)
        assert p.dtype == np.float32 and np.allclose(p, p_cpu, atol=1e-3)
        assert np.allclose(f, f_cpu, atol=1e-3)
    else:
        with pytest.raises(ValueError, match="no CUDA device"):
            Evaluator(gpu_model, device="cuda")
        cfg = C.load(None, ["prior.evaluator=net", "net.device=cuda"])
        with pytest.raises(C.ConfigError, match="net.device"):
            factory.load_evaluator(cfg, 9)


def test_bad_weights_raise(tmp_path):
    torch.manual_seed(0)
    sd = {k: v.half() for k, v in GoNet(ModelConfig.tiny(7)).state_dict().items()}
    bad = tmp_path / "9x9.pt"
    torch.save(sd, bad)
    with pytest.raises(WeightsError, match="9x9.pt.*7x7, expected 9x9"):
        Evaluator.load(9, weights_dir=str(tmp_path))
    assert available_sizes(str(tmp_path)) == [9]
    with pytest.raises(WeightsError, match="13x13.pt"):
        Evaluator.load(13, weights_dir=str(tmp_path))
    (tmp_path / "junk.pt").write_bytes(b"not a torch file")
    with pytest.raises(WeightsError, match="junk.pt"):
        Evaluator.load(str(tmp_path / "junk.pt"))
    sd["conv3.weight"] = sd["conv3.weight"][:, :4]   # inconsistent shapes
    torch.save(sd, bad)
    with pytest.raises(WeightsError, match="conv3"):
        Evaluator.load(str(bad))


def test_import_is_light():
    import subprocess
    import sys
    code = "import sys, nets.evaluator; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize("n", [9, 19])
def test_shipped_weights_load(n):
    path = weights_path(n)
    assert os.path.exists(path), f"{path} missing: train with python -m nets.train " \
                                 f"--config configs/nets/{n}x{n}.toml"
    assert n in available_sizes()
    ev = Evaluator.load(n)
    meta = json.loads(open(os.path.splitext(path)[0] + ".json").read())
    assert ev.config == ModelConfig.from_dict(meta["model_config"]) and ev.board_size == n
    pri, feats = ev.evaluate([Board(n)], want_features=True)
    assert abs(pri.sum() - 1) < 1e-5 and feats.shape == (1, ev.config.feature_dim)
    assert meta["model"] == ev.config.name and meta["accuracy"]["val"]["top1"] > 0.15
    # provenance names no path outside the project
    assert not os.path.isabs(meta["config"]["weights_dir"])


# -- second round: the new planes, the value head, value targets -------------------

def _setup(size, black, white, to_move):
    b = Board(size, superko=False)
    b.setup([y * size + x for x, y in black], [y * size + x for x, y in white])
    b.to_move = to_move
    return b


def test_move_planes_ladders_captures_self_atari():
    from board_ext.board import BLACK, WHITE
    from board_ext.features import NUM_PLANES_V1
    s = 9
    # a black stone at (3, 3) netted on three sides by white (the ladder of
    # tests/unit/test_tactics_reader.py); white to move
    pre = _setup(s, [(3, 3)], [(2, 3), (3, 2), (4, 4)], WHITE)
    x = planes(pre)
    above, right = 4 * s + 3, 3 * s + 4
    assert x[27].reshape(-1)[above] == 1           # the atari from above works as a ladder
    assert x[27].sum() >= 1 and x[28].sum() == 0   # white has no chain in atari
    # black in atari after white's atari above: extending right runs into the ladder
    atari = _setup(s, [(3, 3)], [(2, 3), (3, 2), (4, 4), (3, 4)], BLACK)
    x = planes(atari)
    assert x[28].reshape(-1)[right] == 0
    assert x[20].reshape(-1)[right] == 1           # two liberties after the extension
    # a breaker at (6, 1) on the ladder's path: the same extension escapes
    saved = _setup(s, [(3, 3), (6, 1)], [(2, 3), (3, 2), (4, 4), (3, 4)], BLACK)
    assert planes(saved)[28].reshape(-1)[right] == 1
    # white to move in that position captures the stone: capture size 1
    cap = _setup(s, [(3, 3)], [(2, 3), (3, 2), (4, 4), (3, 4)], WHITE)
    x = planes(cap)
    assert x[25].reshape(-1)[right] == 1 and x[26].sum() == 0
    # black playing into white's mouth: a lone stone left in atari (self-atari size 1)
    mouth = _setup(s, [], [(0, 1), (1, 0), (2, 1)], BLACK)
    x = planes(mouth)
    assert x[23].reshape(-1)[1 * s + 1] == 1 and x[19].reshape(-1)[1 * s + 1] == 1
    # the move planes are 0 at occupied and illegal points; the first 15 planes are version 1
    occ = (x[0] + x[4] + x[1] + x[5] + x[2] + x[6] + x[3] + x[7]) > 0
    assert not x[19:29][:, occ].any()
    assert np.array_equal(planes(mouth, n_planes=NUM_PLANES_V1), x[:NUM_PLANES_V1])
    with pytest.raises(ValueError, match="input planes"):
        planes(mouth, n_planes=20)


def test_colour_plane_says_black_to_move():
    """Plane 29 (version 3): all ones when Black is to move, zeros when
    White is; the first 29 planes are version 2's."""
    b = Board(N)
    assert planes(b)[29].all()
    b.play(40)
    x = planes(b)
    assert not x[29].any()
    assert np.array_equal(planes(b, n_planes=29), x[:29])
    b.play(b.pass_move)
    assert planes(b)[29].all()


def test_history_planes_reach_eight_moves():
    b = Board(N)
    moves = [40, 10, 30, 48, 28, 12, 57, 14, 42]
    for m in moves:
        b.play(m)
    x = planes(b).reshape(NUM_PLANES, -1)
    for k in range(8):      # plane 11 + k: the move k + 1 turns ago
        assert x[11 + k, moves[-1 - k]] == 1 and x[11 + k].sum() == 1


def test_value_targets_follow_the_side_to_move(tmp_path):
    d = tmp_path / "scored"
    d.mkdir()
    moves = np.concatenate([np.asarray(m, np.int16) for m, _, _ in GAMES])
    labels = np.concatenate([np.asarray(lab, bool) for _, lab, _ in GAMES])
    offsets = np.cumsum([0] + [len(m) for m, _, _ in GAMES]).astype(np.int64)
    np.savez_compressed(d / "L05_00000.npz", moves=moves, is_label=labels, offsets=offsets,
                        seeds=np.asarray([s for _, _, s in GAMES], np.int64),
                        scores=np.asarray([5.0, -3.0, 0.0], np.float32),
                        size=np.int32(N), level=np.int32(5), komi=np.float32(7.0))
    (d / "L05_00001.npz").write_bytes(b"not a shard")
    logs = []
    pos = D.load_positions(str(d), log=logs.append)
    assert pos.bad_shards == [str(d / "L05_00001.npz")] and "L05_00001" in logs[0]
    assert len(pos) == N_LABELS
    g0 = pos.game == GAMES[0][2]
    # game 0 (black won): positions before black's moves (even move numbers) are wins
    assert np.all(pos.z[g0] == np.where(pos.move_no[g0] % 2 == 0, 1, -1))
    g1 = pos.game == GAMES[1][2]
    assert np.all(pos.z[g1] == np.where(pos.move_no[g1] % 2 == 0, -1, 1))
    assert np.all(pos.z[pos.game == GAMES[2][2]] == 0)       # jigo: no value target
    assert pos.move_no[0] == 4 and pos.pi is None


def test_augmenter_moves_visit_targets_with_the_planes(positions):
    from nets.train import Augmenter
    aug = Augmenter(N, np.random.default_rng(0))
    X, y = positions.X[:16], positions.y[:16]
    pi = np.zeros((16, PASS + 1), np.float16)
    pi[np.arange(16), y] = 0.75
    pi[:, PASS] += 0.25
    syms = np.arange(16) % 8
    Xa, ya, pia = aug(X, y, syms=syms, pi=pi)
    assert np.all(pia[np.arange(16), ya] == np.float16(0.75))
    assert np.allclose(pia.astype(np.float32).sum(1), 1.0)
    assert np.all(pia[:, PASS] >= np.float16(0.25))


def test_value_head_evaluator_and_metadata_checks(tmp_path):
    from nets.evaluator import check_metadata
    cfg = ModelConfig.tiny(N, value_head=True)
    m = GoNet(cfg)
    assert cfg.heads == ["policy", "value"] and cfg.name.endswith("-v")
    ev = Evaluator(m, threads=1, cache_size=8)
    boards = [Board(N), Board(N)]
    boards[1].play(40)
    pri, feats, val = ev.evaluate_all(boards, want_features=True)
    assert val.shape == (2,) and np.all((val > 0) & (val < 1))
    again = ev.evaluate_all(boards)[2]                       # from the cache
    assert np.allclose(again, val)
    w = tmp_path / "v.pt"
    torch.save({k: v.half() for k, v in m.state_dict().items()}, w)
    assert Evaluator.load(str(w), need_value=True).has_value
    (tmp_path / "v.json").write_text(json.dumps({"model_config": {**cfg.to_dict(), "in_planes": 15}}))
    with pytest.raises(WeightsError, match="input planes"):
        Evaluator.load(str(w))
    (tmp_path / "v.json").write_text(json.dumps({"model_config": {**cfg.to_dict(), "value_head": False}}))
    with pytest.raises(WeightsError, match="heads"):
        Evaluator.load(str(w))
    nov = tmp_path / "p.pt"
    torch.save({k: v.half() for k, v in GoNet(ModelConfig.tiny(N)).state_dict().items()}, nov)
    with pytest.raises(WeightsError, match="no value head"):
        Evaluator.load(str(nov), need_value=True)
    check_metadata(str(nov), ModelConfig.tiny(N))     # no metadata file: nothing to check


def test_first_round_weights_read_fifteen_planes(tmp_path):
    from board_ext.features import planes_batch
    m = GoNet(ModelConfig.tiny(N, in_planes=15))
    w = tmp_path / "old.pt"
    torch.save({k: v.half() for k, v in m.state_dict().items()}, w)
    ev = Evaluator.load(str(w), cache_size=0)
    assert ev.config.in_planes == 15 and not ev.has_value
    b = Board(N)
    b.play(40)
    pri, _, val = ev.evaluate_all([b])
    assert val is None
    with torch.no_grad():
        ref = torch.softmax(ev.model(torch.from_numpy(planes_batch([b], n_planes=15))).float(), 1)
    legal = pri[0] > 0
    assert np.allclose(pri[0][legal] / pri[0][legal].sum(),
                       (ref[0].numpy()[legal] / ref[0].numpy()[legal].sum()), atol=1e-3)


def test_value_lambda_needs_a_value_head(tmp_path):
    from engine import config
    from engine.factory import load_evaluator
    w = tmp_path / "policy_only.pt"
    torch.save({k: v.half() for k, v in GoNet(ModelConfig.tiny(N)).state_dict().items()}, w)
    cfg = config.load(None, [f"net.weights={w}", "search.value_lambda=0.5"])
    with pytest.raises(config.ConfigError, match="no value head"):
        load_evaluator(cfg, N)
    assert load_evaluator(config.load(None, [f"net.weights={w}"]), N).has_value is False


def test_init_from_a_first_round_net(tmp_path):
    """A 29-plane net with a value head started from a 15-plane net plays
    as that net: the new planes start at zero weight."""
    from board_ext.features import planes_batch
    from nets.train import init_from
    old = GoNet(ModelConfig.tiny(N, in_planes=15))
    w = tmp_path / "old.pt"
    torch.save(old.state_dict(), w)
    new = GoNet(ModelConfig.tiny(N, value_head=True))
    line = init_from(new, str(w))
    assert "conv1.weight" in line and "value_fc2.weight" in line
    b = Board(N)
    for m in (40, 30, 50, 31):
        b.play(m)
    with torch.no_grad():
        lo = old(torch.from_numpy(planes_batch([b], n_planes=15)))
        ln = new(torch.from_numpy(planes_batch([b])))
    assert torch.allclose(lo, ln, atol=1e-5)
    wide = GoNet(ModelConfig.tiny(N, width=16))
    torch.save(wide.state_dict(), tmp_path / "wide.pt")
    with pytest.raises(ValueError, match="shape"):
        init_from(GoNet(ModelConfig.tiny(N)), str(tmp_path / "wide.pt"))   # narrower: refused


def test_init_from_widens_a_net_in_place_keeping_what_it_computes(tmp_path):
    """Wider layers (and a wider last layer under every head) start from a
    narrower net's weights and compute what it did: every head's output is
    the same; the new channels then have gradients to learn from."""
    from nets.train import init_from
    old = GoNet(ModelConfig.tiny(N, width=8, value_head=True, aux_heads=True))
    torch.save(old.state_dict(), tmp_path / "old.pt")
    new = GoNet(ModelConfig(board_size=N, widths=(12, 12, 12, 10, 10, 9, 9), kernels=(3,) * 7,
                                value_head=True, aux_heads=True))
    line = init_from(new, str(tmp_path / "old.pt"))
    assert "conv4.weight" in line and "fc.weight" in line and "fresh: none" in line
    x = torch.rand(3, new.config.in_planes, N, N)
    with torch.no_grad():
        a, b = old.forward_heads(x), new.forward_heads(x)
    for u, v in zip(a[:4], b[:4]):
        assert torch.allclose(u, v, atol=1e-5)
    loss = new.forward_heads(x)[0].logsumexp(1).sum()
    loss.backward()
    assert new.fc.weight.grad[:, 8 * N * N:].abs().sum() > 0      # the new channels' outgoing weights learn


def test_init_from_widens_a_residual_net_with_global_pooling(tmp_path):
    """A residual trunk with global pooling, widened: each pooling layer
    reads (means, maxes) of the wider trunk, the old columns at the head of
    each block, so every head still computes what the narrower net did."""
    from nets.train import init_from
    torch.manual_seed(1)
    kw = dict(board_size=N, kernels=(3,) * 5, residual=True, global_pool=(1, 2), policy_head="conv",
              value_head=True, aux_heads=True)
    old = GoNet(ModelConfig(widths=(8,) * 5, **kw))
    with torch.no_grad():
        for p in old.parameters():
            p.add_(torch.randn_like(p) * 0.1)       # pooling weights away from their zero init
    torch.save(old.state_dict(), tmp_path / "old.pt")
    new = GoNet(ModelConfig(widths=(12,) * 5, **kw))
    line = init_from(new, str(tmp_path / "old.pt"))
    assert "gpool1.weight" in line and "fresh: none" in line
    x = torch.rand(3, new.config.in_planes, N, N)
    with torch.no_grad():
        a, b = old.forward_heads(x), new.forward_heads(x)
    for u, v in zip(a[:4], b[:4]):
        assert torch.allclose(u, v, atol=1e-5)


def test_net_precision_reaches_the_evaluator(tmp_path, monkeypatch):
    """net.precision = bf16 runs the net under bf16 autocast (where the CPU
    runs bf16 natively; forced here, so the test holds on every CPU): the
    same priors within bf16's rounding, and the config names a bad value."""
    from engine import config
    from engine.factory import load_evaluator
    import nets.evaluator
    monkeypatch.setattr(nets.evaluator, "bf16_is_native", lambda device: True)
    torch.manual_seed(0)
    w = tmp_path / "tiny.pt"
    torch.save(GoNet(ModelConfig.tiny(N, value_head=True)).state_dict(), w)
    ev32 = load_evaluator(config.load(None, [f"net.weights={w}"]), N)
    ev16 = load_evaluator(config.load(None, [f"net.weights={w}", "net.precision=bf16"]), N)
    assert (ev32.precision, ev16.precision) == ("fp32", "bf16")
    b = Board(N)
    for m in GAMES[1][0][:12]:
        b.play(m)
    p32, _ = ev32.evaluate([b])
    p16, _ = ev16.evaluate([b])
    assert np.abs(p32 - p16).max() < 0.02 and not np.array_equal(p32, p16)
    with pytest.raises(config.ConfigError, match="net.precision"):
        config.load(None, ["net.precision=fp8"])


def test_bf16_without_native_support_runs_fp32_and_says_so(tmp_path, monkeypatch, capsys):
    """On a CPU with no native bf16 (emulated, some 50 times slower) the net
    asked for bf16 runs fp32, with one line on stderr: the same priors as
    fp32 exactly, and the evaluator keeps what was asked."""
    from engine import config
    from engine.factory import load_evaluator
    import nets.evaluator
    monkeypatch.setattr(nets.evaluator, "bf16_is_native", lambda device: False)
    torch.manual_seed(0)
    w = tmp_path / "tiny.pt"
    torch.save(GoNet(ModelConfig.tiny(N, value_head=True)).state_dict(), w)
    ev32 = load_evaluator(config.load(None, [f"net.weights={w}"]), N)
    capsys.readouterr()
    ev = load_evaluator(config.load(None, [f"net.weights={w}", "net.precision=bf16"]), N)
    err = capsys.readouterr().err
    assert (ev.precision, ev.precision_asked, ev.channels_last) == ("fp32", "bf16", True)
    assert err.count("\n") == 1 and "bf16" in err and "runs fp32" in err
    b = Board(N)
    for m in GAMES[1][0][:12]:
        b.play(m)
    assert np.array_equal(ev.evaluate([b])[0], ev32.evaluate([b])[0])


def test_fp64_precision_answers_below_float32s_rounding():
    """net.precision = fp64 (the fixed trees of tests/tree_fingerprint.py):
    float64 arithmetic, float32 outputs that do not depend on the batch the
    board came in (fp32's do, by its summation order), within float32's
    rounding of fp32's, on every head."""
    from engine import config
    from engine.factory import load_evaluator
    w = "nets/weights/9x9-res3.pt"
    ev32 = load_evaluator(config.load(None, [f"net.weights={w}", "net.cache_size=0"]), 9)
    ev64 = load_evaluator(config.load(None, [f"net.weights={w}", "net.precision=fp64", "net.cache_size=0"]), 9)
    assert ev64.precision == "fp64" and next(ev64.model.parameters()).dtype == torch.float64
    boards, b = [], Board(9)
    for m in GAMES[1][0][:7]:
        b.play(m)
        boards.append(b.copy())
    lo64, v64, f64, l64 = ev64._run(boards, want_lead=True)
    one = ev64._run(boards[:1], want_lead=True)
    for got, alone in zip((lo64, v64, f64, l64), one):
        assert got.dtype == np.float32 and np.array_equal(got[:1], alone)     # the batch does not matter
    lo32, v32, f32, l32 = ev32._run(boards, want_lead=True)
    assert np.abs(lo64 - lo32).max() < 1e-3 and np.abs(v64 - v32).max() < 1e-4
    assert np.abs(l64 - l32).max() < 1e-2
    for a, c in zip(ev64.evaluate_aux(boards), ev32.evaluate_aux(boards)):
        assert a.dtype == np.float32 and np.abs(a - c).max() < 1e-2


def test_a_fully_convolutional_net_serves_every_board_size(tmp_path):
    """policy_head = "conv": the same weights on 7x7 and 9x9; the board size
    comes from the metadata or the size asked for, never guessed."""
    import json
    import torch
    from nets.evaluator import Evaluator, WeightsError, config_from_state_dict
    from nets.model import ModelConfig, build
    cfg = ModelConfig(board_size=9, widths=(8,) * 3, kernels=(3,) * 3, value_head=True, policy_head="conv")
    m = build(cfg)
    sd = m.state_dict()
    assert "fc.weight" not in sd and cfg.name.endswith("-conv")
    assert config_from_state_dict(sd, size=7) == ModelConfig(**dict(cfg.to_dict(), board_size=7))
    with pytest.raises(WeightsError, match="needs its board size"):
        config_from_state_dict(sd)
    path = tmp_path / "any.pt"
    torch.save({k: v.half() for k, v in sd.items()}, path)
    (tmp_path / "any.json").write_text(json.dumps({"model_config": dict(cfg.to_dict(), board_size=7)}))
    ev = Evaluator.load(str(path), threads=1)
    assert ev.board_size == 7 and ev.has_value
    pri, _ = ev.evaluate([Board(7)])
    assert pri.shape == (1, 50) and abs(float(pri[0].sum()) - 1.0) < 1e-3


def test_accuracy_reads_a_conv_net_at_another_size(tmp_path):
    """nets.accuracy: top-1 <= top-3 on held-out games, value by phase; a
    fully convolutional net trained at one size read at another."""
    import torch
    from nets import accuracy
    from nets.model import ModelConfig, build
    from tests.conftest import ROOT
    cfg = ModelConfig(board_size=19, widths=(8,) * 3, kernels=(3,) * 3, value_head=True, policy_head="conv")
    torch.save(build(cfg).state_dict(), tmp_path / "net.pt")
    r = accuracy.evaluate(str(tmp_path / "net.pt"), [os.path.join(ROOT, "records", "datasets", "13x13-test")], 13)
    assert r["positions"] > 100 and 0 <= r["top1"] <= r["top3"] <= 1
    assert set(r["phases"]) == {"opening", "middle", "end"}
    assert all(0 <= b <= 1 and 0 <= s <= 1 for _, b, s in r["phases"].values())


def test_calibration_scores_value_and_rollouts_by_phase(tmp_path):
    """nets.calibration: Brier of the value head and of k rollouts against
    the games' results, by phase; 'worth' reads the crossing."""
    import json
    import torch
    from nets import calibration
    from nets.model import ModelConfig, build
    from tests.conftest import ROOT
    cfg = ModelConfig(board_size=13, widths=(8,) * 3, kernels=(3,) * 3, value_head=True, policy_head="conv")
    torch.save(build(cfg).state_dict(), tmp_path / "net.pt")
    (tmp_path / "net.json").write_text(json.dumps({"model_config": cfg.to_dict()}))
    res = calibration.calibrate(str(tmp_path / "net.pt"), [os.path.join(ROOT, "records", "datasets", "13x13-test")], 7.5,
                                ks=(1, 4), max_positions=40)
    assert sum(r["n"] for r in res.values()) == 40
    for r in res.values():
        assert 0 <= r["value"] <= 1 and 0 <= r[1] <= 1 and 0 <= r[4] <= 1
    # shard files stand for themselves, and every second position is half of them
    from nets.data import list_shards
    shards = list_shards(os.path.join(ROOT, "records", "datasets", "13x13-test"))[:2]
    assert list_shards(shards) == shards
    n_all = len(calibration.positions(shards, 13))
    half = calibration.calibrate(str(tmp_path / "net.pt"), shards, 7.5, ks=(1,), every=2)
    assert sum(r["n"] for r in half.values()) == (n_all + 1) // 2
    with pytest.raises(ValueError, match="every"):
        calibration.calibrate(str(tmp_path / "net.pt"), shards, 7.5, ks=(1,), every=0)
    row = {"value": 0.2, 1: 0.3, 2: 0.25, 4: 0.2}
    assert calibration.worth(row, ks=(1, 2, 4)) == "4"
    assert calibration.worth({"value": 0.5, 1: 0.3, 2: 0.2}, ks=(1, 2)) == "< 1"


def test_a_board_without_its_own_weights_reads_the_fully_convolutional_net():
    """13x13 has no weights of its own: the engine reads the shipped 19x19
    net (policy head "conv") at 13x13, where its move agreement was
    measured; below 13x13 it keeps the expert prior knowledge."""
    from engine import config, factory
    cfg = config.load(None)
    ev = factory.load_evaluator(cfg, 13)
    assert ev.name == "19x19" and ev.board_size == 13 and ev.has_value
    b = Board(13)
    b.play(6 * 13 + 6)
    pr = ev.evaluate([b])[0][0]
    assert pr.shape == (13 * 13 + 1,) and abs(float(pr.sum()) - 1) < 1e-4 and pr[6 * 13 + 6] == 0
    with pytest.raises(factory.NoNet, match="7x7.pt"):
        factory.load_evaluator(cfg, 7)
    with pytest.raises(factory.NoNet, match="no/such.pt"):
        factory.load_evaluator(config.load(None, ["net.weights=/no/such.pt"]), 13)


def test_a_residual_trunk_starts_as_its_first_layer_and_says_how_it_is_wired(tmp_path):
    """residual = True: conv1 and blocks of two convolutions, each block's
    second one at zero when fresh (the trunk starts as conv1 alone); the
    weights carry the wiring, so loading them rebuilds the same net, and
    metadata that says otherwise fails at load naming the file."""
    import torch.nn.functional as F
    from nets.evaluator import config_from_state_dict
    from nets.model import build
    with pytest.raises(ValueError, match="odd number"):
        ModelConfig(board_size=N, widths=(8,) * 4, kernels=(3,) * 4, residual=True)
    with pytest.raises(ValueError, match="equal width"):
        ModelConfig(board_size=N, widths=(8, 8, 6), kernels=(3,) * 3, residual=True)
    cfg = ModelConfig(board_size=N, widths=(8,) * 5, kernels=(5, 3, 3, 3, 3), value_head=True,
                      aux_heads=True, residual=True)
    m = build(cfg).eval()
    assert cfg.name.endswith("-res") and cfg.to_dict()["residual"] is True
    assert "residual" not in ModelConfig(board_size=N).to_dict()      # old metadata reads the same
    x = torch.from_numpy(planes(Board(N), n_planes=NUM_PLANES)[None].copy())
    with torch.no_grad():
        assert torch.allclose(m.features(x), F.relu(m.convs[0](x)))
        for conv in m.convs[2::2]:
            conv.weight.normal_(0, 0.3)
        f = m.features(x)
    assert not torch.allclose(f, F.relu(m.convs[0](x)))            # the blocks now add to conv1
    # the same tensors read as a plain 5-layer net compute something else
    plain = build(ModelConfig(**dict(cfg.to_dict(), residual=False))).eval()
    plain.load_state_dict({k: v for k, v in m.state_dict().items() if k != "residual_trunk"})
    with torch.no_grad():
        assert not torch.allclose(plain.features(x), f)
    sd = m.state_dict()
    assert config_from_state_dict(sd) == cfg
    path = tmp_path / "res.pt"
    torch.save(sd, path)
    (tmp_path / "res.json").write_text(json.dumps({"model_config": cfg.to_dict()}))
    ev = Evaluator.load(str(path), threads=1)
    pri, val = ev.evaluate([Board(N)])
    with torch.no_grad():
        logits, v, *_ = m.forward_heads(x)
    legal = torch.ones_like(logits, dtype=torch.bool)
    assert np.allclose(pri[0], masked_softmax(logits, legal)[0].numpy(), atol=1e-5)
    (tmp_path / "res.json").write_text(json.dumps({"model_config": dict(cfg.to_dict(), residual=False)}))
    with pytest.raises(WeightsError, match="res.pt.*residual.*res.json says plain"):
        Evaluator.load(str(path), threads=1)
    # nor does training start one wiring from the other's weights, whatever the shapes
    from nets.train import init_from
    torch.save(plain.state_dict(), tmp_path / "plain.pt")
    with pytest.raises(ValueError, match="plain.pt: its trunk is plain, the model's is residual"):
        init_from(build(cfg), str(tmp_path / "plain.pt"))
    with pytest.raises(ValueError, match="res.pt: its trunk is residual, the model's is plain"):
        init_from(plain, str(path))
    assert "fresh: none" in init_from(build(cfg), str(path))


def test_the_mean_over_all_symmetries_does_not_depend_on_the_boards_orientation():
    """nets.model.symmetric_heads over the eight symmetries: the answer for
    a turned board is the answer for the board, turned (a net alone is not
    symmetric: one symmetry's answer is not)."""
    from nets.model import build, symmetric_heads, turn, turn_back
    torch.manual_seed(1)
    m = build(ModelConfig.tiny(N, value_head=True, aux_heads=True)).eval()
    b = Board(N)
    for p in (10, 20, 41, 33):
        b.play(p)
    x = torch.from_numpy(planes(b, n_planes=NUM_PLANES)[None].copy())
    with torch.no_grad():
        pol, v, lead, own = symmetric_heads(m, x, range(8))
        one = symmetric_heads(m, x, [0])
        for s in (1, 5, 6):
            pol2, v2, lead2, own2 = symmetric_heads(m, turn(x, s), range(8))
            grid = turn_back(pol2[0, :N * N].reshape(N, N), s).reshape(N * N)
            assert torch.allclose(grid, pol[0, :N * N], atol=1e-5)
            assert torch.allclose(v2, v, atol=1e-5) and torch.allclose(lead2, lead, atol=1e-4)
            assert torch.allclose(turn_back(own2, s), own, atol=1e-5)
            turned = symmetric_heads(m, turn(x, s), [0])
            assert not torch.allclose(turned[1], one[1], atol=1e-6)
    assert torch.allclose(pol.sum(1), torch.ones(1))


def test_a_random_symmetry_a_batch_turns_the_board_and_the_answer_back():
    """net.symmetry = random: each batch the net sees in one of the eight
    orientations, its priors turned back (each answer is one symmetry's,
    Evaluator.raw); a batch whose features are asked for (the memory's
    keys) is never turned; the setting reaches the evaluator."""
    from engine import config, factory
    torch.manual_seed(2)
    m = GoNet(ModelConfig.tiny(N, value_head=True))
    ev = Evaluator(m, cache_size=0, symmetry="random")
    plain = Evaluator(m, cache_size=0)
    b = Board(N)
    for p in (10, 20, 41):
        b.play(p)
    each = [plain.raw(b, [s]) for s in range(8)]
    seen = set()
    for _ in range(24):
        pri, _, val = ev.evaluate_all([b])
        hit = [s for s, r in enumerate(each) if np.allclose(pri[0], r["policy"], atol=1e-5)
               and abs(float(val[0]) - r["value"]) < 1e-5]
        assert hit
        seen.add(hit[0])
    assert len(seen) >= 4
    p0, f0, v0 = plain.evaluate_all([b], want_features=True)
    for _ in range(8):
        pri, feats, val = ev.evaluate_all([b], want_features=True)
        assert np.allclose(pri, p0, atol=1e-6) and np.allclose(feats, f0, atol=1e-6)
    with pytest.raises(ValueError, match="symmetry"):
        Evaluator(m, symmetry="sideways")
    ev = factory.load_evaluator(config.load(None, ["net.symmetry=random", "prior.evaluator=net"]), 9)
    assert ev.symmetry == "random"


def test_a_batch_that_runs_out_of_memory_is_run_in_smaller_batches(capsys):
    """A batch the device cannot hold (torch's OutOfMemoryError, as CUDA
    raises it) is run again in halves, with one line on stderr, and gives
    what one batch would have; one board that does not fit stays an error."""
    torch.manual_seed(0)
    ev = Evaluator(GoNet(ModelConfig(board_size=N)), threads=1, cache_size=0)
    boards = [Board(N)]
    for m in GAMES[1][0][:7]:
        b = boards[-1].copy()
        b.play(m)
        boards.append(b)
    want, _, want_v = ev.evaluate_all(boards)
    run, sizes = ev._run, []

    def small_device(bs, *a, **k):
        sizes.append(len(bs))
        if len(bs) > 2:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return run(bs, *a, **k)

    ev._run = small_device
    got, _, got_v = ev.evaluate_all(boards)
    assert np.allclose(got, want, atol=1e-6) and got_v is None and want_v is None
    assert sizes == [8, 4, 2, 2, 4, 2, 2]
    err = capsys.readouterr().err
    assert err.count("ran out of") == 1 and "smaller batches" in err
    ev.evaluate_all(boards[:4])
    assert capsys.readouterr().err == ""          # said once

    def no_device(bs, *a, **k):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory")

    ev._run = no_device
    with pytest.raises(torch.cuda.OutOfMemoryError):
        ev.evaluate_all(boards[:1])
    ev._run = lambda bs, *a, **k: (_ for _ in ()).throw(RuntimeError("shape mismatch"))
    with pytest.raises(RuntimeError, match="shape mismatch"):
        ev.evaluate_all(boards)                    # not a memory error: raised as it was
