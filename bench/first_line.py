"""How soon a GUI sees the first analysis line after a move on 19x19: the
shipped engine (``gtp_main.py``) on pipes, as Lizzie, Sabaki and KaTrain
drive it: ``lz-analyze`` (the reference), ``kata-analyze``, ``kata-analyze
... ownership true`` and a JSON query with ``reportDuringSearchEvery``,
each timed from the command to its first ``info`` line or partial result.

    python bench/first_line.py [--size 19] [--repeats 3]

Target (issue 86): the first kata-analyze line and the first JSON partial
within 0.5 s on 19x19.  The last line is the figure:
``first_line: kata-analyze S s (lz-analyze R s, x.xx times)``.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable


def gtp_first(size, cmds, repeats):
    p = subprocess.Popen([PY, os.path.join(HERE, "gtp_main.py"), "--log-level", "WARNING"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1, cwd=HERE)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def until_blank():
        while p.stdout.readline().strip():
            pass
    out = {c: [] for c in cmds}
    try:
        send(f"boardsize {size}")
        until_blank()
        moves = ["Q16", "D4", "Q4", "D16", "R10", "C10"] if size == 19 else ["E5", "C3", "G7", "C7", "G3", "E3"]
        for k in range(repeats):
            for c in cmds:
                send(f"play {'bw'[k % 2]} {moves[k % len(moves)]}")      # a new position: nothing cached
                until_blank()
                t0 = time.perf_counter()
                send(c.replace("COLOR", "wb"[k % 2]))
                while not p.stdout.readline().startswith("info"):
                    pass
                out[c].append(time.perf_counter() - t0)
                send("name")                      # ends the stream
                while not p.stdout.readline().startswith("= gomcts"):
                    pass
                p.stdout.readline()
                send("undo")
                until_blank()
        send("quit")
    finally:
        p.kill()
        p.wait()
    return out


def json_first(size, repeats):
    p = subprocess.Popen([PY, os.path.join(HERE, "gtp_main.py"), "analysis", "--log-level", "WARNING"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         bufsize=1, cwd=HERE)
    got = []
    try:
        p.stdin.write(json.dumps({"id": "v", "action": "query_version"}) + "\n")
        p.stdin.flush()
        p.stdout.readline()
        warm = {"id": "w", "moves": [], "rules": "chinese", "komi": 7.5, "boardXSize": size, "boardYSize": size,
                "maxVisits": 2}
        p.stdin.write(json.dumps(warm) + "\n")          # the net and the search are built
        p.stdin.flush()
        p.stdout.readline()
        for k in range(repeats):
            q = {"id": f"q{k}", "moves": [["B", "Q16"], ["W", ["D4", "Q4", "D16"][k % 3]]], "rules": "chinese",
                 "komi": 7.5, "boardXSize": size, "boardYSize": size, "maxVisits": 100000000,
                 "reportDuringSearchEvery": 0.1, "includeOwnership": True}
            t0 = time.perf_counter()
            p.stdin.write(json.dumps(q) + "\n")
            p.stdin.flush()
            while True:
                obj = json.loads(p.stdout.readline())
                if obj.get("id") == q["id"] and obj.get("isDuringSearch"):
                    got.append(time.perf_counter() - t0)
                    break
            p.stdin.write(json.dumps({"id": "t", "action": "terminate", "terminateId": q["id"]}) + "\n")
            p.stdin.flush()
            while True:
                obj = json.loads(p.stdout.readline())
                if obj.get("id") == q["id"] and not obj.get("isDuringSearch", True):
                    break
    finally:
        p.kill()
        p.wait()
    return got


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    cmds = ["lz-analyze COLOR 10", "kata-analyze COLOR 10", "kata-analyze COLOR 10 ownership true"]
    res = gtp_first(args.size, cmds, args.repeats)
    for c in cmds:
        print(f"{c.replace('COLOR', 'w')}: first line after {statistics.median(res[c]):.2f} s (median of "
              f"{len(res[c])}: {', '.join(f'{x:.2f}' for x in res[c])})")
    js = json_first(args.size, args.repeats)
    print(f"JSON reportDuringSearchEvery 0.1: first partial after {statistics.median(js):.2f} s "
          f"({', '.join(f'{x:.2f}' for x in js)})")
    lz, kata = statistics.median(res[cmds[0]]), statistics.median(res[cmds[1]])
    print(f"first_line: kata-analyze {kata:.2f} s (lz-analyze {lz:.2f} s, {kata / lz:.2f} times)")


if __name__ == "__main__":
    main()
