"""Process memory over a whole 19x19 game at a fixed node pool.

    python bench/pool_rss.py [--size 19] [--playouts 1000] [--pool-size 500]

Self-play with node recycling until two passes (or 2*size*size moves);
the resident set size is read after every move. Prints the RSS after move
10, at the end and the peak, and last ``rss growth after move 10: X MB``
(flat memory means about 0).
"""
import argparse
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from board_ext.board import Board  # noqa: E402
from engine import config  # noqa: E402
from engine.search import RESIGN, Search  # noqa: E402
from engine.endgame import Endgame  # noqa: E402


def rss_mb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--playouts", type=int, default=1000)
    ap.add_argument("--pool-size", type=int, default=500)
    args = ap.parse_args()
    cfg = config.load(None, [f"search.playouts={args.playouts}", "search.rollout=random",
                             "prior.evaluator=none", f"pool.pool_size={args.pool_size}",
                             "pool.full_policy=recycle", "search.seed=5", "search.early_stop=false"])
    s = Search(cfg)
    b = Board(args.size)
    at10 = None
    trace = []
    while b.passes < 2 and b.move_count < 2 * args.size * args.size:
        s.set_position(b, 7.5)
        r = s.run()
        # the pass decision the Player makes after its search
        move = Endgame(b, 7.5, 30, 5).decide(b.to_move, r.move, s.analysis())
        if move == RESIGN:
            break
        b.play(move)
        trace.append(rss_mb())
        if b.move_count == 10:
            at10 = trace[-1]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    st = s.pool_stats()
    print(f"moves: {b.move_count}, pool: {st['capacity']} nodes, used {st['used']}, recycled {st['recycled']}")
    print(f"rss after move 10: {at10:.1f} MB")
    print(f"rss at the end: {trace[-1]:.1f} MB")
    print(f"peak rss: {peak:.1f} MB")
    print(f"rss growth after move 10: {max(trace[9:]) - at10:.1f} MB")


if __name__ == "__main__":
    main()
