"""The test suite on a busy machine: ``make test`` run several times in a
row on a clean clone while busy loops hold every core.

    python bench/busy_suite.py [--runs 5] [--loops 2] [--repo .] [--out runs/busy-suite]

It clones the repository's HEAD into ``--out/clone`` (a fresh checkout:
the first run also makes its virtualenv and builds), starts ``--loops``
busy loops (``while :; do :; done``, one a core on the development
machine), runs ``make test`` ``--runs`` times, stops the loops, and writes
each run's result, wall time and the machine's load (the 1-minute load
average every 10 s of the run: its least and its mean, the suite's own
processes included) to ``--out/results.json`` (atomically, after every
run, so an interrupted series keeps what it ran).  ``--loops 0`` with
other work holding the cores (the papers' runs) measures under that load
instead; the load figures say how busy the machine was.  The last
line is the figure: ``busy_suite: P/N passed, median S s``.
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HERE)
from atomicio import atomic_write  # noqa: E402


def _sigint_default():
    """The suite as from a terminal: SIGINT acts (a background job starts
    with it ignored, and its children inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class LoadSampler:
    """The 1-minute load average every ``every`` seconds, in a thread."""

    def __init__(self, every=10.0):
        self.every, self.samples = every, []
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self):
        while not self._stop.wait(self.every):
            with open("/proc/loadavg") as f:
                self.samples.append(float(f.read().split()[0]))

    def stop(self):
        self._stop.set()
        self._t.join()
        s = self.samples or [0.0]
        return {"load_min": round(min(s), 2), "load_mean": round(statistics.fmean(s), 2)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--loops", type=int, default=2)
    ap.add_argument("--repo", default=HERE)
    ap.add_argument("--out", default=os.path.join(HERE, "runs", "busy-suite"))
    args = ap.parse_args(argv)
    clone = os.path.join(args.out, "clone")
    os.makedirs(args.out, exist_ok=True)
    if os.path.exists(clone):
        shutil.rmtree(clone)
    subprocess.run(["git", "clone", "-q", args.repo, clone], check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True).stdout.strip()
    loops = [subprocess.Popen(["bash", "-c", "while :; do :; done"], start_new_session=True)
             for _ in range(args.loops)]
    res = {"commit": head, "loops": args.loops, "runs": []}
    try:
        for i in range(args.runs):
            t0 = time.time()
            load = LoadSampler()
            with open(os.path.join(args.out, f"run-{i + 1}.log"), "w") as log:
                rc = subprocess.call(["make", "test"], cwd=clone, stdout=log, stderr=subprocess.STDOUT,
                                     preexec_fn=_sigint_default)
            took = time.time() - t0
            loadfig = load.stop()
            with open(os.path.join(args.out, f"run-{i + 1}.log")) as log:
                tail = [ln.strip() for ln in log.read().splitlines() if ln.strip()][-1:]
            res["runs"].append({"run": i + 1, "returncode": rc, "seconds": round(took, 1),
                                "summary": tail[0] if tail else "", **loadfig})
            atomic_write(os.path.join(args.out, "results.json"), json.dumps(res, indent=1) + "\n")
            print(f"run {i + 1}: rc {rc}, {took:.0f} s, load {loadfig['load_min']}-{loadfig['load_mean']}: "
                  f"{tail[0] if tail else ''}", flush=True)
    finally:
        for p in loops:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    ok = sum(r["returncode"] == 0 for r in res["runs"])
    med = statistics.median(r["seconds"] for r in res["runs"]) if res["runs"] else 0
    print(f"busy_suite: {ok}/{len(res['runs'])} passed, median {med:.0f} s")
    return 0 if ok == len(res["runs"]) else 1


if __name__ == "__main__":
    sys.exit(main())
