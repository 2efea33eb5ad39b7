"""M-MCTS's claim measured without games: is the memory's value closer to
the truth than the Monte Carlo mean?

    python -m tools.mmcts_claim --size 9 --sims 1000 --teacher "katago analysis -model NET -config CFG" \\
        [--positions 200] [--teacher-visits 100] [--per-bucket 3] [--held-out records/datasets/9x9-test] \\
        [--engine configs/engine.toml] [--set KEY=VALUE ...] [--out runs/mmcts-claim] [--workers 1] [--publish]

Xiao, Mei and Müller's Theorem says the memory's estimate V̂_M of a state
is closer to its true value V* than the Monte Carlo mean V̂ of the state's
own simulations.  For held-out positions (every game of ``--held-out``, a
position at a spread of turns), one search in the paper's setting
(:data:`PAPER`: the uct tree, the net's priors by Gelly-Silver
initialisation on the first 100 nodes, every new node in a memory of
10,000 entries, M = 50, tau = 0.1, expert rollouts, one thread; the mended
memory and its decaying lambda) of ``--sims`` simulations; then, for root
children in three buckets of their own visits (1-9, 10-99, 100 and more;
at most ``--per-bucket`` of each, the most visited first), their V̂ (W/N,
their own simulations), V̂_M (the memory value backed up to them), the
blend the search used ((1 - lambda) V̂ + lambda V̂_M), and V* from the
teacher (KataGo's analysis engine at ``--teacher-visits`` visits from the
child's position), every value from the side that played into the child.

Each position's record is written atomically to ``--out/<size>-<sims>/pos-NNNN.json``
as it is done, so a run resumes where it stopped; a teacher that dies or
stalls is restarted and the position's children asked again (the run
stops after ``--restarts`` restarts).  ``--workers N`` measures in N
processes, each with its own teacher, position i going to worker i mod N;
the tallies are made once every worker is done.  The tallies, a row per
(size, sims, bucket) with ``mae_mc``, ``mae_memory``, ``mae_blend`` (mean
absolute errors against V*), ``memory_closer`` (the share of children,
among those with a memory value, where V̂_M is closer to V* than V̂) and
``children``, go to ``--out/<size>-<sims>/tallies.json``; ``--publish``
merges them into ``records/results/mmcts-claim.json`` and draws
``docs/results/mmcts-claim.png``.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys

from atomicio import atomic_savefig, atomic_write
from engine import coords
from tools import publish
from tools.label import Teacher, TeacherDied

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the paper's search (Xiao et al., section 6), with the mended memory
PAPER = ["search.tree=uct", "search.threads=1", "search.seconds=0", "search.early_stop=false",
         "search.rollout=expert", "uct.cnn_strength=200", "prior.evaluator=net", "prior.dcnn_nodes=100",
         "memory.enabled=true", "memory.nodes=all", "memory.M=50", "memory.tau=0.1", "memory.memory_size=10000",
         "memory.confidence=false", "memory.lambda_schedule=capped", "player.book=false",
         "search.value_lambda=[0.0]", "search.value_visits=[0, 0, 0]"]       # the paper's net has no value head
BUCKETS = ((1, 10, "1-10"), (10, 100, "10-100"), (100, 1 << 40, "100+"))


def positions(folder, n):
    """Up to ``n`` (moves, komi, size, tag) from the held-out games in
    ``folder``: positions spread over each game (opening, middle, end),
    taken in turn from game after game."""
    from nets.shards import load_shard
    games = []
    for path in sorted(glob.glob(os.path.join(HERE, folder, "*.npz"))):
        sh = load_shard(path)
        off = sh["offsets"]
        komi = float(sh["komi"]) if "komi" in sh else 7.5
        for g in range(len(off) - 1):
            games.append(([int(m) for m in sh["moves"][off[g]:off[g + 1]]], komi, int(sh["size"]),
                          f"{os.path.basename(path)}#{g}"))
    out, frac = [], (0.15, 0.45, 0.75, 0.3, 0.6, 0.9)
    for f in frac:
        for moves, komi, size, tag in games:
            if len(out) >= n:
                return out
            t = int(len(moves) * f)
            if t < len(moves) - 2:
                out.append((moves[:t], komi, size, f"{tag}@{t}"))
    return out


def search_position(player, moves, komi, sims):
    """One search from the position after ``moves``; the root children as
    dicts (move, N, V, VM, NM, lam, blend), values from the side that
    played into the child (the root's side to move)."""
    from board_ext.board import BLACK, WHITE
    size = player.game.size
    player.new_game(size, komi)
    for i, m in enumerate(moves):
        player.play(BLACK if i % 2 == 0 else WHITE, m)
    s = player.search()
    if s.memory is not None:
        s.memory.clear()            # a memory of this search alone
    board = player.game.board.copy()
    s.set_position(board, komi)
    s.run(playouts=sims, exact=True)
    out = []
    for move, n, w, _p, nm, vm, c in s.tree.children():
        if n < 1:
            continue
        lam = s.tree.memory_lambda(c)
        v = w / n
        out.append({"move": int(move), "N": int(n), "V": v, "VM": float(vm) if nm > 0 else None,
                    "NM": float(nm), "lam": lam, "blend": (1 - lam) * v + lam * (vm if nm > 0 else v)})
    return out, board.to_move


def pick(children, per_bucket):
    """At most ``per_bucket`` children a bucket, the most visited first."""
    out = []
    for lo, hi, _ in BUCKETS:
        inb = sorted((c for c in children if lo <= c["N"] < hi), key=lambda c: -c["N"])
        out += inb[:per_bucket]
    return out


def teacher_values(teacher, moves, komi, size, picked, to_move, visits):
    """V* for each picked child: the teacher's win rate of the child's
    position, for the side that played into it (the root's ``to_move``)."""
    cols = "BW"
    base = [[cols[i % 2], coords.to_gtp(m, size)] for i, m in enumerate(moves)]
    for k, c in enumerate(picked):
        q = {"id": f"c{k}", "moves": base + [[cols[len(moves) % 2], coords.to_gtp(c["move"], size)]],
             "rules": "chinese", "komi": float(komi), "boardXSize": size, "boardYSize": size,
             "analyzeTurns": [len(moves) + 1], "maxVisits": int(visits)}
        answers, errors = teacher.ask(q)
        if not answers:
            raise TeacherDied(f"no answer for a child ({'; '.join(errors)[:200]})")
        wr_black = float(next(iter(answers.values()))["rootInfo"]["winrate"])
        c["Vstar"] = wr_black if to_move == 1 else 1.0 - wr_black
    return picked


def tally(records, size, sims):
    rows = []
    for lo, hi, name in BUCKETS:
        ch = [c for r in records for c in r["children"] if lo <= c["N"] < hi and "Vstar" in c]
        mem = [c for c in ch if c["VM"] is not None]
        if not ch:
            continue

        def mae(key, cs):
            return sum(abs(c[key] - c["Vstar"]) for c in cs) / len(cs) if cs else None
        rows.append({"size": size, "sims": sims, "bucket": name, "children": len(ch),
                     "with_memory": len(mem), "mae_mc": mae("V", ch),
                     "mae_memory": mae("VM", mem), "mae_blend": mae("blend", ch),
                     "mae_mc_where_memory": mae("V", mem),
                     "memory_closer": (sum(abs(c["VM"] - c["Vstar"]) < abs(c["V"] - c["Vstar"]) for c in mem)
                                       / len(mem)) if mem else None})
    return rows


def publish_rows(rows):
    path = os.path.join(HERE, "records", "results", "mmcts-claim.json")
    try:
        with open(path) as fh:
            allrows = json.load(fh)
    except FileNotFoundError:
        allrows = []
    keys = {(r["size"], r["sims"], r["bucket"]) for r in rows}
    allrows = [r for r in allrows if (r["size"], r["sims"], r["bucket"]) not in keys] + rows
    allrows.sort(key=lambda r: (r["size"], r["sims"], [b[2] for b in BUCKETS].index(r["bucket"])))
    atomic_write(path, json.dumps(allrows, indent=1) + "\n")
    publish.register([path], records=os.path.join(HERE, "records"))
    _plot(allrows, os.path.join(HERE, "docs", "results", "mmcts-claim.png"))
    return path


def publish_children(records, size, sims, held_out):
    """Every searched child with its visits, Monte Carlo mean, memory value
    and V*, one compressed record a board size and budget
    (records/results/mmcts-claim-children-<n>.json.gz at 1,000 simulations,
    what bench/value_on_children.py reads the net's value against;
    ``-<n>-<sims>.json.gz`` at another budget)."""
    import gzip
    path = os.path.join(HERE, "records", "results", children_name(size, sims))
    data = json.dumps({"size": size, "sims": sims, "held_out": held_out, "teacher_visits": 100,
                       "records": records}, separators=(",", ":")).encode()
    atomic_write(path, gzip.compress(data, mtime=0))
    publish.register([path], records=os.path.join(HERE, "records"))
    return path


def children_name(size, sims):
    return f"mmcts-claim-children-{size}.json.gz" if sims == 1000 else f"mmcts-claim-children-{size}-{sims}.json.gz"


def shard(text):
    """``K/N`` (worker K of N, from 0) as (K, N)."""
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard wants K/N, got {text!r}") from None
    if not 0 <= k < n:
        raise argparse.ArgumentTypeError(f"--shard {text}: K must be in 0..N-1")
    return k, n


def run_workers(argv, workers):
    """The measurement in ``workers`` processes (this tool with ``--shard
    K/N``); the first failing worker's exit status, or 0."""
    import subprocess
    base = [a for a in argv if a != "--publish"]
    procs = [subprocess.Popen([sys.executable, "-m", "tools.mmcts_claim", *base, "--workers", "1",
                               "--shard", f"{k}/{workers}"], cwd=HERE)
             for k in range(workers)]
    codes = [p.wait() for p in procs]
    return next((c for c in codes if c), 0)


def _plot(rows, path_png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = sorted({(r["size"], r["sims"]) for r in rows})
    fig, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups), 3.4), squeeze=False)
    for ax, (size, sims) in zip(axes[0], groups):
        rs = [r for r in rows if r["size"] == size and r["sims"] == sims]
        xs = range(len(rs))
        for k, (key, label) in enumerate((("mae_mc", "Monte Carlo mean"), ("mae_memory", "memory value"),
                                          ("mae_blend", "blend"))):
            ax.bar([x + 0.27 * (k - 1) for x in xs], [r[key] or 0 for r in rs], width=0.27, label=label)
        ax.set_xticks(list(xs), [f"{r['bucket']}\n({r['children']})" for r in rs])
        ax.set_title(f"{size}x{size}, {sims} simulations", fontsize=9)
        ax.set_ylabel("mean |value - V*|")
        ax.set_xlabel("child's visits (children)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    atomic_savefig(fig, path_png, dpi=100)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.mmcts_claim", description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, required=True, choices=(9, 13, 19))
    ap.add_argument("--sims", type=int, default=1000)
    ap.add_argument("--teacher", help="the teacher's command (KataGo's analysis engine)")
    ap.add_argument("--teacher-visits", type=int, default=100)
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--per-bucket", type=int, default=3)
    ap.add_argument("--held-out", help="held-out games (default records/datasets/<size>x<size>-test)")
    ap.add_argument("--engine", default="configs/engine.toml", help="the config the paper's settings go over")
    ap.add_argument("--set", action="append", default=[], help="further overrides")
    ap.add_argument("--out", default=os.path.join(HERE, "runs", "mmcts-claim"))
    ap.add_argument("--restarts", type=int, default=5)
    ap.add_argument("--workers", type=int, default=1, help="processes measuring at once, a teacher each")
    ap.add_argument("--shard", type=shard, default=(0, 1), help=argparse.SUPPRESS)
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--publish", action="store_true")
    args = ap.parse_args(argv)
    if args.workers < 1:
        ap.error("--workers must be at least 1")
    if not args.report_only and not args.teacher:
        ap.error("--teacher is needed to measure (or --report-only)")
    out = os.path.join(args.out, f"{args.size}-{args.sims}")
    os.makedirs(out, exist_ok=True)
    if not args.report_only and args.workers > 1:
        rc = run_workers(sys.argv[1:] if argv is None else list(argv), args.workers)
        if rc:
            return rc
    elif not args.report_only:
        from tools import experiment
        pos = positions(args.held_out or f"records/datasets/{args.size}x{args.size}-test", args.positions)
        player, _ = experiment.make_engine(PAPER + args.set, args.size, engine=args.engine)
        teacher = Teacher(args.teacher, timeout=300.0)
        try:
            k, n = args.shard
            for i, (moves, komi, size, tag) in enumerate(pos):
                path = os.path.join(out, f"pos-{i + 1:04d}.json")
                if i % n != k or os.path.exists(path):
                    continue
                children, to_move = search_position(player, moves, komi, args.sims)
                picked = pick(children, args.per_bucket)
                while True:
                    try:
                        teacher_values(teacher, moves, komi, size, picked, to_move, args.teacher_visits)
                        break
                    except TeacherDied as e:
                        if teacher.restarts >= args.restarts:
                            print(f"mmcts_claim: the teacher died {teacher.restarts} times; stopping ({e})",
                                  file=sys.stderr)
                            return 2
                        print(f"mmcts_claim: {e}; restarting the teacher, position {i + 1} again", file=sys.stderr)
                        teacher.restart()
                atomic_write(path, json.dumps({"tag": tag, "to_move": to_move, "children": picked}) + "\n")
                print(f"position {i + 1}/{len(pos)} ({tag}): {len(picked)} children", file=sys.stderr, flush=True)
        finally:
            teacher.close()
        if args.shard[1] > 1:
            return 0                  # a worker's part: the tallies are the parent's, once all are done
    records = []
    for p in sorted(glob.glob(os.path.join(out, "pos-*.json"))):
        with open(p) as fh:
            records.append(json.load(fh))
    rows = tally(records, args.size, args.sims)
    atomic_write(os.path.join(out, "tallies.json"), json.dumps(rows, indent=1) + "\n")
    for r in rows:
        mem = "-" if r["mae_memory"] is None else f"{r['mae_memory']:.3f}"
        closer = "-" if r["memory_closer"] is None else f"{100 * r['memory_closer']:.1f}%"
        print(f"{args.size}x{args.size} {args.sims} sims, visits {r['bucket']}: {r['children']} children; MAE "
              f"MC {r['mae_mc']:.3f}, memory {mem}, blend {r['mae_blend']:.3f}; memory closer in {closer} "
              f"of {r['with_memory']}")
    if args.publish:
        print(f"mmcts_claim: {os.path.relpath(publish_rows(rows), HERE)}")
        held = args.held_out or f"records/datasets/{args.size}x{args.size}-test"
        print(f"mmcts_claim: {os.path.relpath(publish_children(records, args.size, args.sims, held), HERE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
