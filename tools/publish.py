"""Records apart from the code: what a run must keep goes into ``records/``
with a manifest of hashes.

    python -m tools.publish SRC [SRC ...] --to records/games/my-run   # copy files in, hash them
    python -m tools.publish --add records/datasets/teacher/9x9        # hash files already written there
    python -m tools.publish --check                                   # every record against the manifest
    python -m tools.publish --retire records/datasets/9x9-selfplay    # take files out of the tree, listed
    python -m tools.publish --restore records/datasets/9x9-selfplay   # bring retired files back from git
    python -m tools.publish --data teacher-play/19x19-g170-b6c96       # list a set of the data folder

Runs write to the ignored ``runs/`` folder (or straight into a folder of
``records/`` where a tool keeps its output as it accrues: tools.experiment's
game archives and tallies, tools.label's shards, which register each file
they write here).  ``records/MANIFEST.json`` maps each file under
``records/`` (its path from the repository root) to its sha256 and size;
the retired entries (below) are kept apart in ``records/RETIRED.json``, so
that a publish rewrites the small file only.

A record never changes behind the manifest's back: before anything is
published, every file already listed is checked, and one whose hash
disagrees with its entry stops the step, named (restore it from git, or
publish its new content deliberately with ``--add``).  Files are copied to
a temporary name and renamed; the manifest is written atomically after
them, so an interrupted step leaves at worst files not yet listed, which
``--check`` names.

A record can be listed but not present: ``--retire`` takes committed files
out of the working tree (commit the deletion afterwards) and keeps their
entries with ``"restore"``, the commit that holds them, so that
``git show COMMIT:PATH`` (or ``--restore``) brings each back, checked
against its hash.  ``--check`` passes over a retired file that is absent
and checks it where present.  What is retired: bulk training data, which
lives in the data folder outside the repository (records/README.md).

``--data SET`` lists a set of that folder (``nets.shards.data_root``) in
``records/DATA.json``: its shards, games, positions and bytes, the teacher
and settings its shards record, the command that makes it, and one hash
over its shards' names and hashes, so a set remade elsewhere can be told
from the one a net was trained on.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys

from atomicio import atomic_copy, atomic_write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDS = os.path.join(ROOT, "records")
MANIFEST = "MANIFEST.json"
RETIRED = "RETIRED.json"    # the retired entries, apart: a publish rewrites MANIFEST.json only
DATA = "DATA.json"


class RecordsError(Exception):
    """A record disagrees with the manifest, or a path is not a record."""


def _walk(top):
    """Record files under ``top``: folders named ``_*`` or ``.*`` hold
    caches derived from the records (the plane cache ``_planes``) and
    ``logs`` the engines' logs of a match; git ignores both and neither is
    a record."""
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs if not x.startswith(("_", ".")) and x != "logs")
        for fn in sorted(files):
            if fn not in (MANIFEST, RETIRED, DATA) and not fn.startswith("."):
                yield os.path.join(d, fn)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _rel(path, root):
    rel = os.path.relpath(os.path.abspath(path), root)
    if rel.startswith(".."):
        raise RecordsError(f"{path} is not under {root}")
    return rel.replace(os.sep, "/")


def is_record(path, records=RECORDS):
    """Whether ``path`` lies under ``records``."""
    return not os.path.relpath(os.path.abspath(path), os.path.abspath(records)).startswith("..")


def _read(records, name):
    p = os.path.join(records, name)
    if not os.path.exists(p):
        return {}
    with open(p) as f:
        return json.load(f)


def load_manifest(records=RECORDS):
    """Every entry: the live ones (MANIFEST.json) and the retired ones
    (RETIRED.json, each with its ``restore`` commit)."""
    man = _read(records, MANIFEST)
    man.update(_read(records, RETIRED))
    return man


def _save(manifest, records):
    """Write the entries back, the retired ones to RETIRED.json (only when
    they changed: its 8,000 entries stay one blob in the history while
    publishes come and go) and the others to MANIFEST.json."""
    live = {k: v for k, v in manifest.items() if not v.get("restore")}
    gone = {k: v for k, v in manifest.items() if v.get("restore")}
    if gone != _read(records, RETIRED):
        atomic_write(os.path.join(records, RETIRED), json.dumps(gone, indent=1, sort_keys=True) + "\n")
    atomic_write(os.path.join(records, MANIFEST), json.dumps(live, indent=1, sort_keys=True) + "\n")


def check(records=RECORDS, only=None):
    """Problems as lines: listed files missing or whose hash or size
    disagrees, and files present but not listed.  ``only``: the listed
    paths to check (default all)."""
    root = os.path.dirname(os.path.abspath(records))
    man = load_manifest(records)
    out = []
    for rel, entry in sorted(man.items()):
        if only is not None and rel not in only:
            continue
        p = os.path.join(root, rel)
        if not os.path.exists(p):
            if not entry.get("restore"):
                out.append(f"{rel}: listed in the manifest but missing")
        elif os.path.getsize(p) != entry["bytes"] or sha256(p) != entry["sha256"]:
            out.append(f"{rel}: its hash disagrees with the manifest (changed since it was published)")
    if only is None:
        for p in _walk(records):
            rel = _rel(p, root)
            if rel not in man:
                out.append(f"{rel}: a record not in the manifest")
    return out


def register(paths, records=RECORDS):
    """List ``paths`` (files under ``records``, already written) in the
    manifest with their hashes; a file listed before is published anew
    (its new content is the record now).  Before that, every other listed
    file is checked: a disagreement raises RecordsError naming it."""
    root = os.path.dirname(os.path.abspath(records))
    for p in paths:
        _rel(p, records)                   # under records/, or RecordsError
    rels = [_rel(p, root) for p in paths]
    man = load_manifest(records)
    bad = check(records, only=set(man) - set(rels))
    if bad:
        raise RecordsError("records disagree with the manifest; nothing published:\n  " + "\n  ".join(bad))
    for p, rel in zip(paths, rels):
        man[rel] = {"sha256": sha256(p), "bytes": os.path.getsize(p)}
    _save(man, records)
    return rels


def _git(root, *args, binary=False):
    r = subprocess.run(["git", "-C", root, *args], capture_output=True, text=not binary)
    if r.returncode:
        err = r.stderr.decode(errors="replace") if binary else r.stderr
        raise RecordsError(f"git {' '.join(args)}: {err.strip() or 'failed'}")
    return r.stdout


def _listed_under(man, root, paths):
    rels = []
    for p in paths:
        pre = _rel(p, root)
        hit = [r for r in man if r == pre or r.startswith(pre.rstrip("/") + "/")]
        if not hit:
            raise RecordsError(f"{pre}: no record listed there")
        rels += hit
    return sorted(set(rels))


def retire(paths, records=RECORDS):
    """Take the listed files under ``paths`` out of the working tree, each
    entry keeping the commit that holds it (HEAD, which must hold it as
    listed); their paths.  Commit the deletion afterwards."""
    root = os.path.dirname(os.path.abspath(records))
    man = load_manifest(records)
    rels = [r for r in _listed_under(man, root, paths) if not man[r].get("restore")]
    bad = check(records, only=set(rels))
    if bad:
        raise RecordsError("records disagree with the manifest; nothing retired:\n  " + "\n  ".join(bad))
    head = _git(root, "rev-parse", "HEAD").strip()
    changed = set(_git(root, "status", "--porcelain", "--", *rels).splitlines())
    tracked = set(_git(root, "ls-files", "--", *rels).splitlines())
    loose = [r for r in rels if r not in tracked]
    if loose or changed:
        raise RecordsError("only committed, unchanged files can be retired: "
                           + ", ".join((loose or sorted(changed))[:5]))
    for r in rels:
        man[r]["restore"] = head
    _save(man, records)
    for r in rels:
        os.remove(os.path.join(root, r))
    return rels


def restore(paths, records=RECORDS):
    """Bring back the retired files under ``paths`` from the commits their
    entries name, each checked against its hash; their paths."""
    root = os.path.dirname(os.path.abspath(records))
    man = load_manifest(records)
    rels = [r for r in _listed_under(man, root, paths) if man[r].get("restore")]
    out = []
    for r in rels:
        p = os.path.join(root, r)
        if os.path.exists(p):
            continue
        data = _git(root, "show", f"{man[r]['restore']}:{r}", binary=True)
        if hashlib.sha256(data).hexdigest() != man[r]["sha256"]:
            raise RecordsError(f"{r}: the copy in {man[r]['restore'][:9]} disagrees with the manifest")
        atomic_write(p, data)
        out.append(r)
    return out


def publish(srcs, dest_dir, records=RECORDS):
    """Copy ``srcs`` into ``dest_dir`` (a folder under ``records``) and
    register them; their paths."""
    _rel(dest_dir, records)
    os.makedirs(dest_dir, exist_ok=True)
    root = os.path.dirname(os.path.abspath(records))
    man = load_manifest(records)
    targets = {_rel(os.path.join(dest_dir, os.path.basename(s)), root) for s in srcs}
    bad = check(records, only=set(man) - targets)
    if bad:
        raise RecordsError("records disagree with the manifest; nothing published:\n  " + "\n  ".join(bad))
    outs = []
    for s in srcs:
        d = os.path.join(dest_dir, os.path.basename(s))
        atomic_copy(s, d)
        outs.append(d)
    register(outs, records)
    return [_rel(d, root) for d in outs]


def no_paths(cmd):
    """A command line (a string or its words) with every path reduced to
    its file name: no machine's folders in a committed record."""
    words = cmd.split() if isinstance(cmd, str) else cmd
    return " ".join(os.path.basename(t) if "/" in t and not t.startswith("-") else t for t in words)


def list_data(name, command=None, records=RECORDS, root=None):
    """Count and hash the data set ``name`` (a folder of the data folder,
    or ``root``) and list it in ``records/DATA.json``; its entry."""
    import numpy as np
    from nets.shards import data_root
    folder = os.path.join(root or data_root(), name)
    shards = sorted(f for f in os.listdir(folder) if f.endswith(".npz") and not f.startswith(".")) \
        if os.path.isdir(folder) else []
    if not shards:
        raise RecordsError(f"{folder}: no shards (*.npz)")
    h = hashlib.sha256()
    games = positions = size = 0
    meta = None
    for fn in shards:
        p = os.path.join(folder, fn)
        h.update(f"{fn} {sha256(p)}\n".encode())
        size += os.path.getsize(p)
        try:
            with np.load(p) as z:
                games += len(z["seeds"])
                positions += len(z["pos_turn"]) if "pos_turn" in z.files else int(z["is_label"].sum())
                if meta is None:
                    meta = json.loads(str(z["teacher"])) if "teacher" in z.files else {}
                    meta["size"] = int(z["size"])
        except Exception as e:
            raise RecordsError(f"{p}: not a readable shard ({type(e).__name__}: {e})") from None
    if command is None and meta.get("selfplay"):
        o = meta["selfplay"]
        command = (f"python -m tools.teacher_play --teacher \"{no_paths(meta.get('command', ''))}\" "
                   f"--size {meta['size']} " + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in sorted(o.items())
                                                        if k != "retries"))
    entry = {"shards": len(shards), "games": games, "positions": positions, "bytes": size,
             "bytes_a_position": round(size / max(positions, 1), 1), "size": meta.get("size"),
             "teacher": no_paths(meta.get("command", "")) or None, "command": command,
             "sha256": h.hexdigest()}
    path = os.path.join(records, DATA)
    sets = {}
    if os.path.exists(path):
        with open(path) as f:
            sets = json.load(f)
    sets[name] = entry
    atomic_write(path, json.dumps(sets, indent=1, sort_keys=True) + "\n")
    return entry


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("srcs", nargs="*", help="files to copy into --to")
    ap.add_argument("--to", help="a folder under records/")
    ap.add_argument("--add", nargs="+", metavar="PATH", help="files or folders under records/ to (re)hash")
    ap.add_argument("--check", action="store_true", help="check every record against the manifest")
    ap.add_argument("--retire", nargs="+", metavar="PATH", help="take listed files out of the tree (kept in git)")
    ap.add_argument("--restore", nargs="+", metavar="PATH", help="bring retired files back from git")
    ap.add_argument("--data", metavar="SET", help="list a set of the data folder in records/DATA.json")
    ap.add_argument("--command", help="with --data: the command that makes the set")
    ap.add_argument("--data-root", help=argparse.SUPPRESS)
    ap.add_argument("--records", default=RECORDS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        if args.check:
            bad = check(args.records)
            for line in bad:
                print(f"publish: {line}", file=sys.stderr)
            man = load_manifest(args.records)
            away = sum(1 for e in man.values() if e.get("restore"))
            print(f"publish: {len(man)} records ({away} retired), {len(bad)} problems", file=sys.stderr)
            return 1 if bad else 0
        if args.data:
            e = list_data(args.data, args.command, args.records, args.data_root)
            print(f"publish: {args.data}: {e['positions']} positions of {e['games']} games in {e['shards']} shards, "
                  f"{e['bytes_a_position']} bytes a position", file=sys.stderr)
            return 0
        if args.retire or args.restore:
            rels = (retire if args.retire else restore)(args.retire or args.restore, args.records)
            print(f"publish: {len(rels)} records {'retired' if args.retire else 'restored'}", file=sys.stderr)
            return 0
        if args.add:
            paths = []
            for a in args.add:
                if os.path.isdir(a):
                    paths += list(_walk(a))
                else:
                    paths.append(a)
            rels = register(paths, args.records)
        elif args.srcs and args.to:
            rels = publish(args.srcs, args.to, args.records)
        else:
            ap.error("give SRC ... --to DIR, --add PATH ..., or --check")
    except RecordsError as e:
        print(f"publish: {e}", file=sys.stderr)
        return 1
    print(f"publish: {len(rels)} records listed in {os.path.join(args.records, MANIFEST)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
