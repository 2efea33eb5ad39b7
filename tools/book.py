"""Build an opening book with the engine's own deep searches (as Fuego and
Pachi build theirs): from the empty board, breadth first to ``--depth``
plies, every position is searched with ``--playouts`` simulations, its
candidates (at least ``--min-share`` of the visits, at most 6) are stored
with their visits and win rates, and the ``--width`` most visited of them
are followed.  Symmetric positions are searched once.  The book is written
atomically after each position, so an interrupted run resumes where it
stopped (the same command).

    python -m tools.book --size 9 --komi 7 --config configs/9x9.toml \\
        --playouts 40000 --depth 8 --width 2 --out books/9x9.json
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from board_ext.board import Board
from engine import config as configmod
from engine.book import Book, BookError, canonical
from atomicio import atomic_write


def build(cfg, size, komi, playouts, depth, width, out, min_share=0.05, log=print):
    """Search the opening tree into the book at ``out`` (loaded first when
    it exists); returns the Book."""
    from engine.player import Player
    if os.path.exists(out):
        book = Book.load(out)
        if (book.size, book.komi, book.rules) != (size, float(komi), cfg.player.rules):
            raise BookError(f"{out} is a {book.size}x{book.size} book for komi {book.komi:g} and "
                            f"{book.rules} rules; use another --out")
    else:
        book = Book(size, komi, cfg.player.rules, playouts)
    # the engine as GTP builds it (engine.factory.build_search: a missing
    # net falls back to the expert priors)
    player = Player(cfg)
    player.new_game(size, komi)
    search = player.search()
    frontier, seen, searched = [Board(size)], set(), 0
    for ply in range(depth + 1):
        nxt = []
        for b in frontier:
            key, _ = canonical(b)
            if key in seen:
                continue
            seen.add(key)
            cands = book.lookup(b, komi, cfg.player.rules)
            if cands is None:
                t0 = time.perf_counter()
                search.clear()
                search.set_position(b, komi)
                search.run(playouts=playouts)
                rows = [r for r in search.analysis() if r.get("visits", 0) > 0]
                total = sum(r["visits"] for r in rows) or 1
                cands = [(r["move"], r["visits"], r["winrate"]) for r in rows
                         if r["visits"] >= min_share * total][:6]
                book.add(b, cands)
                atomic_write(out, book.to_json())
                searched += 1
                log(f"ply {ply}: {len(book)} positions, {searched} searched now "
                    f"({time.perf_counter() - t0:.1f} s; best {cands[0][0] if cands else '-'})")
            if ply < depth:
                for m, _v, _w in cands[:width]:
                    if m == b.pass_move:
                        continue
                    c = b.copy()
                    c.play(m)
                    nxt.append(c)
        frontier = nxt
    return book


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--komi", type=float, default=7.0)
    ap.add_argument("--config", default=None)
    ap.add_argument("--set", action="append", default=[], metavar="TABLE.KEY=VALUE")
    ap.add_argument("--playouts", type=int, default=40000)
    ap.add_argument("--depth", type=int, default=8, help="plies from the empty board")
    ap.add_argument("--width", type=int, default=2, help="candidates followed at each position")
    ap.add_argument("--min-share", type=float, default=0.05)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    try:
        cfg = configmod.load(args.config, args.set + ["search.seconds=0", "search.early_stop=false"])
    except configmod.ConfigError as e:
        ap.error(str(e))
    if not 2 <= args.size <= 19 or args.depth < 0 or args.width < 1 or args.playouts < 1:
        ap.error("--size 2..19, --depth >= 0, --width >= 1, --playouts >= 1")
    try:
        book = build(cfg, args.size, args.komi, args.playouts, args.depth, args.width, args.out, args.min_share,
                     log=lambda s: print(s, file=sys.stderr))
    except BookError as e:
        print(f"book: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"book: interrupted; the book in {args.out} is kept (the same command resumes)", file=sys.stderr)
        return 130
    print(f"book: {len(book)} positions in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
