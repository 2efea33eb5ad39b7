"""Self-play: the engine plays itself and records each game as SGF.

    python -m tools.selfplay --config configs/9x9.toml --games 100 --size 9 \\
        --out runs/selfplay [--workers 2 | --ray | --ray-address HOST:PORT] [--komi 7] \\
        [--set search.playouts=800]

One SGF per game (``game-00001.sgf`` ...) with the win rate, visits and
PV of every move as its comment (``gomill-explain_last_move`` text), written
atomically (temporary file + os.replace).  A rerun with the same --out
skips finished games, so an interrupted run resumes; a rerun with other
settings (size, komi, config, --seed, --move-limit; ``settings.json``, see
tools.rundir) is refused, naming the difference.  ``summary.json`` holds
every game's result and the totals.  Progress is a tqdm bar on stderr.
The games are played here, in ``--workers`` processes or as Ray tasks
(``--ray``, ``--ray-address``; tools.fanout, docs/SCALE.md); either way
the SGFs come back to this process, which writes each once.  On Ray,
where the games ran (node, games, seconds) is printed at the end and kept
in ``summary.json`` (``ran_on``).
Ctrl-C stops the run with one line; the games finished so far are kept.

``--data DIR`` also writes every game as a training shard for ``nets``
(``DIR/SP_00001.npz``, the layout of ``tools.datagen`` shards plus, for
every move, the root's visit distribution, ``visits``, the policy target,
and the root's value for the side to move, ``root_values``; ``scores``
holds the game's result, black minus white, its sign the value target;
``provenance`` the engine commit, config and seed), written atomically
like the SGFs; a resumed run writes the shards its games lack.

Each game is played by one :class:`engine.player.Player` (the engine as GTP
serves it: search, pass rule, resignation), both colours sharing one search tree; game ``i``
seeds its search with ``seed + i`` (``search.seed``, or the clock when 0).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import time

from engine import config as configmod
from engine.scoring import result_value
from atomicio import atomic_write
from nets.shards import make_shard, save_shard
from tools.fanout import Fanout, FanoutError, add_arguments, ray_target
from tools.rundir import SettingsMismatch, claim

log = logging.getLogger("gomcts.selfplay")
_RE_RE = re.compile(rb"RE\[([^\]]*)\]")


def sgf_name(i):
    return f"game-{i + 1:05d}.sgf"


def play_one(cfg, index, size, komi, base_seed, move_limit=None, data=None):
    """Play game ``index``; returns (record dict, Game).  With ``data`` (a
    dict) the root's visit distribution and value of every move go into
    ``data["visits"]`` and ``data["root_values"]``."""
    import numpy as np
    from engine.player import Player
    from engine.scoring import fmt_score
    seed = (base_seed + index) % (2**63 - 1) or 1
    cfg = configmod.replace(cfg, **{"search.seed": seed})
    eng = Player(cfg)
    eng.new_game(size, komi)
    game = eng.game
    move_limit = move_limit or 3 * size * size
    t0 = time.time()
    result, reason = None, ""
    while result is None:
        if game.move_number >= move_limit:
            reason = f"move limit {move_limit}"
            break
        color = game.to_move
        move = eng.genmove(color)
        if data is not None and move >= 0:
            pi = np.zeros(size * size + 1, np.float32)
            res = eng.last.get("result")
            for m, n in (res.child_visits if res is not None else {}).items():
                pi[m] = n
            if pi.sum() <= 0:
                pi[move] = 1.0
            data["visits"].append((pi / pi.sum()).astype(np.float16))
            data["root_values"].append(res.winrate if res is not None else float("nan"))
        if move < 0:
            result = ("W" if color == 1 else "B") + "+R"
            reason = "resignation"
        elif game.consecutive_passes() >= 2:
            break
    if result is None:
        result = fmt_score(eng.final_score())
        reason = reason or "two passes; scored with the dead-stone estimate"
    game.result = result
    game.properties.update({"PB": f"{cfg.gtp.name}", "PW": f"{cfg.gtp.name}", "GN": f"selfplay {index + 1}",
                            "GC": f"seed {seed}; {reason}"})
    rec = {"index": index, "result": result, "moves": game.move_number, "seed": seed,
           "seconds": round(time.time() - t0, 2), "reason": reason, "sgf": sgf_name(index)}
    return rec, game


def _job(cfg, index, size, komi, seed, move_limit, want_data=False, provenance=None):
    """One game where the fan-out sends it: (record, SGF text, shard arrays
    or None); the driver writes them."""
    data = {"visits": [], "root_values": []} if want_data else None
    rec, game = play_one(cfg, index, size, komi, seed, move_limit, data)
    shard = None
    if want_data:
        shard = shard_arrays(game, rec, size, komi, data, provenance or {})
    return rec, game.to_sgf(), shard


def shard_arrays(game, rec, size, komi, data, provenance):
    """The training shard of one self-play game (``nets.data`` reads it)."""
    import numpy as np
    moves = [m for _, m in game.moves]
    n_lab = len(data["visits"])
    if n_lab != len(moves):
        raise RuntimeError(f"game {rec['index']}: {n_lab} visit rows for {len(moves)} moves")
    vis = np.stack(data["visits"]) if n_lab else np.zeros((0, size * size + 1), np.float16)
    return make_shard(moves, np.ones(len(moves), np.bool_), [0, len(moves)], [rec["seed"]],
                      [result_value(rec["result"]) or 0.0], size, 0, komi,
                      visits=vis, root_values=np.asarray(data["root_values"], np.float32),
                      provenance=np.asarray(json.dumps({**provenance, "seed": rec["seed"],
                                                  "result": rec["result"]})))


def shard_name(i):
    return f"SP_{i + 1:05d}.npz"


def engine_commit():
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _finished(out, i):
    """Record of a finished game read back from its SGF, or None."""
    path = os.path.join(out, sgf_name(i))
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    m = _RE_RE.search(data)
    if not m:
        return None
    return {"index": i, "result": m.group(1).decode("utf-8", "replace"), "sgf": sgf_name(i),
            "moves": data.count(b";B[") + data.count(b";W["), "resumed": True}


def summarize(records):
    recs = sorted(records, key=lambda r: r["index"])
    b = sum(1 for r in recs if r["result"].startswith("B+"))
    w = sum(1 for r in recs if r["result"].startswith("W+"))
    moves = [r["moves"] for r in recs]
    return {"games": len(recs), "black_wins": b, "white_wins": w, "draws": len(recs) - b - w,
            "mean_moves": round(sum(moves) / len(moves), 1) if moves else 0,
            "resignations": sum(1 for r in recs if r["result"].endswith("+R"))}


def run(cfg, games, size, komi, out, workers=1, seed=None, move_limit=None, progress=True,
        ray=None, ray_cpus=None, data=None):
    """Play the missing games of ``range(games)`` into ``out``, in this
    process, in ``workers`` processes, or on Ray (``ray``: "local" or a
    cluster's address; tools.fanout); returns the summary dict (also
    written to out/summary.json).  Raises
    :class:`tools.rundir.SettingsMismatch` when ``out`` holds games played
    with another size, komi, config, seed or move limit."""
    claim(out, {"size": size, "komi": komi, "config": configmod.to_dict(cfg), "seed": seed,
                "move_limit": move_limit})
    base = seed if seed is not None else (cfg.search.seed or int(time.time()) & 0xFFFFFFF)
    records = {}
    todo = []
    if data:
        os.makedirs(data, exist_ok=True)
    for i in range(games):
        r = _finished(out, i)
        if r is not None and (not data or os.path.exists(os.path.join(data, shard_name(i)))):
            records[i] = r
        else:
            todo.append(i)
    old_summary = os.path.join(out, "summary.json")
    if os.path.exists(old_summary):
        try:
            with open(old_summary) as fh:
                for r in json.load(fh).get("records", []):
                    if r["index"] in records:
                        records[r["index"]] = r          # keep the richer record
        except (OSError, ValueError, KeyError):
            pass
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=games, initial=games - len(todo), desc="selfplay", unit="game", file=sys.stderr)

    fan = Fanout(workers=workers, ray=ray, ray_cpus=ray_cpus)

    def save():
        data = {"size": size, "komi": komi, "config": configmod.to_dict(cfg), "seed": base,
                "summary": summarize(records.values()),
                "records": [records[i] for i in sorted(records)]}
        if ray:
            data["ran_on"] = fan.placement()
        atomic_write(os.path.join(out, "summary.json"), json.dumps(data, indent=1) + "\n")

    prov = {"engine_commit": engine_commit(), "config": configmod.to_dict(cfg), "komi": komi,
            "size": size} if data else None
    jobs = [(cfg, i, size, komi, base, move_limit, bool(data), prov) for i in todo]
    try:
        with fan:
            for _, value, err in fan.imap(_job, jobs):
                if err is not None:
                    raise err
                rec, sgf, shard = value
                if rec["index"] in records:         # never twice (a retried job's late twin)
                    continue
                if shard is not None:
                    save_shard(os.path.join(data, shard_name(rec["index"])), shard)
                atomic_write(os.path.join(out, rec["sgf"]), sgf)
                records[rec["index"]] = rec
                save()
                if bar:
                    bar.update(1)
    finally:
        if bar:
            bar.close()
    save()
    if ray:
        print(fan.summary(), file=sys.stderr)
    return summarize(records.values())


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.selfplay", description="Self-play games to SGF.")
    ap.add_argument("--config", help="TOML config")
    ap.add_argument("--set", action="append", default=[], metavar="TABLE.KEY=VALUE")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--komi", type=float, default=None, help="default: gtp.komi of the config")
    ap.add_argument("--workers", type=int, default=None, help="games in parallel (processes; default 1)")
    ap.add_argument("--seed", type=int, default=None, help="game i uses seed+i (default: search.seed or clock)")
    ap.add_argument("--move-limit", type=int, default=None, help="default 3*size*size")
    ap.add_argument("--out", required=True)
    ap.add_argument("--data", default=None, metavar="DIR",
                    help="also write each game as a training shard (visit distributions, result) here")
    add_arguments(ap)
    args = ap.parse_args(argv)
    ray = ray_target(ap, args, args.workers)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    try:
        cfg = configmod.load(args.config, args.set)
    except configmod.ConfigError as e:
        ap.error(str(e))
    if not 2 <= args.size <= 19:
        ap.error("--size must be 2..19")
    komi = args.komi if args.komi is not None else configmod.at_size(cfg, args.size).gtp.komi
    from engine.factory import NoNet, require_net
    try:
        require_net(cfg, args.size)
    except NoNet as e:
        print(f"selfplay: no net for {args.size}x{args.size} and net.required is set: {e}", file=sys.stderr)
        return 2
    try:
        s = run(cfg, args.games, args.size, komi, args.out, args.workers or 1, args.seed, args.move_limit,
                ray=ray, ray_cpus=args.ray_cpus, data=args.data)
    except (SettingsMismatch, FanoutError) as e:
        print(f"selfplay: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        done = sum(1 for i in range(args.games) if _finished(args.out, i) is not None)
        print(f"selfplay: interrupted; {done} of {args.games} games are in {args.out} "
              f"(the same command resumes)", file=sys.stderr)
        return 130
    print(json.dumps(s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
