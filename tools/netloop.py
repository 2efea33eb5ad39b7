"""The net's loop: generate, train, gate, ship.

    python -m tools.netloop gate --size 9 --candidate nets/weights/9x9-next.pt \\
        [--games 200] [--playouts 2000] [--workers 2] [--ship] --out runs/gate/9x9-next
    python -m tools.netloop ship --size 9 --candidate nets/weights/9x9-next.pt
    python -m tools.netloop cycle --size 9 --train-config configs/nets/9x9-next.toml \\
        [--selfplay-games 500] [--selfplay-playouts 800] [--games 200] [--workers 2] --out runs/loop

``gate`` plays the engine with the candidate weights against the same
engine with the shipped ones (``nets/weights/<n>x<n>.pt``), the same config
(``configs/<n>x<n>.toml`` or ``--config``) at equal simulations
(``--playouts`` a move, no clock), colours alternating, through
``tools.match`` (so it resumes and refuses other settings).  The candidate
passes when it wins at least ``--threshold`` (0.55) of ``--games`` (200)
games; with ``--ship`` a pass ships it.  The verdict and the figures go to
``<out>/gate.json``; the exit status is 0 for a pass, 1 for a fail.

A candidate whose value head the config mixes in (``--set
search.value_lambda=0.5``) is gated with that setting on its side only: the
shipped net without a value head plays the rollouts alone.

``ship`` copies the candidate's weights and metadata over the shipped
``<n>x<n>.pt`` / ``.json`` (temporary file + rename) and records the gate
that passed it in the metadata (``gate``).

``cycle`` runs the three steps: self-play of the shipped engine with visit
distributions (``tools.selfplay --data``) into ``data/selfplay-<n>x<n>``,
training (``nets.train`` with ``--train-config``, whose ``data_dirs``
should name that directory), then ``gate --ship``.  Each step resumes
where an interrupted run left it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from atomicio import atomic_copy, atomic_write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THRESHOLD = 0.55


def shipped_path(size, weights_dir=None):
    from nets.evaluator import WEIGHTS_DIR, weights_path
    return weights_path(size, weights_dir or WEIGHTS_DIR)


def gate(size, candidate, out, games=200, playouts=2000, config=None, sets=(), cand_sets=(),
         workers=1, threshold=THRESHOLD, komi=7.0, progress=True, ray=None, ray_cpus=None):
    """Candidate weights against the shipped ones at equal simulations;
    returns the verdict dict (also written to out/gate.json)."""
    from tools.match import our_engine_command, play_match
    if not os.path.exists(candidate):
        raise FileNotFoundError(f"candidate weights {candidate} do not exist")
    shipped = shipped_path(size)
    config = config or os.path.join(ROOT, "configs", f"{size}x{size}.toml")
    common = ["search.seconds=0", f"search.playouts={playouts}", *sets]
    a = our_engine_command(config, common + [f"net.weights={os.path.abspath(candidate)}", *cand_sets])
    b = our_engine_command(config, common + [f"net.weights={shipped}"])
    res = play_match(a, b, games, size, komi, out, workers, names=("candidate", "shipped"),
                     progress=progress, ray=ray, ray_cpus=ray_cpus)
    s = res["summary"]["a"]
    verdict = {"candidate": os.path.relpath(os.path.abspath(candidate), ROOT),
               "shipped": os.path.relpath(shipped, ROOT), "size": size, "komi": komi,
               "playouts": playouts, "config": os.path.relpath(os.path.abspath(config), ROOT),
               "sets": list(sets), "candidate_sets": list(cand_sets), "games": s["games"],
               "wins": s["wins"], "losses": s["losses"], "draws": s["draws"],
               "winrate": s["winrate"], "wilson_lo": s["wilson_lo"], "wilson_hi": s["wilson_hi"],
               "threshold": threshold, "games_asked": games,
               "passed": bool(s["games"] >= games and s["winrate"] >= threshold)}
    atomic_write(os.path.join(out, "gate.json"), json.dumps(verdict, indent=1) + "\n")
    return verdict


def ship(size, candidate, verdict=None, weights_dir=None):
    """Copy the candidate (``.pt`` and ``.json``) over the shipped net (in
    ``weights_dir``, default nets/weights)."""
    from nets.evaluator import Evaluator
    ev = Evaluator.load(candidate)        # a candidate that does not load is never shipped
    if ev.board_size != size:
        raise ValueError(f"{candidate} is a {ev.board_size}x{ev.board_size} net, not {size}x{size}")
    dst = shipped_path(size, weights_dir)
    meta_src = os.path.splitext(candidate)[0] + ".json"
    meta = {}
    if os.path.exists(meta_src):
        with open(meta_src) as f:
            meta = json.load(f)
    meta["name"] = f"{size}x{size}"
    meta["weights"] = os.path.basename(dst)
    if verdict is not None:
        meta["gate"] = verdict
    atomic_copy(candidate, dst, mode=0o644)
    atomic_write(os.path.splitext(dst)[0] + ".json", json.dumps(meta, indent=1) + "\n")
    return dst


def _fmt(v):
    return (f"{v['winrate']:.1%} ({v['wilson_lo']:.1%}-{v['wilson_hi']:.1%}) over {v['games']} games, "
            f"threshold {v['threshold']:.0%}: {'passed' if v['passed'] else 'failed'}")


def main(argv=None):
    from tools.fanout import add_arguments, ray_target
    ap = argparse.ArgumentParser(prog="python -m tools.netloop", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gate", help="candidate against the shipped net at equal simulations")
    s = sub.add_parser("ship", help="copy the candidate over the shipped net")
    c = sub.add_parser("cycle", help="self-play, train, gate, ship")
    for p in (g, s, c):
        p.add_argument("--size", type=int, default=9)
    for p in (g, s):
        p.add_argument("--candidate", required=True, help="weights file (.pt) to gate or ship")
    for p in (g, c):
        p.add_argument("--games", type=int, default=200)
        p.add_argument("--playouts", type=int, default=2000, help="simulations a move, both sides")
        p.add_argument("--komi", type=float, default=7.0)
        p.add_argument("--config", default=None, help="engine config (default configs/<n>x<n>.toml)")
        p.add_argument("--set", action="append", default=[], metavar="TABLE.KEY=VALUE",
                       help="engine setting for both sides")
        p.add_argument("--candidate-set", action="append", default=[], metavar="TABLE.KEY=VALUE",
                       help="engine setting for the candidate's side only")
        p.add_argument("--threshold", type=float, default=THRESHOLD)
        p.add_argument("--workers", type=int, default=None)
        p.add_argument("--out", required=True)
        add_arguments(p)
    g.add_argument("--ship", action="store_true", help="ship the candidate when it passes")
    c.add_argument("--train-config", required=True)
    c.add_argument("--selfplay-games", type=int, default=500)
    c.add_argument("--selfplay-playouts", type=int, default=800)
    args = ap.parse_args(argv)
    if args.cmd == "ship":
        print(f"shipped {ship(args.size, args.candidate)}")
        return 0
    ray = ray_target(ap, args, args.workers)
    workers = args.workers or 1
    if args.cmd == "cycle":
        from engine import config as configmod
        from nets.train import load_config, train
        from tools import selfplay
        eng_cfg = configmod.load(args.config or os.path.join(ROOT, "configs", f"{args.size}x{args.size}.toml"),
                                 ["search.seconds=0", f"search.playouts={args.selfplay_playouts}", *args.set])
        data = os.path.join(ROOT, "data", f"selfplay-{args.size}x{args.size}")
        selfplay.run(eng_cfg, args.selfplay_games, args.size, args.komi, os.path.join(args.out, "selfplay"),
                     workers, seed=1, data=data, ray=ray, ray_cpus=args.ray_cpus)
        tcfg = load_config(args.train_config)
        prov = train(tcfg, command=f"python -m tools.netloop cycle --train-config {args.train_config}")
        candidate = os.path.join(tcfg["weights_dir"], f"{prov['name']}.pt")
    else:
        candidate = args.candidate
    v = gate(args.size, candidate, os.path.join(args.out, "gate") if args.cmd == "cycle" else args.out,
             args.games, args.playouts, args.config, args.set, args.candidate_set, workers,
             args.threshold, args.komi, ray=ray, ray_cpus=args.ray_cpus)
    print(f"gate: {candidate}: {_fmt(v)}")
    if v["passed"] and (args.cmd == "cycle" or args.ship):
        print(f"shipped {ship(args.size, candidate, v)}")
    return 0 if v["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
