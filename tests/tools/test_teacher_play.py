"""tools.teacher_play: a teacher playing itself over the JSON analysis
protocol, every position kept with its targets; with the engine's own
analysis server as the real peer, and a misbehaving one for bad output."""
import json
import os
import sys

import numpy as np
import pytest

from board_ext.board import Board
from nets.shards import load_shard, pack_teacher, teacher_targets
from tests.conftest import PY, ROOT
from tools import publish, teacher_play


def engine_teacher():
    return (f"{PY} {os.path.join(ROOT, 'gtp_main.py')} analysis --config {os.path.join(ROOT, 'configs/9x9.toml')} "
            f"--log-level WARNING --set player.score_playouts=8 --set player.book=false")


def test_packed_targets_round_trip_compactly():
    """The packed form keeps the policy's moves, the ownership to a
    sixteenth of its range and the scalars, in under 300 bytes a 19x19
    position before compression."""
    rng = np.random.default_rng(1)
    n = 361
    pol = rng.dirichlet(np.full(n + 1, 0.05), size=50).astype(np.float32)
    own = np.tanh(rng.normal(0, 2, size=(50, n))).astype(np.float32)
    wr, lead = rng.random(50), rng.normal(0, 10, 50)
    packed = pack_teacher(pol, own, wr, lead)
    raw = sum(v.nbytes for v in packed.values()) / 50
    assert raw < 300
    sh = dict(packed, size=np.int32(19), pos_turn=np.arange(50, dtype=np.int16))
    p, w, ld, o = teacher_targets(sh)
    assert p.shape == (50, n + 1) and np.allclose(p.astype(np.float64).sum(1), 1, atol=1e-2)
    best = np.argmax(p, 1)
    assert np.all(pol[np.arange(50), best] >= pol.max(1) - 1 / 255)     # the best move, to a quantum
    kept = pol >= 2e-3
    assert np.all(p[~kept] == 0)
    assert np.abs(o / 127.0 - own).max() <= 1 / 15 + 0.01
    assert np.allclose(w, wr, atol=1e-3) and np.allclose(ld, lead, atol=0.05)
    bad = dict(sh, t_pol_off=sh["t_pol_off"][:-1])
    with pytest.raises(ValueError, match="do not agree"):
        teacher_targets(bad)


def _replays(sh):
    """Every game replays on the engine's board and has a label a position."""
    off = sh["offsets"]
    for g in range(len(off) - 1):
        b = Board(int(sh["size"]), superko=False)
        for m in sh["moves"][off[g]:off[g + 1]]:
            b.play(int(m))
    turns = [list(sh["pos_turn"][sh["pos_game"] == g]) for g in range(len(off) - 1)]
    for g, t in enumerate(turns):
        n_moves = int(off[g + 1] - off[g])
        assert t == list(range(len(t))) and len(t) in (n_moves, n_moves + 1), (g, len(t), n_moves)


@pytest.mark.slow
def test_self_play_with_the_engines_analysis_server(tmp_path):
    """Two short 9x9 games: every position labelled, the games replay,
    the shard reads through the trainer's loader; a rerun plays nothing;
    the set is listed with its counts."""
    out = tmp_path / "set"
    args = ["--teacher", engine_teacher(), "--size", "9", "--komi", "7", "--games", "2", "--chunk-games", "2",
            "--in-flight", "2", "--max-moves", "10", "--out", str(out), "--seed", "5", "--timeout", "120"]
    assert teacher_play.main(args) == 0
    assert sorted(os.listdir(out)) == ["S9_00000005.npz"]
    sh = load_shard(str(out / "S9_00000005.npz"))
    assert list(sh["seeds"]) == [5, 6]
    _replays(sh)
    assert len(sh["pos_turn"]) == 22                  # ten moves and the position after them, twice
    meta = json.loads(str(sh["teacher"]))
    assert meta["visits"] == 1 and meta["selfplay"]["max_moves"] == 10
    assert "gtp_main.py" in meta["command"] and "/" not in meta["command"]   # no machine's folders
    from nets.data import load_teacher
    pos, tt = load_teacher([str(out)], 9)
    assert len(pos.y) == 22 and tt.policy.shape == (22, 82)
    before = os.path.getmtime(out / "S9_00000005.npz")
    assert teacher_play.main(args) == 0
    assert os.path.getmtime(out / "S9_00000005.npz") == before
    records = tmp_path / "records"
    records.mkdir()
    e = publish.list_data("set", records=str(records), root=str(tmp_path))
    assert (e["games"], e["positions"], e["shards"]) == (2, 22, 1)
    assert "gtp_main.py" in e["teacher"] and ROOT not in json.dumps(e)     # no machine's folders


FAKE = r'''
import json, os, sys
marker, mode = sys.argv[1], sys.argv[2]
n_asked = 0
print("not json at all", flush=True)
for line in sys.stdin:
    q = json.loads(line)
    n_asked += 1
    if mode == "die" and n_asked == 5 and not os.path.exists(marker):
        open(marker, "w").close()
        sys.exit(3)                                # dies mid-run, once
    size = q["boardXSize"]
    n = size * size
    t = q["analyzeTurns"][0]
    pol = [1.0 / (n + 1)] * (n + 1)
    own = [0.0] * n
    if n_asked == 3:
        print(json.dumps({"id": "someone-else:0", "turnNumber": 0}), flush=True)
    if n_asked == 4:
        pol = pol[:-1]                             # the wrong length, once
    cp = "B" if t % 2 == 0 else "W"
    print(json.dumps({"id": q["id"], "turnNumber": t, "isDuringSearch": False, "moveInfos": [],
                      "rootInfo": {"winrate": 0.5, "scoreLead": 1.5, "visits": 1, "currentPlayer": cp},
                      "policy": pol, "ownership": own}), flush=True)
'''


def test_bad_teacher_output_is_named_and_never_written(tmp_path, capsys):
    """A line that does not parse, an answer for another query and an
    answer of the wrong length are named and asked again; a teacher that
    dies is restarted and the games in flight ask again; the shard holds
    whole, replayable games."""
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE)
    cmd = f"{sys.executable} {fake} {tmp_path / 'died'} die"
    out = tmp_path / "set"
    rc = teacher_play.main(["--teacher", cmd, "--size", "9", "--games", "3", "--chunk-games", "3", "--in-flight", "2",
                            "--max-moves", "8", "--out", str(out), "--timeout", "20", "--playout", "1"])
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "unparsable line" in err and "someone-else" in err and "policy is not 82" in err
    assert "restarting the teacher" in err and (tmp_path / "died").exists()
    sh = load_shard(str(out / "S9_00000000.npz"))
    assert len(sh["seeds"]) == 3
    _replays(sh)
    assert len(sh["pos_turn"]) == 27
    assert [f for f in os.listdir(out) if f.startswith(".")] == []      # no temporary file left


def test_a_teacher_that_cannot_start_is_named(tmp_path, capsys):
    rc = teacher_play.main(["--teacher", str(tmp_path / "no-such-katago"), "--size", "9", "--games", "1",
                            "--chunk-games", "1", "--out", str(tmp_path / "set")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "no-such-katago" in err and "no such executable" in err and err.count("\n") == 1
    assert not (tmp_path / "set").exists()


def test_minutes_end_the_labelling_at_a_chunk_and_the_same_command_goes_on(tmp_path, capsys):
    """--minutes starts no chunk once the time is up (the one under way is
    written whole); the same command without it writes the rest."""
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE)
    cmd = f"{sys.executable} {fake} {tmp_path / 'unused'} ok"
    out = tmp_path / "set"
    args = ["--teacher", cmd, "--size", "9", "--games", "6", "--chunk-games", "2", "--in-flight", "2",
            "--max-moves", "6", "--out", str(out), "--timeout", "20", "--playout", "1", "--workers", "1"]
    assert teacher_play.main(args + ["--minutes", "0.0001"]) == 0
    assert "minutes are up: 2 games" in capsys.readouterr().err
    assert sorted(os.listdir(out)) == ["S9_00000000.npz"]
    assert teacher_play.main(args) == 0
    assert sorted(os.listdir(out)) == ["S9_00000000.npz", "S9_00000002.npz", "S9_00000004.npz"]
    with pytest.raises(SystemExit):
        teacher_play.main(args + ["--minutes", "-1"])


def test_wait_while_starts_no_chunk_while_an_equal_clock_holds_the_cores(tmp_path, capsys, monkeypatch):
    """--wait-while PATH: while PATH names a live process no chunk starts;
    once it holds nothing the labelling goes on."""
    from tools import quiet
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE)
    cmd = f"{sys.executable} {fake} {tmp_path / 'unused'} ok"
    out = tmp_path / "set"
    held = tmp_path / "quiet-cores"
    held.write_text(f"{os.getpid()} an equal clock\n")
    waits = []

    def wait(path, stop=None, poll=10.0, say=None):
        waits.append((path, quiet.busy(path), sorted(os.listdir(out))))
        if quiet.busy(path):
            say()
            os.remove(path)             # the match ends
    monkeypatch.setattr(quiet, "wait", wait)
    args = ["--teacher", cmd, "--size", "9", "--games", "4", "--chunk-games", "2", "--in-flight", "2",
            "--max-moves", "6", "--out", str(out), "--timeout", "20", "--playout", "1", "--workers", "1",
            "--wait-while", str(held)]
    assert teacher_play.main(args) == 0
    assert waits[0] == (str(held), True, [])       # held before the first chunk, nothing written yet
    assert "holds the cores" in capsys.readouterr().err
    assert sorted(os.listdir(out)) == ["S9_00000000.npz", "S9_00000002.npz"]
