"""Teacher data: GNU Go 3.8 plays itself from diversified openings.

    python -m tools.datagen --size 9 --games 2000 --level 5 --out data/9x9 \\
        [--workers 2 | --ray | --ray-address HOST:PORT]

Each game starts with ``0..--random-opening`` uniformly random legal moves
(not labels), then GNU Go (``--chinese-rules --level L``) plays both sides
until two passes or a move cap.  Every GNU Go move is a training label; the
position before it is rebuilt by replaying the game on ``board_ext`` when the
training set is built (``nets.data``), so only move sequences are stored,
with GNU Go's ``final_score`` of each game (``scores``, black minus white:
the value target).

Shards hold ``--shard-games`` games each, named by level and index; a shard is
written to a temporary file and renamed, so a killed run leaves no partial
shard and a rerun skips what exists (resume).  Shards are played here, in
``--workers`` processes or as Ray tasks (``--ray``, ``--ray-address``;
tools.fanout, docs/SCALE.md: every node needs GNU Go); this process writes
them.  Game ``g`` of level ``L`` uses
the seed ``L * 1_000_003 + g`` so reruns regenerate identical games.
"""
import argparse
import os
import random
import sys

import numpy as np

from engine import coords
from engine.scoring import result_value
from nets.shards import make_shard, save_shard
from tools.fanout import Fanout, FanoutError, add_arguments, ray_target
from tools.gtp_client import GtpClient, gnugo_command


def parse_score(text):
    """GTP ``final_score`` ("B+3.5", "W+0.5", "0") -> black minus white."""
    v = result_value(text)
    if v is None or text.strip().upper()[2:3] in ("R", "T", "F"):
        raise ValueError(f"unreadable final_score {text!r}")
    return v


def play_one_game(gtp, size, komi, seed, max_random):
    """Return (moves, is_label, score) for one self-play game of the
    connected GNU Go; ``score`` is its ``final_score`` (area, black minus
    white, komi included), the value target of every position."""
    rng = random.Random(seed)
    gtp.send(f"boardsize {size}")
    gtp.send(f"komi {komi}")
    gtp.send("clear_board")
    gtp.send(f"set_random_seed {seed % 2**31}")
    moves, labels = [], []
    colours = "bw"
    n_random = rng.randint(0, max_random)
    turn = 0
    for _ in range(n_random):
        c = colours[turn % 2]
        legal = gtp.send(f"all_legal {c}").split()
        # keep random stones off the first line: they would only teach noise
        inner = [v for v in legal if size <= 5 or
                 (v[0] not in "AT" and coords.GTP_LETTERS[size - 1] != v[0]
                  and v[1:] not in ("1", str(size)))]
        if not inner:
            break
        v = rng.choice(inner)
        gtp.send(f"play {c} {v}")
        moves.append(coords.from_gtp(v, size))
        labels.append(False)
        turn += 1
    passes = 0
    cap = 3 * size * size
    while passes < 2 and len(moves) < cap:
        c = colours[turn % 2]
        v = gtp.send(f"genmove {c}")
        if v.lower() == "resign":
            break
        idx = coords.from_gtp(v, size)
        moves.append(idx)
        labels.append(True)
        passes = passes + 1 if idx == size * size else 0
        turn += 1
    return moves, labels, parse_score(gtp.send("final_score"))


def shard_path(out, level, index):
    return os.path.join(out, f"L{level:02d}_{index:05d}.npz")


def play_shard(size, komi, level, index, shard_games, max_random):
    """The games of shard ``index``, played where the fan-out sends them:
    the shard's arrays (what :func:`write_shard` stores)."""
    all_moves, all_labels, offsets, seeds, scores = [], [], [0], [], []
    with GtpClient(gnugo_command(level), timeout=600) as gtp:
        for g in range(index * shard_games, (index + 1) * shard_games):
            seed = level * 1_000_003 + g
            m, lab, score = play_one_game(gtp, size, komi, seed, max_random)
            scores.append(score)
            all_moves.extend(m)
            all_labels.extend(lab)
            offsets.append(len(all_moves))
            seeds.append(seed)
    return make_shard(all_moves, all_labels, offsets, seeds, scores, size, level, komi)


def write_shard(out, level, index, arrays):
    """Store a shard (temporary file + rename); one already there is kept."""
    path = shard_path(out, level, index)
    if os.path.exists(path):
        return path
    save_shard(path, arrays)
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--level", type=int, default=5)
    ap.add_argument("--komi", type=float, default=7.0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--workers", type=int, default=None, help="shards in parallel (processes; default 1)")
    ap.add_argument("--shard-games", type=int, default=25)
    ap.add_argument("--start-shard", type=int, default=0,
                    help="first shard index (lets two runs fill disjoint shard ranges of one dir)")
    ap.add_argument("--random-opening", type=int, default=4,
                    help="at most this many random opening moves (default 4)")
    add_arguments(ap)
    args = ap.parse_args(argv)
    ray = ray_target(ap, args, args.workers)
    if not 2 <= args.size <= coords.MAX_SIZE:
        ap.error(f"--size must be in 2..{coords.MAX_SIZE}")
    if args.games <= 0 or (args.workers is not None and args.workers <= 0) or args.shard_games <= 0:
        ap.error("--games, --workers and --shard-games must be positive")
    os.makedirs(args.out, exist_ok=True)
    n_shards = (args.games + args.shard_games - 1) // args.shard_games
    shards = range(args.start_shard, args.start_shard + n_shards)
    todo = [i for i in shards if not os.path.exists(shard_path(args.out, args.level, i))]
    done_games = (n_shards - len(todo)) * args.shard_games
    from tqdm import tqdm
    bar = tqdm(total=n_shards * args.shard_games, initial=done_games, unit="game",
               desc=f"gnugo L{args.level} {args.size}x{args.size}", file=sys.stderr)
    positions = 0
    fan = Fanout(workers=args.workers or 1, ray=ray, ray_cpus=args.ray_cpus, start_method=None)
    try:
        with fan:
            for k, arrays, err in fan.imap(play_shard, [(args.size, args.komi, args.level, i,
                                                         args.shard_games, args.random_opening) for i in todo]):
                if err is not None:
                    raise err
                write_shard(args.out, args.level, todo[k], arrays)
                positions += int(np.sum(arrays["is_label"]))
                bar.update(args.shard_games)
                bar.set_postfix(positions=positions)
    except FanoutError as e:
        bar.close()
        print(f"datagen: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        bar.close()
        have = sum(os.path.exists(shard_path(args.out, args.level, i)) for i in shards)
        print(f"datagen: interrupted; {have} of {n_shards} shards are in {args.out} "
              f"(the same command resumes)", file=sys.stderr)
        return 130
    bar.close()
    if ray:
        print(fan.summary("shards"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
