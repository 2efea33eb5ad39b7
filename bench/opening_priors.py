"""Whose moves lose the opening: each of a player's first moves in a match
row, graded by a KataGo analysis engine and read by the engine's own net.

    python bench/opening_priors.py --teacher "$KB10" --row records/games/strength/b10raw-9-10000:shipped-10000 \\
        [--weights nets/weights/9x9-res3.pt] [--moves 14] [--visits 40]

For every game of the row (``bench/move_losses.py``'s FOLDER:NAME), the first
``--moves`` turns are one teacher query at ``--visits``; for each move of the
named player it prints the move, the teacher's best move, the teacher's
policy at the move, the win rate the move gave away, and the net's prior at
the move and its rank among the net's moves.  The tally: the player's moves,
their mean win rate lost, those losing 0.15 or more, and those the teacher's
policy rates under 2% and the net under 3% of its best.  The last line:
``opening_priors: NAME L win rate lost a move``.
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from board_ext.board import Board  # noqa: E402
from engine import coords  # noqa: E402
from move_losses import BLUNDER, games, parse  # noqa: E402
from tools.label import Teacher, game_query, parse_answer  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--teacher", required=True, help="a KataGo analysis command (docs/TEACHER.md)")
    ap.add_argument("--row", required=True, metavar="FOLDER:NAME")
    ap.add_argument("--weights", default="nets/weights/9x9-res3.pt")
    ap.add_argument("--moves", type=int, default=14)
    ap.add_argument("--visits", type=int, default=40)
    a = ap.parse_args(argv)
    folder, _, name = a.row.rpartition(":")
    if not folder or not os.path.isdir(folder):
        ap.error(f"--row takes FOLDER:NAME with an existing folder, not {a.row!r}")
    from nets.evaluator import Evaluator
    net = Evaluator.load(a.weights)
    teacher = Teacher(a.teacher, timeout=600.0)
    graded = []
    try:
        for k, text in enumerate(games(folder, 0)):
            size, komi, pb, pw, moves = parse(text)
            if name not in (pb, pw):
                ap.error(f"{folder}: game {k + 1} has players {pb!r} and {pw!r}, not {name!r}")
            ours = "B" if pb == name else "W"
            flat = [coords.pass_move(size) if mv is None else coords.sgfmill_to_idx(mv, size) for _c, mv in moves]
            n = min(a.moves, len(flat))
            ans, errors = teacher.ask(game_query(f"{name}-{k}", flat[:n], size, komi, range(n + 1), a.visits))
            if len(ans) != n + 1:
                raise RuntimeError(f"game {k + 1}: {len(ans)} of {n + 1} turns answered ({'; '.join(errors)[:200]})")
            board = Board(size)
            line = []
            for t in range(n):
                c, m = moves[t][0], flat[t]
                if c == ours:
                    s = 1.0 if c == "B" else -1.0
                    lost = s * (ans[t]["rootInfo"]["winrate"] - ans[t + 1]["rootInfo"]["winrate"])
                    tp = float(parse_answer(ans[t], size, t % 2, 1)[0][m])
                    pri = net.evaluate([board])[0][0]
                    rank = int((pri > pri[m]).sum()) + 1
                    share = float(pri[m] / pri.max())
                    graded.append((lost, tp, share))
                    line.append(f"{c}{t + 1} {coords.to_gtp(m, size)} (teacher {ans[t]['moveInfos'][0]['move']}, "
                                f"p {tp:.2f}, -{lost:.2f}; net p {pri[m]:.3f} rank {rank})")
                board.play(m)
            print(f"game {k + 1} ({name} {ours}): " + "; ".join(line))
    finally:
        teacher.close()
    if not graded:
        ap.error(f"{folder}: no move of {name!r} in the first {a.moves} turns")
    mean = sum(g[0] for g in graded) / len(graded)
    print(f"{name}: {len(graded)} moves, win rate lost {mean:.3f} a move, "
          f"{sum(g[0] >= BLUNDER for g in graded)} losing {BLUNDER} or more, "
          f"{sum(g[1] < 0.02 for g in graded)} under 2% of the teacher's policy, "
          f"{sum(g[2] < 0.03 for g in graded)} under 3% of the net's best prior")
    print(f"opening_priors: {name} {mean:.3f} win rate lost a move")
    return 0


if __name__ == "__main__":
    sys.exit(main())
