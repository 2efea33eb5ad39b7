"""A result row's game records as one compressed SGF collection.

    python -m tools.sgfpack pack records/games/strength/gnugo-l10-2000 [--keep 1]
    python -m tools.sgfpack unpack records/games/strength/gnugo-l10-2000

``pack`` joins every ``*.sgf`` of a row's folder, in name order, into
``games.sgf.xz`` (an SGF collection, ``(;...)(;...)``, that Sabaki and
sgfmill read once decompressed) with ``games.names`` (the file names, one
a line, in the same order), and removes the single files but the first
``--keep`` as illustrative games.  ``unpack`` writes the single files back
(those kept are left as they are), so a match or experiment can resume in
the folder.  Both write atomically: a killed run leaves either the old
files or the new ones.  What else a row holds (results.json, tables,
jsonl.gz records) stays as it is.
"""
import argparse
import lzma
import os
import sys

from atomicio import atomic_write

PACK = "games.sgf.xz"
NAMES = "games.names"


def _games(folder):
    return sorted(f for f in os.listdir(folder) if f.endswith(".sgf"))


def pack(folder, keep=1):
    """Fold the SGF files of folder into its collection; returns how many
    games the collection holds."""
    have = unpack(folder) if os.path.exists(os.path.join(folder, PACK)) else 0
    names = _games(folder)
    if not names:
        return have
    texts = []
    for n in names:
        with open(os.path.join(folder, n), encoding="utf-8") as f:
            t = f.read().strip()
        if not t.startswith("("):
            raise ValueError(f"{os.path.join(folder, n)}: not an SGF game")
        texts.append(t)
    atomic_write(os.path.join(folder, PACK), lzma.compress(("\n".join(texts) + "\n").encode()))
    atomic_write(os.path.join(folder, NAMES), "\n".join(names) + "\n")
    for n in names[keep:]:
        os.remove(os.path.join(folder, n))
    return len(names)


def split_collection(text):
    """The game trees of an SGF collection, each as its own text (brackets
    inside property values, escapes included, do not count)."""
    out, depth, start, i, in_value = [], 0, None, 0, False
    while i < len(text):
        ch = text[i]
        if in_value:
            if ch == "\\":
                i += 1
            elif ch == "]":
                in_value = False
        elif ch == "[":
            in_value = True
        elif ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                out.append(text[start:i + 1])
        i += 1
    return out


def read(folder):
    """The collection's games as {file name: SGF text}, in name order."""
    with open(os.path.join(folder, PACK), "rb") as f:
        text = lzma.decompress(f.read()).decode()
    with open(os.path.join(folder, NAMES), encoding="utf-8") as f:
        names = [ln.strip() for ln in f if ln.strip()]
    games = split_collection(text)
    if len(games) != len(names):
        raise ValueError(f"{folder}: {len(games)} games in {PACK}, {len(names)} names in {NAMES}")
    return dict(zip(names, games))


def unpack(folder):
    """Write the collection's games back as single files; returns their number."""
    games = read(folder)
    for n, g in games.items():
        p = os.path.join(folder, n)
        if not os.path.exists(p):
            atomic_write(p, g + "\n")
    return len(games)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("action", choices=("pack", "unpack"))
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--keep", type=int, default=1, help="single SGF files left as examples (pack)")
    args = ap.parse_args(argv)
    for d in args.folders:
        n = pack(d, args.keep) if args.action == "pack" else unpack(d)
        print(f"{d}: {n} games {'in ' + PACK if args.action == 'pack' else 'written'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
