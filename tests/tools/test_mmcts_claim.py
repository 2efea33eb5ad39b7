"""tools.mmcts_claim: the paper's search on held-out positions, the root
children's values against a teacher's, a record a position (resumable),
a teacher that dies restarted and its position asked again."""
import json
import os

import pytest

from tests.tools.test_label import fake_teacher
from tools import mmcts_claim


@pytest.mark.slow
def test_claim_records_tallies_and_survives_a_dying_teacher(tmp_path, capsys):
    out = tmp_path / "claim"
    argv = ["--size", "9", "--sims", "120", "--positions", "2", "--per-bucket", "2",
            "--teacher", fake_teacher(tmp_path, "die"), "--out", str(out)]
    assert mmcts_claim.main(argv) == 0
    assert "restarting the teacher" in capsys.readouterr().err
    recs = sorted((out / "9-120").glob("pos-*.json"))
    assert [p.name for p in recs] == ["pos-0001.json", "pos-0002.json"]
    for p in recs:
        r = json.loads(p.read_text())
        assert r["children"] and all(c["Vstar"] == 0.5 for c in r["children"])     # the fake's win rate
        for c in r["children"]:
            assert c["N"] >= 1 and 0 <= c["V"] <= 1 and 0 <= c["lam"] <= 1
            if c["VM"] is not None:
                assert c["blend"] == pytest.approx((1 - c["lam"]) * c["V"] + c["lam"] * c["VM"])
    rows = json.loads((out / "9-120" / "tallies.json").read_text())
    assert rows and {r["bucket"] for r in rows} <= {"1-10", "10-100", "100+"}
    for r in rows:
        assert r["size"] == 9 and r["sims"] == 120 and r["children"] > 0
        assert r["mae_mc"] >= 0 and (r["memory_closer"] is None or 0 <= r["memory_closer"] <= 1)
    # a rerun resumes: nothing is searched or asked again
    before = [os.path.getmtime(p) for p in recs]
    assert mmcts_claim.main(argv) == 0
    assert [os.path.getmtime(p) for p in recs] == before


def test_children_are_picked_by_bucket():
    kids = [{"N": n} for n in (1, 2, 3, 15, 40, 99, 100, 500)]
    got = [c["N"] for c in mmcts_claim.pick(kids, 2)]
    assert got == [3, 2, 99, 40, 500, 100]


@pytest.mark.slow
def test_workers_split_the_positions_and_tally_once(tmp_path):
    out = tmp_path / "claim"
    argv = ["--size", "9", "--sims", "60", "--positions", "3", "--per-bucket", "1",
            "--teacher", fake_teacher(tmp_path, "ok"), "--out", str(out), "--workers", "2"]
    assert mmcts_claim.main(argv) == 0
    recs = sorted(p.name for p in (out / "9-60").glob("pos-*.json"))
    assert recs == ["pos-0001.json", "pos-0002.json", "pos-0003.json"]
    rows = json.loads((out / "9-60" / "tallies.json").read_text())
    assert sum(r["children"] for r in rows) == sum(
        len(json.loads((out / "9-60" / n).read_text())["children"]) for n in recs)


def test_shards_and_record_names():
    assert mmcts_claim.shard("1/3") == (1, 3)
    for bad in ("3/3", "x", "1/0", "-1/2"):
        with pytest.raises(Exception):
            mmcts_claim.shard(bad)
    assert mmcts_claim.children_name(9, 1000) == "mmcts-claim-children-9.json.gz"
    assert mmcts_claim.children_name(19, 10000) == "mmcts-claim-children-19-10000.json.gz"
    with pytest.raises(SystemExit):
        mmcts_claim.main(["--size", "9", "--workers", "0", "--report-only"])
