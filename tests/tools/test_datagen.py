"""tools.datagen: GNU Go teacher games with their final scores."""
import numpy as np
import pytest

from nets import data as D
from tools import datagen


def test_parse_score():
    assert datagen.parse_score("B+3.5") == 3.5
    assert datagen.parse_score("W+0.5") == -0.5
    assert datagen.parse_score(" w+12 ") == -12.0
    assert datagen.parse_score("0") == 0.0
    with pytest.raises(ValueError, match="final_score"):
        datagen.parse_score("? cannot score")


@pytest.mark.gnugo
def test_a_shard_holds_moves_and_scores(tmp_path):
    """Two GNU Go level-1 games on 7x7: the shard's scores are GNU Go's
    final_score and become the value targets of nets.data."""
    arrays = datagen.play_shard(7, 7.0, 1, 0, 2, 2)
    assert arrays["scores"].shape == (2,) and len(arrays["offsets"]) == 3
    path = datagen.write_shard(str(tmp_path), 1, 0, arrays)
    pos = D.load_positions(str(tmp_path))
    assert len(pos) == int(arrays["is_label"].sum())
    for g, score in zip(arrays["seeds"], arrays["scores"]):
        z = pos.z[pos.game == g]
        mv = pos.move_no[pos.game == g]
        want = int(np.sign(score))
        assert np.all(z == np.where(mv % 2 == 0, want, -want))
    assert path.endswith("L01_00000.npz")


@pytest.mark.gnugo
@pytest.mark.slow
def test_ctrl_c_ends_datagen_with_one_line(tmp_path):
    """Ctrl-C keeps the finished shards and says so in one line; the same
    command then resumes from them."""
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "d"
    args = [sys.executable, "-m", "tools.datagen", "--size", "7", "--level", "1", "--games", "400",
            "--shard-games", "1", "--out", str(out)]
    from tests.conftest import sigint_default
    p = subprocess.Popen(args, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=sigint_default)
    try:
        end = time.time() + 300
        while not list(out.glob("L01_*.npz")) and time.time() < end:
            time.sleep(0.1)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130 and "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.startswith("datagen: interrupted")]
    have = len(list(out.glob("L01_*.npz")))
    assert have >= 1 and lines == [f"datagen: interrupted; {have} of 400 shards are in {out} "
                                   f"(the same command resumes)"], err
    assert not list(out.glob("*.tmp*")) and not list(out.glob(".*tmp*"))


def test_a_shard_that_does_not_add_up_is_named(tmp_path):
    from nets.shards import ShardError, load_shard, make_shard, save_shard
    good = make_shard([1, 2, 3], [True] * 3, [0, 3], [7], [1.5], 9, 5, 7.0)
    save_shard(str(tmp_path / "a.npz"), good)
    assert load_shard(str(tmp_path / "a.npz"))["moves"].tolist() == [1, 2, 3]
    bad = dict(good, offsets=np.asarray([0, 5], np.int64))
    save_shard(str(tmp_path / "b.npz"), bad)
    with pytest.raises(ShardError, match="b.npz: offsets"):
        load_shard(str(tmp_path / "b.npz"))
    (tmp_path / "c.npz").write_bytes(b"not a zip")
    with pytest.raises(ShardError, match="c.npz: not a readable shard"):
        load_shard(str(tmp_path / "c.npz"))
