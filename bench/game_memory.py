"""What a long game costs the engine's memory: ``gtp_main.py`` (the shipped
engine, on pipes) loads SGFs of many passes and answers a JSON query of
many moves; the figure is its peak resident memory (VmHWM), against the
same engine after a 200-move game.

    python bench/game_memory.py [--moves 20000] [--huge 800000]

Targets (issue 86): a 20,000-move game loads in under 200 MB more than the
engine holds anyway, and any SGF or query is answered or refused with the
engine under 1 GB (the 800,000-pass SGF that grew it to 23.7 GB).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
sys.path.insert(0, HERE)
from engine.game import MAX_GAME_LENGTH  # noqa: E402


def _hwm_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _sgf(path, n):
    with open(path, "w") as f:
        f.write("(;GM[1]FF[4]SZ[19]KM[7.5]" + ";B[];W[]" * (n // 2) + ")")


def gtp_peak(sgf_path):
    """(peak MB after loadsgf, the reply's first line)."""
    p = subprocess.Popen([PY, os.path.join(HERE, "gtp_main.py"), "--log-level", "WARNING"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         cwd=HERE)
    try:
        p.stdin.write(f"loadsgf {sgf_path}\n")
        p.stdin.flush()
        reply = p.stdout.readline().strip()
        p.stdout.readline()
        p.stdin.write("showboard\n")
        p.stdin.flush()
        while p.stdout.readline().strip():
            pass
        return _hwm_mb(p.pid), reply
    finally:
        p.kill()
        p.wait()


def json_peak(n):
    p = subprocess.Popen([PY, os.path.join(HERE, "gtp_main.py"), "analysis", "--log-level", "WARNING"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         cwd=HERE)
    try:
        moves = [["B" if i % 2 == 0 else "W", "pass"] for i in range(n)]
        q = {"id": "long", "moves": moves, "rules": "chinese", "komi": 7.5, "boardXSize": 19, "boardYSize": 19,
             "maxVisits": 10}
        p.stdin.write(json.dumps(q) + "\n")
        p.stdin.flush()
        reply = json.loads(p.stdout.readline())
        return _hwm_mb(p.pid), ("error: " + reply["error"]) if "error" in reply else "answered"
    finally:
        p.kill()
        p.wait()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--moves", type=int, default=20000)
    ap.add_argument("--huge", type=int, default=800000)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        ref, long_, huge = (os.path.join(d, f"{k}.sgf") for k in ("ref", "long", "huge"))
        _sgf(ref, 200)
        _sgf(long_, args.moves)
        _sgf(huge, args.huge)
        base, r0 = gtp_peak(ref)
        print(f"200-move game: peak {base:.0f} MB ({r0})")
        big, r1 = gtp_peak(long_)
        print(f"{args.moves}-move game: peak {big:.0f} MB, {big - base:.0f} MB over the 200-move game ({r1})")
        top, r2 = gtp_peak(huge)
        print(f"{args.huge}-pass SGF ({os.path.getsize(huge) / 1e6:.1f} MB): peak {top:.0f} MB ({r2[:90]})")
        jref, _ = json_peak(200)
        jq, r3 = json_peak(args.moves)
        print(f"JSON query of {args.moves} moves: peak {jq:.0f} MB, {jq - jref:.0f} MB over a query of 200 "
              f"({jref:.0f} MB) ({r3[:90]})")
        jmax, r4 = json_peak(MAX_GAME_LENGTH + 1)
        print(f"JSON query of {MAX_GAME_LENGTH + 1} moves: peak {jmax:.0f} MB ({r4[:90]})")
    print(f"game_memory: {big - base:.0f} MB for a {args.moves}-move game ({big / base:.2f}x the 200-move game's peak)")


if __name__ == "__main__":
    main()
