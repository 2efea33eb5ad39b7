"""Build an opening book, from the engine's own deep searches (as Fuego and
Pachi build theirs) or from a teacher's (KataGo's JSON analysis engine, as
KataGo's own 9x9 books are made).

The engine's book: from the empty board, breadth first to ``--depth``
plies, every position is searched with ``--playouts`` simulations, its
candidates (at least ``--min-share`` of the visits, at most 6) are stored
with their visits and win rates, and the ``--width`` most visited of them
are followed.

    python -m tools.book --size 9 --komi 7 --config configs/9x9.toml \\
        --playouts 40000 --depth 8 --width 2 --out books/9x9.json

The teacher's book (``--teacher CMD --visits N``): the positions the book's
player meets most often, best first.  A position's reach is, for each colour
the book may play, the chance that a game gets there when that colour plays
the book's move (the teacher's most visited) and the other colour plays by
the teacher's policy; positions are analysed in the order of their larger
reach until ``--positions`` are in the book, or the best left reaches less
than ``--min-reach``, never past ``--depth`` plies.  Transpositions and
symmetric positions share one entry and their reaches add up.

    python -m tools.book --size 9 --komi 7 --teacher "$KB10" --visits 200 \\
        --positions 400 --depth 16 --out records/games/book/9x9-b10.json

Symmetric positions are analysed once.  The book (and, for a teacher's, the
teacher's answers in ``<out>.tree.json``) is written atomically after each
position, so an interrupted run resumes where it stopped (the same command).
"""
from __future__ import annotations

import argparse
import heapq
import json
import os
import sys
import time

import numpy as np

from board_ext.board import Board
from engine import config as configmod
from engine import coords
from engine.book import Book, BookError, canonical, symmetries
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


def _teacher_answer(obj, board):
    """A teacher's answer -> (candidates [(flat move, visits, win rate of the
    side to move)] most visited first, policy [(flat move, probability)]);
    ValueError naming what is wrong."""
    from tools.label import parse_answer
    size = board.size
    p, _share, _wr, _lead, _own = parse_answer(obj, size, board.to_move - 1, 1)
    cands = []
    for mi in obj.get("moveInfos") or []:
        try:
            m, v, w = coords.from_gtp(str(mi["move"]), size), int(mi["visits"]), float(mi["winrate"])
        except (KeyError, ValueError, TypeError, coords.BadVertex):
            raise ValueError(f"moveInfos entry {mi!r}") from None
        if not 0.0 <= w <= 1.0:
            raise ValueError(f"moveInfos win rate {w!r}")
        cands.append((m, v, w if board.to_move == 1 else 1.0 - w))   # the teacher reports Black's
    if not cands:
        raise ValueError("no moveInfos")
    cands.sort(key=lambda c: (-c[1], -c[2]))
    policy = [(int(m), float(p[m])) for m in np.argsort(-p)[:16] if p[m] > 0]
    return cands, policy


def build_from_teacher(teacher_cmd, size, komi, rules, visits, positions, out, depth=16, min_reach=0.005,
                       min_share=0.05, timeout=300.0, log=print):
    """Analyse the opening tree with a teacher (KataGo's analysis engine)
    into the book at ``out``, the positions of largest reach first (the
    module's doc); returns the Book.  The teacher's answers are kept in
    ``<out>.tree.json`` (canonical orientation), from which a rerun
    resumes."""
    from tools.label import Teacher, TeacherDied, game_query, teacher_problem
    problem = teacher_problem(teacher_cmd)
    if problem:
        raise BookError(problem)
    tree_path = out + ".tree.json"
    tree = {}
    if os.path.exists(tree_path):
        try:
            with open(tree_path, encoding="utf-8") as fh:
                d = json.load(fh)
            if (d["size"], float(d["komi"]), d["rules"]) != (size, float(komi), rules):
                raise BookError(f"{tree_path} is for {d['size']}x{d['size']}, komi {d['komi']}, {d['rules']}; "
                                f"use another --out")
            tree = {k: ([(coords.from_gtp(m, size), int(v), float(w)) for m, v, w in e["cands"]],
                        [(coords.from_gtp(m, size), float(q)) for m, q in e["policy"]])
                    for k, e in d["positions"].items()}
        except (OSError, ValueError, KeyError, TypeError, coords.BadVertex) as e:
            raise BookError(f"{tree_path}: not a book's tree ({e})") from None
    perms, nn = symmetries(size), size * size
    inverse = [{q: p for p, q in enumerate(perm)} for perm in perms]

    def save():
        book = Book(size, komi, rules, visits)
        rows = {}
        for key, (cands, policy) in tree.items():
            total = sum(v for _m, v, _w in cands) or 1
            book.positions[key] = [c for c in cands if c[1] >= min_share * total][:6] or cands[:1]
            rows[key] = {"cands": [[coords.to_gtp(m, size), v, round(w, 4)] for m, v, w in cands],
                         "policy": [[coords.to_gtp(m, size), round(q, 5)] for m, q in policy]}
        atomic_write(tree_path, json.dumps({"size": size, "komi": float(komi), "rules": rules, "visits": visits,
                                            "positions": rows}, sort_keys=True) + "\n")
        atomic_write(out, book.to_json())
        return book

    teacher = None
    # reach[key] = [Black's, White's]: the chance of the position when that colour plays the book
    reach, where, heap, seq, done, asked = {}, {}, [], 0, set(), 0
    root = Board(size)
    key0, _ = canonical(root)
    reach[key0], where[key0] = [1.0, 1.0], (root, [])
    heap.append((-1.0, 0, key0))
    try:
        while heap and len(done) < positions:
            negp, _s, key = heapq.heappop(heap)
            if key in done or -negp != max(reach[key]):
                continue                                   # seen, or an entry of an older reach
            if -negp < min_reach:
                break
            board, moves = where[key]
            _, k = canonical(board)
            if key in tree:
                cands_c, policy_c = tree[key]
                cands = [(inverse[k][m] if m < nn else nn, v, w) for m, v, w in cands_c]
                policy = [(inverse[k][m] if m < nn else nn, q) for m, q in policy_c]
            else:
                if teacher is None:
                    teacher = Teacher(teacher_cmd, timeout=timeout)
                q = dict(game_query(str(asked), moves, size, komi, [len(moves)], visits), rules=rules)
                asked += 1
                t0 = time.perf_counter()
                try:
                    answers, errors = teacher.ask(q)
                except TeacherDied as e:
                    raise BookError(f"the teacher stopped: {e}") from None
                for e in errors:
                    log(f"book: {e}")
                try:
                    cands, policy = _teacher_answer(answers[len(moves)], board)
                except (KeyError, ValueError) as e:
                    log(f"book: position after {' '.join(coords.to_gtp(m, size) for m in moves) or 'none'} "
                        f"skipped: {e}")
                    done.add(key)
                    continue
                # kept as the tree file keeps them, so that a resumed run takes the same positions
                cands = [(m, v, round(w, 4)) for m, v, w in cands]
                policy = [(m, round(q, 5)) for m, q in policy]
                tree[key] = ([(perms[k][m] if m < nn else nn, v, w) for m, v, w in cands],
                             [(perms[k][m] if m < nn else nn, q) for m, q in policy])
                book = save()
                log(f"ply {len(moves)}: reach {-negp:.3f}, best {coords.to_gtp(cands[0][0], size)} "
                    f"({cands[0][2]:.3f}), {len(book)} positions ({time.perf_counter() - t0:.1f} s)")
            done.add(key)
            if len(moves) >= depth:
                continue
            best = cands[0][0]
            mover = board.to_move - 1                      # 0 Black, 1 White
            kids, tried = {}, set()
            for m, q in policy + [(best, 0.0)]:
                if m == nn or m in tried or not board.is_legal(m):
                    continue
                tried.add(m)
                c = board.copy()
                c.play(m)
                ck, _ = canonical(c)
                r = list(reach[key])
                r[mover] *= 1.0 if m == best else 0.0      # the book's colour plays the book's move
                r[1 - mover] *= q                           # the other colour plays by the policy
                if ck not in kids:
                    kids[ck] = (c, moves + [m], [0.0, 0.0])
                kids[ck][2][0] += r[0]
                kids[ck][2][1] += r[1]
            for ck, (c, mv, r) in kids.items():
                if ck in done or max(r) <= 0.0:
                    continue                                   # both colours off the book's move: never met
                old = reach.get(ck, [0.0, 0.0])
                reach[ck] = [min(1.0, old[0] + r[0]), min(1.0, old[1] + r[1])]
                where.setdefault(ck, (c, mv))
                seq += 1
                heapq.heappush(heap, (-max(reach[ck]), seq, ck))
    finally:
        if teacher is not None:
            teacher.close()
    return save()


def book_moves_expected(tree_path, temperature=1.0):
    """From a teacher's book's tree (``<out>.tree.json``): for Black and for
    White, the number of moves the book plays on average in a game against
    an opponent who plays by the teacher's policy (its 16 likeliest moves, at
    ``temperature``; the rest leave the book), the book's colour playing the
    book's move.  Returns (Black's, White's)."""
    with open(tree_path, encoding="utf-8") as fh:
        d = json.load(fh)
    size, nn = int(d["size"]), int(d["size"]) ** 2
    perms = symmetries(size)
    inverse = [{q: p for p, q in enumerate(perm)} for perm in perms]
    tree = d["positions"]
    out = []
    for colour in (1, 2):
        memo = {}

        def moves_from(board):
            key, k = canonical(board)
            if key in memo:
                return memo[key]
            memo[key] = 0.0                            # a cycle (none in an opening) counts nothing
            e = tree.get(key)
            if e is None:
                return 0.0
            if board.to_move == colour:
                m = coords.from_gtp(e["cands"][0][0], size)
                m = inverse[k][m] if m < nn else nn
                if m == nn or not board.is_legal(m):
                    val = 0.0
                else:
                    c = board.copy()
                    c.play(m)
                    val = 1.0 + moves_from(c)
            else:
                pol = [(coords.from_gtp(mv, size), q ** (1.0 / temperature)) for mv, q in e["policy"]]
                # at 1 the policy's own mass (what is past its 16 likeliest leaves the book); else
                # p^(1/t) over those 16 (little is left outside them)
                total = 1.0 if temperature == 1.0 else sum(q for _m, q in pol) + 1e-12
                val = 0.0
                for m, q in pol:
                    m = inverse[k][m] if m < nn else nn
                    if m == nn or not board.is_legal(m):
                        continue
                    c = board.copy()
                    c.play(m)
                    val += q / total * moves_from(c)
            memo[key] = val
            return val

        out.append(moves_from(Board(size)))
    return tuple(out)


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
    ap.add_argument("--teacher", default=None, metavar="CMD",
                    help="build from this JSON analysis engine's answers (KataGo's; docs/TEACHER.md) instead")
    ap.add_argument("--visits", type=int, default=200, help="the teacher's visits a position")
    ap.add_argument("--positions", type=int, default=400, help="the teacher's book: positions to analyse")
    ap.add_argument("--min-reach", type=float, default=0.005,
                    help="the teacher's book: no position reached less often than this")
    ap.add_argument("--rules", default="chinese", help="the teacher's book: the rules it is for")
    args = ap.parse_args(argv)
    log = lambda s: print(s, file=sys.stderr)  # noqa: E731
    if args.teacher:
        if not 2 <= args.size <= 19 or args.depth < 0 or args.visits < 1 or args.positions < 1:
            ap.error("--size 2..19, --depth >= 0, --visits >= 1, --positions >= 1")
        make = lambda: build_from_teacher(args.teacher, args.size, args.komi, args.rules, args.visits,  # noqa: E731
                                          args.positions, args.out, depth=args.depth, min_reach=args.min_reach,
                                          min_share=args.min_share, log=log)
    else:
        try:
            cfg = configmod.load(args.config, args.set + ["search.seconds=0", "search.early_stop=false"])
        except configmod.ConfigError as e:
            ap.error(str(e))
        if not 2 <= args.size <= 19 or args.depth < 0 or args.width < 1 or args.playouts < 1:
            ap.error("--size 2..19, --depth >= 0, --width >= 1, --playouts >= 1")
        make = lambda: build(cfg, args.size, args.komi, args.playouts, args.depth, args.width, args.out,  # noqa: E731
                             args.min_share, log=log)
    try:
        book = make()
    except BookError as e:
        print(f"book: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"book: interrupted; the book in {args.out} is kept (the same command resumes)", file=sys.stderr)
        return 130
    if args.teacher:
        black, white = book_moves_expected(args.out + ".tree.json")
        print(f"book: {len(book)} positions in {args.out}; against the teacher's policy it plays "
              f"{black:.1f} of Black's moves and {white:.1f} of White's on average")
    else:
        print(f"book: {len(book)} positions in {args.out}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
