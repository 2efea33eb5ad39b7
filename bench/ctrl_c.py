"""Ctrl-C in the middle of a search, many times: ``gtp_main.py analysis``
(the JSON analysis engine) and ``gtp_main.py`` (GTP) each get a search
that would run for hours, then SIGINT once the search has used half a
second of CPU; the run counts the exits with code 130 and the one line
``gtp_main: interrupted`` on stderr (no abort, no traceback).

    python bench/ctrl_c.py [--runs 50] [--mode json|gtp|both]

The last line is the figure: ``ctrl_c: P/N clean exits``.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
from tests.conftest import SMALL, cpu_seconds, sigint_default, wait_until  # noqa: E402

PY = sys.executable


def one(mode):
    """(clean, seconds from SIGINT to exit, what went wrong)."""
    args = [PY, os.path.join(HERE, "gtp_main.py")] + (["analysis"] if mode == "json" else []) + \
        ["--log-level", "WARNING"] + sum((["--set", s] for s in SMALL + ["search.seconds=0",
                                                                          "search.playouts=100000000"]), [])
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=HERE, preexec_fn=sigint_default)
    try:
        if mode == "json":
            p.stdin.write(json.dumps({"id": "v", "action": "query_version"}) + "\n")
            p.stdin.flush()
            p.stdout.readline()
            q = {"id": "big", "moves": [["B", "E5"]], "rules": "chinese", "komi": 7, "boardXSize": 9,
                 "boardYSize": 9, "maxVisits": 100000000, "reportDuringSearchEvery": 0.2}
            p.stdin.write(json.dumps(q) + "\n")
            p.stdin.flush()
            while not json.loads(p.stdout.readline()).get("isDuringSearch"):   # searching: a partial result
                pass
            base = cpu_seconds(p.pid) - 1.0
        else:
            p.stdin.write("name\n")
            p.stdin.flush()
            p.stdout.readline()
            p.stdout.readline()
            base = cpu_seconds(p.pid)
            p.stdin.write("genmove b\n")
        p.stdin.flush()
        if wait_until(lambda: cpu_seconds(p.pid) >= base + 0.5, 120) is None:
            return False, 0.0, "never searched"
        t0 = time.time()
        p.send_signal(signal.SIGINT)
        _out, err = p.communicate(timeout=120)
        took = time.time() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    lines = err.strip().splitlines()
    ok = p.returncode == 130 and lines and lines[-1] == "gtp_main: interrupted" and "Traceback" not in err \
        and "terminate called" not in err
    return bool(ok), took, "" if ok else f"exit {p.returncode}: {err.strip()[-200:]}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--mode", choices=("json", "gtp", "both"), default="both")
    args = ap.parse_args(argv)
    modes = ["json", "gtp"] if args.mode == "both" else [args.mode]
    total = clean = 0
    for mode in modes:
        n_ok, worst = 0, 0.0
        for i in range(args.runs):
            ok, took, why = one(mode)
            n_ok += ok
            worst = max(worst, took)
            if not ok:
                print(f"{mode} run {i + 1}: {why}", flush=True)
        print(f"{mode}: {n_ok}/{args.runs} exited 130 with the one line; slowest exit {worst:.2f} s after SIGINT",
              flush=True)
        total += args.runs
        clean += n_ok
    print(f"ctrl_c: {clean}/{total} clean exits")
    return 0 if clean == total else 1


if __name__ == "__main__":
    sys.exit(main())
