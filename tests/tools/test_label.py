"""tools.label: teacher targets over KataGo's JSON analysis protocol, with the
engine's own analysis server (``gtp_main.py analysis``) as the real peer."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from board_ext.board import Board
from engine import coords
from nets.shards import make_shard, save_shard, teacher_targets
from tests.conftest import PY, ROOT
from tools import label

# two short, legal 9x9 games (flat indices; 81 = pass)
GAMES = [[40, 30, 50, 32, 22, 48], [20, 60, 24, 56, 81, 81]]


def write_source(d, games=GAMES, name="SP_00001.npz", visits=True):
    moves = [m for g in games for m in g]
    offsets = np.cumsum([0] + [len(g) for g in games])
    extra = {}
    if visits:
        v = np.zeros((len(moves), 82), np.float16)
        v[np.arange(len(moves)), moves] = 1
        extra["visits"] = v
    arrays = make_shard(moves, [True] * len(moves), offsets, list(range(len(games))), [7.0, -3.0], 9, 0, 7.0,
                        **extra)
    os.makedirs(d, exist_ok=True)
    save_shard(os.path.join(d, name), arrays)


def engine_teacher():
    return (f"{PY} {os.path.join(ROOT, 'gtp_main.py')} analysis --config {os.path.join(ROOT, 'configs/9x9.toml')} "
            f"--log-level WARNING --set player.score_playouts=8 --set player.book=false")


def test_protocol_rows_map_to_flat_points():
    """The protocol's rows run from the top: its first point is A9, flat 72."""
    n = 81
    pol = [0.0] * (n + 1)
    pol[0] = 0.75
    pol[n] = 0.25
    own = [0.0] * n
    own[n - 1] = -1.0                      # J1, flat 8
    obj = {"rootInfo": {"winrate": 0.3, "scoreLead": -2.5, "currentPlayer": "W"}, "policy": pol, "ownership": own}
    p, share, wr, lead, o = label.parse_answer(obj, 9, 1, 1)
    assert p[72] == pytest.approx(0.75) and p[n] == pytest.approx(0.25) and share is None
    assert o[8] == -1.0 and o.sum() == -1.0
    assert (wr, lead) == (0.3, -2.5)
    with pytest.raises(ValueError, match="B to move|W to move"):
        label.parse_answer(obj, 9, 0, 1)
    with pytest.raises(ValueError, match="policy"):
        label.parse_answer(dict(obj, policy=pol[:-1]), 9, 1, 1)
    with pytest.raises(ValueError, match="ownership"):
        label.parse_answer(dict(obj, ownership=own[:-1] + [float("nan")]), 9, 1, 1)
    with pytest.raises(ValueError, match="winrate"):
        label.parse_answer(dict(obj, rootInfo={"winrate": 1.5, "scoreLead": 0}), 9, 1, 1)


@pytest.mark.slow
def test_labels_from_the_engines_analysis_server(tmp_path):
    """Every position of two games gets the peer's targets; the shard
    replays; a rerun labels nothing more."""
    src, out = tmp_path / "src", tmp_path / "out"
    write_source(str(src))
    rc = label.main(["--teacher", engine_teacher(), "--in", str(src), "--out", str(out), "--chunk-files", "1",
                     "--timeout", "120"])
    assert rc == 0
    files = sorted(os.listdir(out))
    assert files == ["T1_src_SP_00001.npz"]
    z = dict(np.load(out / files[0]))
    n_pos = sum(len(g) for g in GAMES)
    assert len(z["pos_turn"]) == n_pos
    assert list(z["pos_turn"]) == list(range(6)) * 2 and list(z["pos_game"]) == [0] * 6 + [1] * 6
    assert "t_pol_off" in z and "t_own4" in z and "t_policy" not in z      # packed, as the bulk sets
    pol, wr, lead, own = teacher_targets(z)
    p = pol.astype(np.float64)
    assert p.shape == (n_pos, 82) and np.all(np.abs(p.sum(1) - 1) < 0.02)
    assert own.shape == (n_pos, 81) and own.dtype == np.int8
    assert np.all((wr >= 0) & (wr <= 1)) and np.all(np.isfinite(lead))
    assert z["visits"].shape == (n_pos, 82)               # the source's visit rows come along
    assert json.loads(str(z["teacher"]))["visits"] == 1 and list(z["sources"]) == ["SP_00001.npz"]
    cmd = json.loads(str(z["teacher"]))["command"]    # file names, no machine's folders
    assert "gtp_main.py" in cmd and "/" not in cmd
    # the policy's mass sits on empty points of the replayed position
    for k in range(n_pos):
        g, t = int(z["pos_game"][k]), int(z["pos_turn"][k])
        board = Board(9)
        for m in GAMES[g][:t]:
            board.play(m)
        best = int(np.argmax(p[k]))
        assert best == 81 or board.is_legal(best), (g, t, coords.to_gtp(best, 9))
    before = os.path.getmtime(out / files[0])
    assert label.main(["--teacher", engine_teacher(), "--in", str(src), "--out", str(out), "--chunk-files", "1"]) == 0
    assert os.path.getmtime(out / files[0]) == before


FAKE = r'''
import json, os, sys
marker = sys.argv[1]
mode = sys.argv[2]
if mode == "die" and not os.path.exists(marker):
    open(marker, "w").close()
    sys.stdin.readline()
    sys.exit(3)                       # dies on its first query, once
for line in sys.stdin:
    q = json.loads(line)
    n = q["boardXSize"] ** 2
    for t in q["analyzeTurns"]:
        cp = "B" if t % 2 == 0 else "W"
        ans = {"id": q["id"], "turnNumber": t, "isDuringSearch": False, "moveInfos": [],
               "rootInfo": {"winrate": 0.5, "scoreLead": 1.0, "currentPlayer": cp},
               "policy": [1.0 / (n + 1)] * (n + 1), "ownership": [0.0] * n}
        if mode == "shaped":                               # a peaked policy, ownership in -1..1
            ans["policy"] = [0.6] + [0.3 / (n - 1)] * (n - 1) + [0.1]
            ans["ownership"] = [((i % 21) - 10) / 10 for i in range(n)]
        if mode == "bad" and t == 0:
            print("this is not json")
            print(json.dumps(dict(ans, id="someone-else")))
            ans["policy"] = ans["policy"][:-3]             # too short
        if mode == "bad" and t == 1:
            ans["turnNumber"] = 99
            print(json.dumps(ans))
            ans["turnNumber"] = 1
            ans["rootInfo"] = dict(ans["rootInfo"], currentPlayer="B")   # another position
        print(json.dumps(ans), flush=True)
'''


def fake_teacher(tmp_path, mode):
    script = tmp_path / "fake_teacher.py"
    script.write_text(FAKE)
    return f"{sys.executable} {script} {tmp_path / 'died'} {mode}"


def test_bad_answers_are_named_and_skipped(tmp_path, capsys):
    src, out = tmp_path / "src", tmp_path / "out"
    write_source(str(src))
    assert label.main(["--teacher", fake_teacher(tmp_path, "bad"), "--in", str(src), "--out", str(out),
                       "--chunk-files", "1", "--timeout", "20"]) == 0
    err = capsys.readouterr().err
    assert "unparsable line" in err and "another query" in err and "turn 99" in err
    assert "turn 0: policy is not 82 finite numbers; skipped" in err
    assert "turn 1: answers a position with B to move; skipped" in err
    z = np.load(out / "T1_src_SP_00001.npz")
    assert list(z["pos_turn"]) == [2, 3, 4, 5] * 2         # turns 0 and 1 of each game skipped, nothing half-written
    assert np.allclose(z["t_winrate"], 0.5)


def test_targets_are_packed_unless_dense(tmp_path):
    """By default a label shard holds its targets packed (the bulk form,
    under 300 bytes a 19x19 label); ``--dense`` keeps the float16 policy
    rows and int8 ownership; both read back as the same targets, within
    the packing's rounding."""
    src = tmp_path / "src"
    write_source(str(src))
    got = {}
    for form in ("packed", "dense"):
        out = tmp_path / form
        assert label.main(["--teacher", fake_teacher(tmp_path, "shaped"), "--in", str(src), "--out", str(out),
                           "--chunk-files", "1", "--timeout", "20"] + (["--dense"] if form == "dense" else [])) == 0
        z = dict(np.load(out / "T1_src_SP_00001.npz"))
        assert ("t_policy" in z) == (form == "dense") and ("t_pol_off" in z) == (form == "packed")
        got[form] = teacher_targets(z)
    (pp, wp, lp, op), (pd, wd, ld, od) = got["packed"], got["dense"]
    assert pp.shape == pd.shape and np.allclose(wp, wd, atol=1e-3) and np.allclose(lp, ld, atol=0.05)
    assert np.abs(od).max() == 127 and np.abs(op.astype(int) - od.astype(int)).max() <= 127 // 15 + 1
    assert np.all(np.abs(pp.astype(np.float32).sum(1) - 1) < 0.01)
    assert np.all(pp.argmax(1) == 72) and np.all(pd.argmax(1) == 72)        # the protocol's first point, A9
    ratio = pp[:, 81].astype(np.float32) / pp[:, 72].astype(np.float32)
    assert np.all(np.abs(ratio - 0.1 / 0.6) < 0.01)       # the moves kept keep their shares (the tail past 24 goes)


def test_a_teacher_that_dies_is_restarted(tmp_path, capsys):
    src, out = tmp_path / "src", tmp_path / "out"
    write_source(str(src))
    assert label.main(["--teacher", fake_teacher(tmp_path, "die"), "--in", str(src), "--out", str(out),
                       "--chunk-files", "1", "--timeout", "20"]) == 0
    assert "teacher exited (code 3); restarting the teacher" in capsys.readouterr().err
    z = np.load(out / "T1_src_SP_00001.npz")
    assert len(z["pos_turn"]) == 12


def test_a_teacher_that_stays_dead_fails_the_chunk_and_writes_nothing(tmp_path, capsys):
    src, out = tmp_path / "src", tmp_path / "out"
    write_source(str(src))
    rc = label.main(["--teacher", f"{sys.executable} -c 'import sys; sys.exit(5)'", "--in", str(src),
                     "--out", str(out), "--chunk-files", "1", "--restarts", "1", "--timeout", "20"])
    assert rc == 1
    assert "TeacherDied" in capsys.readouterr().err
    assert os.listdir(out) == []


def test_only_whole_chunks_unless_partial(tmp_path):
    src = tmp_path / "src"
    for i in range(5):
        write_source(str(src), name=f"SP_{i + 1:05d}.npz")
    assert [len(c) for c in label.chunks([str(src)], 2)] == [2, 2]
    assert [len(c) for c in label.chunks([str(src)], 2, partial=True)] == [2, 2, 1]
    assert label.out_path("o", 8, label.chunks([str(src)], 2)[1]) == os.path.join("o", "T8_src_SP_00003.npz")


def test_an_offset_labels_the_other_positions_into_its_own_shard(tmp_path):
    """``--every 2 --offset 1`` labels the odd positions, beside (not over)
    the shard of the even ones."""
    src, out = tmp_path / "src", tmp_path / "out"
    write_source(str(src))
    for off in (0, 1):
        assert label.main(["--teacher", fake_teacher(tmp_path, "ok"), "--in", str(src), "--out", str(out),
                           "--chunk-files", "1", "--every", "2", "--offset", str(off)]) == 0
    assert sorted(os.listdir(out)) == ["T1_src_SP_00001.npz", "T1_src_SP_00001_o1.npz"]
    even, odd = (dict(np.load(out / f)) for f in sorted(os.listdir(out)))
    assert list(even["pos_turn"]) == [0, 2, 4] * 2 and list(odd["pos_turn"]) == [1, 3, 5] * 2
    assert json.loads(str(odd["teacher"]))["offset"] == 1


def test_bad_arguments_are_refused():
    with pytest.raises(SystemExit):
        label.main(["--teacher", "x", "--in", "y", "--out", "z", "--visits", "0"])
    with pytest.raises(SystemExit):
        label.main(["--teacher", "x", "--in", "y", "--out", "z", "--offset", "-1"])


def test_a_teacher_that_is_not_there_is_named_once(tmp_path, capsys):
    """No KataGo at the path given: one line naming it, nothing labelled,
    not one error a chunk."""
    src = tmp_path / "src"
    write_source(str(src))
    write_source(str(src), name="SP_00002.npz")
    rc = label.main(["--teacher", f"{tmp_path}/katago analysis -model x", "--in", str(src),
                     "--out", str(tmp_path / "out"), "--chunk-files", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("no such executable") == 1 and "katago" in err
    assert not (tmp_path / "out").exists()
