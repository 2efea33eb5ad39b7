"""Records apart from the code (tools/publish.py): every file under
records/ is listed in its manifest with the hash it has; docs/results
keeps reports, not raw records; a record changed behind the manifest's
back stops the publish step, named."""
import os

import pytest

from tools import publish

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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


TREE_LIMIT = 48 * 1024 * 1024      # a GPU machine takes a working tree of 64 MiB


def test_the_tracked_tree_travels():
    """The files git tracks stay under 48 MiB: the repository is what
    users clone and what travels to a GPU machine (bulk data lives in the
    data folder, records/README.md)."""
    import subprocess
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True, check=True).stdout
    paths = [p for p in out.decode().split("\0") if p]
    assert len(paths) > 100
    total = sum(os.path.getsize(os.path.join(ROOT, p)) for p in paths if os.path.isfile(os.path.join(ROOT, p)))
    assert total <= TREE_LIMIT, f"the tracked tree is {total / 2**20:.1f} MiB, over {TREE_LIMIT / 2**20:.0f} MiB"


def _git(cwd, *args):
    import subprocess
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                            GIT_COMMITTER_EMAIL="t@t"))


def test_retired_records_are_listed_not_present_and_come_back(tmp_path, capsys):
    """--retire takes committed records out of the tree, each entry keeping
    the commit that holds it; --check passes without them and checks one
    that is back; --restore brings them back from git, checked; only
    committed, unchanged files retire."""
    repo = tmp_path / "repo"
    records = repo / "records"
    (records / "datasets" / "d").mkdir(parents=True)
    for i in range(3):
        (records / "datasets" / "d" / f"s{i}.npz").write_bytes(b"shard %d" % i)
    (records / "games").mkdir()
    (records / "games" / "g.jsonl.gz").write_bytes(b"games")
    _git(repo, "init", "-q")
    assert publish.main(["--add", str(records), "--records", str(records)]) == 0
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "records")
    assert publish.main(["--retire", str(records / "datasets" / "d"), "--records", str(records)]) == 0
    assert not (records / "datasets" / "d" / "s0.npz").exists()
    man = publish.load_manifest(str(records))
    assert all(man[f"records/datasets/d/s{i}.npz"].get("restore") for i in range(3))
    assert "restore" not in man["records/games/g.jsonl.gz"]
    assert publish.check(str(records)) == []                       # listed, not present: fine
    (records / "games" / "g.jsonl.gz").unlink()                     # a record that was not retired: missing
    assert any("g.jsonl.gz" in line and "missing" in line for line in publish.check(str(records)))
    _git(repo, "checkout", "-q", "--", "records/games")
    assert publish.main(["--restore", str(records / "datasets"), "--records", str(records)]) == 0
    assert (records / "datasets" / "d" / "s2.npz").read_bytes() == b"shard 2"
    (records / "datasets" / "d" / "s1.npz").write_bytes(b"edited")  # present again: checked
    assert any("s1.npz" in line and "disagrees" in line for line in publish.check(str(records)))
    (records / "datasets" / "d" / "s1.npz").write_bytes(b"shard 1")
    (records / "games" / "new.txt").write_text("not committed")
    retired = (records / "RETIRED.json").read_bytes()
    assert "datasets/d/s0.npz" in retired.decode() and "s0.npz" not in (records / "MANIFEST.json").read_text()
    assert publish.main(["--add", str(records / "games" / "new.txt"), "--records", str(records)]) == 0
    assert (records / "RETIRED.json").read_bytes() == retired      # a publish leaves the retired entries alone
    capsys.readouterr()
    assert publish.main(["--retire", str(records / "games"), "--records", str(records)]) == 1
    assert "only committed" in capsys.readouterr().err
    assert (records / "games" / "g.jsonl.gz").exists()             # nothing retired


def test_the_results_index_reads_row_by_row():
    """docs/results/README.md: each row a headline and a link, no row over
    120 words (the detail lives in its page)."""
    with open(os.path.join(ROOT, "docs", "results", "README.md")) as f:
        rows = [ln for ln in f if ln.startswith("|") and not ln.startswith("|---")]
    assert len(rows) > 20
    long = [(len(r.split()), r[:60]) for r in rows if len(r.split()) > 120]
    assert long == []
    assert all("](" in r for r in rows[1:])
