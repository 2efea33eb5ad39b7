"""Tune engine knobs by SPSA (Spall 1992, as Fishtest tunes Stockfish).

    python -m tools.tune --config configs/9x9.toml --size 9 --playouts 300 \\
        --knob rave.rave_equiv=500:20000 --knob rave.prior_scale=0.2:4 --knob rave.net_equiv=0:120 \\
        --iterations 400 --pairs 2 --workers 2 --out runs/tune/rave-9

Each knob is ``table.key=LO:HI`` (its value now, from the config, is where
the run starts; the search runs in units of the range, so knobs of
different scales move alike).  Iteration k draws a perturbation delta in
{-1, +1} per knob and plays ``--pairs`` game pairs (each colour once) of the
engine at theta + c_k delta against the engine at theta - c_k delta, both
built as users get it (tools.experiment.play_game: two Players, each with
its own settings, the moggy rates included); with r the plus side's score
minus the minus side's over the games, theta moves by a_k r / (2 c_k delta),
a_k = a / (k + 1 + A)^0.602, c_k = c / (k + 1)^0.101 (Spall's gains), and is
clipped to the range.  Every iteration is one line of ``<out>/log.jsonl``
(written whole), so a rerun of the same command resumes after the last
iteration logged; ``<out>/theta.json`` holds the current values.  Tuned
values are candidates: a separate match at the real budget decides
(docs/results/tuning.md).
"""
import argparse
import json
import os
import random
import sys

from atomicio import atomic_write
from tools.fanout import Fanout, FanoutError, add_arguments, ray_target


def parse_knob(text, cfg):
    """``table.key=LO:HI`` -> (key, lo, hi, start, is_int): start is the
    config's value; an integer setting is played rounded."""
    try:
        key, rng = text.split("=", 1)
        lo, hi = (float(x) for x in rng.split(":"))
    except ValueError:
        raise ValueError(f"--knob {text!r}: expected table.key=LO:HI") from None
    table, _, name = key.partition(".")
    try:
        value = getattr(getattr(cfg, table), name)
    except AttributeError:
        raise ValueError(f"--knob {text!r}: unknown config key '{key}'") from None
    if not lo < hi:
        raise ValueError(f"--knob {text!r}: LO must be below HI")
    is_int = isinstance(value, int) and not isinstance(value, bool)
    return key, lo, hi, min(max(float(value), lo), hi), is_int


def _game(sets_black, sets_white, size, komi, seed):
    from tools.experiment import play_game
    return play_game(sets_black, sets_white, size, komi, seed)["winner"]


def spsa_step(theta, k, results, delta, a, c, A):
    """theta (units of the range, in [0, 1]) after iteration k with the
    plus side's score minus the minus side's ``results`` in [-1, 1]."""
    ak = a / (k + 1 + A) ** 0.602
    ck = c / (k + 1) ** 0.101
    return [min(1.0, max(0.0, t + ak * results / (2 * ck * d))) for t, d in zip(theta, delta)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", help="the engine's config (default: the built-in defaults)")
    ap.add_argument("--set", action="append", default=[], metavar="TABLE.KEY=VALUE",
                    help="settings of both sides (the budget, for example)")
    ap.add_argument("--knob", action="append", required=True, metavar="TABLE.KEY=LO:HI")
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--komi", type=float, default=7.0)
    ap.add_argument("--playouts", type=int, default=300, help="simulations a move, both sides")
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--pairs", type=int, default=1, help="game pairs an iteration (each colour once)")
    ap.add_argument("--a", type=float, default=0.05, help="SPSA step gain (units of the range)")
    ap.add_argument("--c", type=float, default=0.1, help="SPSA perturbation (units of the range)")
    ap.add_argument("--A", type=float, default=None, help="SPSA stability constant (default: a tenth of the iterations)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--out", required=True)
    add_arguments(ap)
    args = ap.parse_args(argv)
    ray = ray_target(ap, args, args.workers)
    from engine.config import ConfigError, load
    base = list(args.set) + ["search.seconds=0", f"search.playouts={args.playouts}", "search.threads=1"]
    try:
        cfg = load(args.config, base)
        knobs = [parse_knob(k, cfg) for k in args.knob]
    except (ConfigError, ValueError) as e:
        ap.error(str(e))
    A = args.A if args.A is not None else args.iterations / 10
    os.makedirs(args.out, exist_ok=True)
    log_path = os.path.join(args.out, "log.jsonl")
    theta = [(start - lo) / (hi - lo) for _, lo, hi, start, _ in knobs]
    int_knobs = {k[0] for k in knobs if k[4]}
    done = 0
    if os.path.exists(log_path):
        lines = []
        with open(log_path) as f:
            for ln in f:
                try:
                    lines.append(json.loads(ln))
                except ValueError:          # a line cut by a kill: that iteration is played again
                    break
        if lines:
            if [k[0] for k in knobs] != lines[-1]["knobs"]:
                ap.error(f"{log_path} tunes {lines[-1]['knobs']}, not these knobs")
            theta, done = lines[-1]["theta"], lines[-1]["k"] + 1

    def values(th):
        return {k: lo + t * (hi - lo) for (k, lo, hi, _, _), t in zip(knobs, th)}

    def sets_for(th):
        return [f"{k}={round(v)}" if k in int_knobs else f"{k}={v:.6g}" for k, v in values(th).items()]

    fan = Fanout(workers=args.workers or 1, ray=ray, ray_cpus=args.ray_cpus, start_method=None)
    try:
        with fan:
            for k in range(done, args.iterations):
                rng = random.Random(args.seed * 1_000_003 + k)
                delta = [rng.choice((-1, 1)) for _ in knobs]
                ck = args.c / (k + 1) ** 0.101
                plus = [min(1.0, max(0.0, t + ck * d)) for t, d in zip(theta, delta)]
                minus = [min(1.0, max(0.0, t - ck * d)) for t, d in zip(theta, delta)]
                common = _config_sets(args.config) + base
                p_sets, m_sets = common + sets_for(plus), common + sets_for(minus)
                jobs = []
                for g in range(2 * args.pairs):
                    seed = (args.seed * 7919 + k) * 64 + g
                    jobs.append((p_sets, m_sets, args.size, args.komi, seed) if g % 2 == 0
                                else (m_sets, p_sets, args.size, args.komi, seed))
                score = 0.0
                for i, winner, err in fan.imap(_game, jobs):
                    if err is not None:
                        raise err
                    plus_black = i % 2 == 0
                    if winner == "draw":
                        continue
                    plus_won = (winner == "black") == plus_black
                    score += 1.0 if plus_won else -1.0
                r = score / len(jobs)
                theta = spsa_step(theta, k, r, delta, args.a, args.c, A)
                rec = {"k": k, "knobs": [kn[0] for kn in knobs], "delta": delta, "result": r,
                       "theta": theta, "values": values(theta)}
                with open(log_path, "a") as f:          # one whole line an iteration
                    f.write(json.dumps(rec) + "\n")
                atomic_write(os.path.join(args.out, "theta.json"), json.dumps(values(theta), indent=1) + "\n")
                print(f"iteration {k + 1}/{args.iterations}: r {r:+.2f} "
                      + " ".join(f"{kk}={v:.4g}" for kk, v in values(theta).items()), file=sys.stderr)
    except FanoutError as e:
        print(f"tune: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"tune: interrupted; {log_path} holds the iterations done (the same command resumes)",
              file=sys.stderr)
        return 130
    print(json.dumps(values(theta)))
    return 0


def _config_sets(path):
    """The settings of a config file as table.key=value texts (tools.experiment's
    play_game takes overrides, not files)."""
    if not path:
        return []
    from engine.config import load, to_dict
    out = []
    data = to_dict(load(path))
    per_size = data.pop("size")
    rows = [(f"{t}.{k}", v) for t, vals in data.items() for k, v in vals.items()]
    rows += [(f"size.{n}.{t}.{k}", v) for n, tables in per_size.items() for t, vals in tables.items()
             for k, v in vals.items()]         # after the keys for every size, which would replace them
    for key, v in rows:
        if isinstance(v, bool):
            v = str(v).lower()
        elif isinstance(v, str):
            v = json.dumps(v)
        elif isinstance(v, (list, tuple)):
            v = json.dumps(list(v))
        out.append(f"{key}={v}")
    return out


if __name__ == "__main__":
    sys.exit(main())
