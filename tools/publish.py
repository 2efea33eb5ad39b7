"""Records apart from the code: what a run must keep goes into ``records/``
with a manifest of hashes.

    python -m tools.publish SRC [SRC ...] --to records/games/my-run   # copy files in, hash them
    python -m tools.publish --add records/datasets/teacher/9x9        # hash files already written there
    python -m tools.publish --check                                   # every record against the manifest

Runs write to the ignored ``runs/`` folder (or straight into a folder of
``records/`` where a tool keeps its output as it accrues: tools.experiment's
game archives and tallies, tools.label's shards, which register each file
they write here).  ``records/MANIFEST.json`` maps each file under
``records/`` (its path from the repository root) to its sha256 and size.

A record never changes behind the manifest's back: before anything is
published, every file already listed is checked, and one whose hash
disagrees with its entry stops the step, named (restore it from git, or
publish its new content deliberately with ``--add``).  Files are copied to
a temporary name and renamed; the manifest is written atomically after
them, so an interrupted step leaves at worst files not yet listed, which
``--check`` names.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys

from atomicio import atomic_write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDS = os.path.join(ROOT, "records")
MANIFEST = "MANIFEST.json"


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
            if fn != MANIFEST and not fn.startswith("."):
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


def load_manifest(records=RECORDS):
    p = os.path.join(records, MANIFEST)
    if not os.path.exists(p):
        return {}
    with open(p) as f:
        return json.load(f)


def _save(manifest, records):
    atomic_write(os.path.join(records, MANIFEST), json.dumps(manifest, indent=1, sort_keys=True) + "\n")


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
        shutil.copyfile(s, d + ".tmp")
        os.replace(d + ".tmp", d)
        outs.append(d)
    register(outs, records)
    return [_rel(d, root) for d in outs]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("srcs", nargs="*", help="files to copy into --to")
    ap.add_argument("--to", help="a folder under records/")
    ap.add_argument("--add", nargs="+", metavar="PATH", help="files or folders under records/ to (re)hash")
    ap.add_argument("--check", action="store_true", help="check every record against the manifest")
    ap.add_argument("--records", default=RECORDS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    try:
        if args.check:
            bad = check(args.records)
            for line in bad:
                print(f"publish: {line}", file=sys.stderr)
            n = len(load_manifest(args.records))
            print(f"publish: {n} records, {len(bad)} problems", file=sys.stderr)
            return 1 if bad else 0
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
