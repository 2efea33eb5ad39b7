"""Records apart from the code (tools/publish.py): every file under
records/ is listed in its manifest with the hash it has; docs/results
keeps reports, not raw records; a record changed behind the manifest's
back stops the publish step, named."""
import os

import pytest

from tools import publish

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_every_record_matches_the_manifest():
    assert publish.check() == []
    assert len(publish.load_manifest()) > 100


def test_docs_results_hold_reports_not_raw_records():
    root = os.path.join(ROOT, "docs", "results")
    files = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs]
    raw = [f for f in files if f.endswith((".json", ".jsonl", ".jsonl.gz", ".npz", ".sgf", ".xz", ".gz"))]
    assert raw == [], f"raw records under docs/results (they belong under records/): {raw[:5]}"
    assert sum(os.path.getsize(f) for f in files) <= 2 * 1024 * 1024


def test_publish_lists_files_and_a_changed_record_stops_it(tmp_path, capsys):
    records = tmp_path / "records"
    src = tmp_path / "runs" / "a.jsonl.gz"
    src.parent.mkdir()
    src.write_bytes(b"game records")
    assert publish.main([str(src), "--to", str(records / "games" / "x"), "--records", str(records)]) == 0
    man = publish.load_manifest(str(records))
    assert list(man) == ["records/games/x/a.jsonl.gz"] and man["records/games/x/a.jsonl.gz"]["bytes"] == 12
    assert publish.main(["--check", "--records", str(records)]) == 0
    (records / "games" / "x" / "a.jsonl.gz").write_bytes(b"game records, edited")
    b = tmp_path / "runs" / "b.npz"
    b.write_bytes(b"shard")
    capsys.readouterr()
    assert publish.main([str(b), "--to", str(records / "datasets"), "--records", str(records)]) == 1
    err = capsys.readouterr().err
    assert "records/games/x/a.jsonl.gz" in err and "disagrees" in err
    assert not (records / "datasets" / "b.npz").exists()              # nothing published
    assert publish.main(["--check", "--records", str(records)]) == 1
    (records / "stray.txt").write_text("x")
    assert any("stray.txt" in line and "not in the manifest" in line for line in publish.check(str(records)))
    with pytest.raises(publish.RecordsError):
        publish.register([str(tmp_path / "runs" / "b.npz")], records=str(records))   # not under records/


def test_derived_caches_are_not_records(tmp_path):
    """The plane cache (``_planes``) is rebuilt from the shards on any
    machine and a match's engine logs stay on it (both ignored by git):
    neither listed by --add nor required by --check."""
    records = tmp_path / "records"
    shard = records / "datasets" / "d" / "a.npz"
    cache = records / "datasets" / "d" / "_planes" / "p30" / "a.npz"
    log = records / "datasets" / "d" / "logs" / "game-0001-b.log"
    for p in (cache, log):
        p.parent.mkdir(parents=True)
    shard.write_bytes(b"shard")
    cache.write_bytes(b"planes")
    log.write_text("stderr")
    assert publish.main(["--add", str(records / "datasets"), "--records", str(records)]) == 0
    assert list(publish.load_manifest(str(records))) == ["records/datasets/d/a.npz"]
    cache.unlink()
    log.unlink()
    assert publish.check(str(records)) == []
