"""The third-round net: score and ownership heads, trained on a teacher's
label shards (tools.label), read back by the evaluator."""
import json
import os

import numpy as np
import pytest
import torch

from board_ext.board import Board
from nets import data as D
from nets.evaluator import Evaluator, WeightsError
from nets.model import ModelConfig, GoNet
from tests.tools.test_label import fake_teacher, write_source
from tools import label

N = 9


@pytest.fixture
def label_dir(tmp_path):
    """Label shards of four sources (eight short games), made by the fake
    teacher (uniform policy, win rate 1/2, lead +1 for Black, ownership 0)."""
    src, out = tmp_path / "src", tmp_path / "lab"
    games = [[40, 30, 50, 32, 22, 48, 60, 20], [20, 60, 24, 56, 50, 30, 81, 81]]
    for i in range(4):
        write_source(str(src), games=games, name=f"SP_{i + 1:05d}.npz")
    assert label.main(["--teacher", fake_teacher(tmp_path, "ok"), "--in", str(src), "--out", str(out),
                       "--chunk-files", "1", "--timeout", "20"]) == 0
    return out


def test_teacher_targets_turn_to_the_side_to_move(label_dir):
    pos, tt = D.load_teacher(str(label_dir))
    assert len(pos) == 4 * 16 and tt.policy.shape == (64, 82)
    white = pos.move_no % 2 == 1
    assert np.allclose(tt.lead[~white], 1.0) and np.allclose(tt.lead[white], -1.0)
    assert np.allclose(tt.value, 0.5)
    # the engine's own visit rows come along as pi (one-hot rows in the fixture)
    assert np.all(pos.pi.astype(np.float32).argmax(1) == pos.y)
    # the planes are the replayed position: the colour plane says who moves
    b = Board(N)
    for m in [20, 60, 24]:
        b.play(m)
    k = int(np.nonzero((pos.move_no == 3) & (pos.y == 56))[0][0])
    from board_ext.features import planes
    want = planes(b)
    assert np.array_equal(pos.X[k], want.astype(np.uint8))


def test_training_with_aux_heads_writes_weights_the_evaluator_reads(label_dir, tmp_path):
    from nets.train import load_config, train
    cfg = load_config(None, [f"data_dirs=[]", f"teacher_dirs=['{label_dir}']", "aux_heads=true",
                             "name='t9'", f"weights_dir='{tmp_path / 'w'}'", f"checkpoint_dir='{tmp_path / 'ck'}'",
                             "epochs=3", "batch_size=8", "val_fraction=0.3", "widths=[8,8,8,8,8,8,8]",
                             "kernels=[3,3,3,3,3,3,3]", "warmup_steps=1", "precision='fp32'", "lr=0.01"])
    prov = train(cfg, log=lambda m: None)
    assert prov["heads"] == ["policy", "value", "score", "ownership"]
    tv = prov["accuracy"]["teacher_val"]
    assert tv["positions"] > 0 and 0 <= tv["policy_top1_vs_teacher"] <= 1
    assert tv["score_mae"] >= 0 and 0 <= tv["ownership_mae"] <= 2
    ev = Evaluator.load(str(tmp_path / "w" / "t9.pt"))
    assert ev.has_aux and ev.config.aux_heads
    b = Board(N)
    v, s, own = ev.evaluate_aux([b, b])
    assert v.shape == (2,) and s.shape == (2,) and own.shape == (2, 81)
    assert np.all(np.abs(own) <= 1) and np.allclose(s[0], s[1])
    # the score head learned the teacher's +1 for Black / -1 for White, roughly
    b2 = Board(N)
    b2.play(40)
    _, s2, _ = ev.evaluate_aux([b2])
    assert abs(s[0] - 1.0) < 3 and abs(s2[0] + 1.0) < 3


def test_a_residual_net_trains_and_the_engine_reads_it_back(label_dir, tmp_path):
    """residual = true through nets.train: the weights and metadata say
    residual, the evaluator rebuilds the same net from them, and training
    moved every block's second convolution off its zero start."""
    from nets.train import load_config, train
    cfg = load_config(None, ["data_dirs=[]", f"teacher_dirs=['{label_dir}']", "aux_heads=true", "residual=true",
                             "name='r9'", f"weights_dir='{tmp_path / 'w'}'", f"checkpoint_dir='{tmp_path / 'ck'}'",
                             "epochs=2", "batch_size=8", "val_fraction=0.3", "widths=[8,8,8,8,8]",
                             "kernels=[5,3,3,3,3]", "warmup_steps=1", "precision='fp32'", "lr=0.01"])
    prov = train(cfg, log=lambda m: None)
    assert prov["model_config"]["residual"] is True and prov["model"].endswith("-res")
    meta = json.loads((tmp_path / "w" / "r9.json").read_text())
    assert meta["model_config"]["residual"] is True
    ev = Evaluator.load(str(tmp_path / "w" / "r9.pt"))
    assert ev.config.residual and ev.config.widths == (8,) * 5 and ev.has_aux
    for conv in ev.model.convs[2::2]:
        assert float(conv.weight.abs().max()) > 0
    with pytest.raises(ValueError, match="odd number"):
        train(load_config(None, ["data_dirs=[]", f"teacher_dirs=['{label_dir}']", "residual=true", "widths=[8,8,8,8]",
                                 "kernels=[3,3,3,3]", f"checkpoint_dir='{tmp_path / 'ck2'}'"]),
              log=lambda m: None)


def test_train_only_learns_new_heads_on_a_trunk_that_stays_as_loaded(label_dir, tmp_path):
    """configs/nets/19x19-heads.toml's recipe: a net without the heads,
    the score and ownership heads trained on top; every tensor the first
    net had comes out bit for bit (the engine plays the same moves), the
    new heads move, and a prefix that names nothing is refused."""
    from nets.train import load_config, train
    from tomlconf import ConfigError
    common = [f"weights_dir='{tmp_path / 'w'}'", "epochs=2", "batch_size=8", "val_fraction=0.3",
              "widths=[8,8,8,8,8,8,8]", "kernels=[3,3,3,3,3,3,3]", "warmup_steps=1", "precision='fp32'",
              "lr=0.01", "policy_head='conv'"]
    base = load_config(None, common + [f"data_dirs=['{label_dir}']", "name='plain'",
                                       f"checkpoint_dir='{tmp_path / 'ck0'}'"])
    train(base, log=lambda m: None)
    plain = str(tmp_path / "w" / "plain.pt")
    sets = common + ["data_dirs=[]", f"teacher_dirs=['{label_dir}']", "aux_heads=true", "name='heads'",
                     f"init_from='{plain}'", f"checkpoint_dir='{tmp_path / 'ck1'}'", "visits_weight=0"]
    prov = train(load_config(None, sets + ["train_only=['score_', 'own_']"]), log=lambda m: None)
    assert prov["heads"] == ["policy", "value", "score", "ownership"]
    a = Evaluator.load(plain).model.state_dict()
    b = Evaluator.load(str(tmp_path / "w" / "heads.pt")).model.state_dict()
    assert set(b) - set(a) == {"score_fc.weight", "score_fc.bias", "own_conv.weight", "own_conv.bias"}
    for k, v in a.items():
        assert torch.equal(v, b[k]), k
    fresh = GoNet(ModelConfig(board_size=N, in_planes=30, widths=(8,) * 7, kernels=(3,) * 7,
                                  policy_head="conv", value_head=True, aux_heads=True)).state_dict()
    assert any(not torch.allclose(b[k].float(), fresh[k]) for k in ("score_fc.weight", "own_conv.weight"))
    b1 = Board(N)
    b1.play(40)
    pa, pb = Evaluator.load(plain), Evaluator.load(str(tmp_path / "w" / "heads.pt"))
    pr_a, _, va = pa.evaluate_all([b1])
    pr_b, _, vb = pb.evaluate_all([b1])
    assert np.array_equal(pr_a, pr_b) and np.array_equal(va, vb)
    with pytest.raises(ConfigError, match="train_only.*'scor_'"):
        train(load_config(None, sets + ["train_only=['scor_']", "name='bad'",
                                        f"checkpoint_dir='{tmp_path / 'ck2'}'"]), log=lambda m: None)


def test_aux_heads_need_the_value_head_and_metadata_must_agree(tmp_path):
    with pytest.raises(ValueError, match="aux_heads"):
        ModelConfig.tiny(N, aux_heads=True)
    cfg = ModelConfig.tiny(N, value_head=True, aux_heads=True)
    m = GoNet(cfg)
    w = tmp_path / "a.pt"
    torch.save({k: v.half() for k, v in m.state_dict().items()}, w)
    assert Evaluator.load(str(w)).has_aux
    (tmp_path / "a.json").write_text(json.dumps({"model_config": {**cfg.to_dict(), "aux_heads": False}}))
    with pytest.raises(WeightsError, match=r"a\.pt: the weights have heads \['policy', 'value', 'score', 'ownership'\]"):
        Evaluator.load(str(w))
    (tmp_path / "a.json").write_text(json.dumps({"model_config": {**cfg.to_dict(), "board_size": 13}}))
    with pytest.raises(WeightsError, match="13x13"):
        Evaluator.load(str(w))
    os.remove(tmp_path / "a.json")
    sd = {k: v.half() for k, v in m.state_dict().items() if not k.startswith("score_fc")}
    torch.save(sd, w)
    with pytest.raises(WeightsError, match="ownership head without the score"):
        Evaluator.load(str(w))
    plain = Evaluator(GoNet(ModelConfig.tiny(N, value_head=True)))
    with pytest.raises(ValueError, match="no score and ownership heads"):
        plain.evaluate_aux([Board(N)])


def aux_weights(tmp_path, seed=3):
    torch.manual_seed(seed)
    m = GoNet(ModelConfig.tiny(N, value_head=True, aux_heads=True))
    with torch.no_grad():
        m.score_fc.bias.fill_(0.2)          # a lead of a few points for the side to move
    w = tmp_path / "aux.pt"
    torch.save({k: v.half() for k, v in m.state_dict().items()}, w)
    return str(w)


def analyse(lines, sets):
    import io
    from engine.config import load
    from engine.gtp.analysis_json import AnalysisServer
    from tests.conftest import SMALL
    out = io.StringIO()
    srv = AnalysisServer(load(None, SMALL + ["player.score_playouts=16", "player.move_score_playouts=8"] + sets),
                         out=out)
    srv.serve(io.StringIO("".join(json.dumps(x) + "\n" for x in lines)))
    return [json.loads(ln) for ln in out.getvalue().splitlines()]


def test_analysis_reads_score_and_ownership_from_the_heads(tmp_path):
    """Same query, same figures; the best move loses no points; Black's
    view with either side to move; the heads' numbers, not playouts'."""
    w = aux_weights(tmp_path)
    q = {"moves": [["B", "E5"], ["W", "C3"], ["B", "G7"]], "rules": "chinese", "komi": 7,
         "boardXSize": 9, "analyzeTurns": [2, 3], "maxVisits": 40, "includeOwnership": True}
    got = analyse([dict(q, id="a"), dict(q, id="b")],
                  ["prior.evaluator=net", f"net.weights={w}", "search.seed=0"])
    by = {(r["id"], r["turnNumber"]): r for r in got}
    ev = Evaluator.load(w)
    for t in (2, 3):
        a, b = by[("a", t)], by[("b", t)]
        assert a["rootInfo"]["scoreLead"] == a["moveInfos"][0]["scoreLead"]
        assert a["ownership"] == b["ownership"]
        lead_a = {i["move"]: i["scoreLead"] for i in a["moveInfos"]}
        lead_b = {i["move"]: i["scoreLead"] for i in b["moveInfos"]}
        # every candidate gets the head's lead after it, whatever order the
        # search visited them in (the net's batches differ: rounding only)
        both = sorted(lead_a.keys() & lead_b.keys())
        assert len(both) >= 2
        assert [lead_a[m] for m in both] == pytest.approx([lead_b[m] for m in both], abs=1e-4)
        board = Board(N)
        for _, v in q["moves"][:t]:
            from engine import coords
            board.play(coords.from_gtp(v, N))
        _, lead, own = ev.evaluate_aux([board])
        black = 1.0 if t % 2 == 0 else -1.0
        flat = [own[0][(N - 1 - i // N) * N + i % N] for i in range(N * N)]   # the protocol's rows
        assert np.allclose(a["ownership"], black * np.asarray(flat), atol=1e-5)
        best = a["moveInfos"][0]["move"]
        after = board.copy()
        after.play(coords.from_gtp(best, N))
        _, lead2, _ = ev.evaluate_aux([after])
        assert a["moveInfos"][0]["scoreLead"] == pytest.approx(-black * float(lead2[0]), abs=1e-4)


def test_analysis_root_carries_the_nets_raw_answer_and_katagos_edge_fields(tmp_path):
    """rootInfo's rawWinrate, rawLead and rawScoreSelfplay are the heads'
    at the root, in the reported perspective (Black's, White to move
    here); its winrate is the visit-weighted mean of the candidates'; each
    moveInfo's edgeVisits and weight are its visits and its utilityLcb is
    2 lcb - 1; rootInfo has a scoreStdev."""
    w = aux_weights(tmp_path)
    q = {"id": "r", "moves": [["B", "E5"], ["W", "C3"], ["B", "G7"]], "rules": "chinese", "komi": 7,
         "boardXSize": 9, "maxVisits": 30}
    got = analyse([q], ["prior.evaluator=net", f"net.weights={w}", "search.seed=0"])
    a = next(r for r in got if not r["isDuringSearch"])
    board = Board(N)
    from engine import coords
    for _, v in q["moves"]:
        board.play(coords.from_gtp(v, N))
    v, lead, _ = Evaluator.load(w).evaluate_aux([board])     # White to move: White's
    ri = a["rootInfo"]
    assert ri["rawWinrate"] == pytest.approx(1.0 - float(v[0]), abs=1e-5)
    assert ri["rawLead"] == pytest.approx(-float(lead[0]), abs=1e-4) == ri["rawScoreSelfplay"]
    assert ri["rawNoResultProb"] == 0.0 and "scoreStdev" in ri
    # the root's win rate is its value over the whole search: the
    # candidates' win rates weighted by their visits, as KataGo's
    n = sum(mi["visits"] for mi in a["moveInfos"])
    assert ri["winrate"] == pytest.approx(sum(mi["visits"] * mi["winrate"] for mi in a["moveInfos"]) / n)
    assert ri["utility"] == pytest.approx(2 * ri["winrate"] - 1)
    for mi in a["moveInfos"]:
        assert mi["edgeVisits"] == mi["visits"] == mi["weight"]
        assert mi["utilityLcb"] == pytest.approx(2 * mi["lcb"] - 1)


def test_a_net_without_the_heads_falls_back_to_playouts_and_says_so_once(capsys):
    from engine.config import load
    from engine.player import Player
    from tests.conftest import SMALL
    from engine.factory import Nets
    Nets._told_no_heads = False
    p = Player(load(None, SMALL + ["prior.evaluator=net"]))
    p.new_game(N, 7.0)
    assert not p.nets.get(p.size).has_aux
    assert p.nets.scorer(p.size) is None and p.nets.scorer(p.size) is None
    err = capsys.readouterr().err
    assert err.count("has no score and ownership heads; score leads and ownership come from playouts") == 1


def test_accuracy_against_the_teacher_on_held_out_games(label_dir, tmp_path, capsys):
    from nets import accuracy
    w = aux_weights(tmp_path)
    assert accuracy.main(["--weights", w, "--teacher", str(label_dir), "--val-fraction", "0"]) == 0
    out = capsys.readouterr().out
    r = json.loads(out[out.index("{"):out.rindex("}") + 1])
    assert r["positions"] == 64 and r["games"] == 2
    assert 0 <= r["policy_top1_vs_teacher"] <= 1 and r["score_mae"] >= 0
    assert set(r["value_brier_by_phase"]) <= {"0-19", "20-39", "40-59", "60-end"}
    assert out.strip().splitlines()[-1].startswith("top-1 against the teacher:")
    with pytest.raises(SystemExit):
        accuracy.main(["--weights", w])


def test_moves_ownership_for_every_candidate(tmp_path):
    """includeMovesOwnership: each candidate carries the ownership after it
    (the head's with a net that has one, playouts' without), Black's view."""
    w = aux_weights(tmp_path)
    q = {"id": "m", "moves": [["B", "E5"]], "boardXSize": 9, "maxVisits": 30, "includeOwnership": True,
         "includeMovesOwnership": True}
    ev = Evaluator.load(w)
    r = analyse([q], ["prior.evaluator=net", f"net.weights={w}"])[0]
    from engine import coords
    for info in r["moveInfos"]:
        own = info["ownership"]
        assert len(own) == 81 and all(-1 <= v <= 1 for v in own)
        b = Board(N)
        b.play(40)
        b.play(coords.from_gtp(info["move"], N))        # White's candidate; Black to move after it
        _, _, o = ev.evaluate_aux([b])
        flat = [o[0][(N - 1 - i // N) * N + i % N] for i in range(N * N)]
        assert np.allclose(own, flat, atol=1e-5)         # Black to move: the head's view is Black's
    r2 = analyse([dict(q, id="p")], ["prior.evaluator=expert"])[0]
    assert r2["moveInfos"] and all(len(i["ownership"]) == 81 for i in r2["moveInfos"])
    assert any(any(v != 0 for v in i["ownership"]) for i in r2["moveInfos"])


def test_estimate_score_reads_the_heads(tmp_path):
    from engine.config import load
    from engine.gtp.server import GtpServer
    from tests.conftest import SMALL
    w = aux_weights(tmp_path)
    eng = GtpServer(load(None, SMALL + ["prior.evaluator=net", f"net.weights={w}"]))
    eng.respond("play b E5")
    reply = eng.respond("estimate_score")
    ev = Evaluator.load(w)
    b = Board(N)
    b.play(40)
    _, lead, own = ev.evaluate_aux([b])          # White to move: White's lead
    black = -float(lead[0])
    from engine.scoring import fmt_score
    assert reply.startswith("= " + fmt_score(round(2 * black) / 2) + " ("), reply


def test_the_playing_networks_own_agreement_with_the_teacher(tmp_path, capsys):
    """--source: the policy a source set keeps for each position against the
    teacher's best move on the same positions; a set read against itself
    agrees everywhere, sets of other games share no position."""
    from nets import accuracy
    from tests.conftest import ROOT
    held = os.path.join(ROOT, "records", "datasets", "teacher", "13x13-play-test")
    hit, n = accuracy.source_agreement(held, held)
    assert n == 262 and hit == n
    assert accuracy.main(["--teacher", held, "--source", held]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "top-1 against the teacher: 100.0 %"
    other = os.path.join(ROOT, "records", "datasets", "teacher", "19x19-play-test")
    assert accuracy.source_agreement(held, other) == (0, 0)     # the empty board too: another size
    assert accuracy.main(["--teacher", held, "--source", other]) == 1
    with pytest.raises(SystemExit):
        accuracy.main(["--teacher", held, "--source", held, "--weights", "x.pt"])
