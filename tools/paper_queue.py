"""The papers' long runs, one after another, resumable: what a session
starts first and leaves running in the background.

    python -m tools.paper_queue [--queue configs/paper/queue.txt] [--workers W]
    python -m tools.paper_queue --archive      # publish what every entry has played so far
    python -m tools.paper_queue --status       # games played / wanted, entry by entry
    nice -n 10 python -m tools.paper_queue --queue Q --fixed-only --workers 1
                                               # beside another queue: no equal clock

The queue file lists one run a line, in priority order: a config file
under configs/paper/ and the ``tools.experiment`` options of that run
(``--only``, ``--x``, ``--games``), or ``match`` and the options of a
``tools.match`` run (an equal clock between two engines; its ``--out``
folder resumes it, and on a fresh machine the published row of the same
name under records/games/ is copied there first), or ``run --done PATH``
and a command that makes PATH (a net and the data it learns from: the
entry is done once PATH exists; the command resumes itself, ``python`` is
this interpreter, ``{workers}`` the queue's workers and ``$NAME`` an
environment variable that must be set); ``#`` starts a comment.  Each entry runs
``python -m tools.experiment CONFIG OPTIONS --workers W`` until its games are
all played, then the next.  The file is read again after every entry, so an
edit takes effect at the next one.  Every game is written atomically as it ends
(tools.experiment), so a queue stopped anywhere, by a session's end or a
killed process, starts again where it stopped: the games already played
are kept, an unfinished one is played again from its start and counted
once.  ``--archive`` publishes each entry's games (``--report-only
--publish``: records/games/<name>/, records/results/<name>.json and the
report), so that a fresh checkout resumes them too; tools.experiment
refuses to write a report over a published one with more games.

``--fixed-only`` runs only what the load of other jobs does not distort
(a match without ``--time`` and an experiment without ``seconds``, i.e. at
fixed simulations, and ``run`` entries) and leaves the equal clocks for quiet cores, so a
second queue can share the cores at a lower priority.  While a queue plays
on a clock it holds ``runs/quiet-cores`` (tools.quiet): the
``--fixed-only`` queue starts no entry, its matches no game and its
teacher's self-play (``tools.teacher_play``) no chunk until the match is
over (any other ``run`` entry under way goes on).

A queue file runs in one queue at a time: a second queue started on the
same file (a second ``make queues``) says which process holds it and
exits, where two would play the same games twice.

On a machine with more cores, ``--workers N`` (or an entry's own
``--ray``) runs N games at once.
"""
import argparse
import contextlib
import fcntl
import glob
import os
import re
import shlex
import signal
import subprocess
import sys

from atomicio import atomic_copy
from tools import quiet

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUEUE = os.path.join("configs", "paper", "queue.txt")


def entries(path):
    """[(config, [options])] from the queue file, in its order."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            words = shlex.split(line, comments=True)
            if not words:
                continue
            if words[0] == "run":
                if len(words) < 4 or words[1] != "--done":
                    raise SystemExit(f"{path}:{n}: run needs --done PATH and a command")
            elif words[0] != "match" and not os.path.exists(os.path.join(HERE, words[0])):
                raise SystemExit(f"{path}:{n}: no experiment file {words[0]}")
            out.append((words[0], words[1:]))
    return out


def pending(config, opts):
    """(games still to play, games wanted) of one entry."""
    if config == "match":
        return _match_pending(opts)
    if config == "run":
        return (0 if os.path.exists(os.path.join(HERE, opts[1])) else 1), 1
    from tools import experiment
    exp, a = _experiment(config, opts)
    out_root = os.path.join(HERE, "runs", "paper", exp["name"])
    experiment.restore(exp, out_root)
    todo = len(experiment.pending_jobs(exp, out_root, a.games, a.only, a.xs))
    return todo, len(_wanted(exp, a))


def archived_match(out):
    """The published row of a match whose --out is ``out``: the folder
    records/games/<name> or records/games/<group>/<name> with the same last
    name and a results.json (tools.publish), or None."""
    name = os.path.basename(os.path.normpath(out))
    for folder in [os.path.join(HERE, "records", "games", name),
                   *sorted(glob.glob(os.path.join(HERE, "records", "games", "*", name)))]:
        if os.path.isfile(os.path.join(folder, "results.json")):
            return folder
    return None


def restore_match(out):
    """Copy a match's published row into its --out folder when that folder
    has no results.json (a fresh machine), so the match resumes from the
    games already played and published rather than from the first; returns
    the folder copied from, or None.  tools.match unpacks the games."""
    dest = os.path.join(HERE, out)
    if os.path.exists(os.path.join(dest, "results.json")):
        return None
    src = archived_match(out)
    if src is None:
        return None
    os.makedirs(dest, exist_ok=True)
    for f in sorted(os.listdir(src)):
        if os.path.isfile(os.path.join(src, f)):
            atomic_copy(os.path.join(src, f), os.path.join(dest, f))
    return src


def _match_pending(opts):
    import json
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--out")
    a, _ = ap.parse_known_args(opts)
    if a.out:
        restore_match(a.out)
    try:
        with open(os.path.join(HERE, a.out, "results.json")) as fh:
            done = len(json.load(fh).get("games", []))
    except (FileNotFoundError, ValueError, TypeError):
        done = 0
    return max(0, a.games - done), a.games


def _experiment(config, opts):
    """(the experiment, its entry's --games/--only/--x) of an experiment entry."""
    from tools import experiment
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int)
    ap.add_argument("--only", nargs="+")
    ap.add_argument("--x", type=float, nargs="+", dest="xs")
    a, _ = ap.parse_known_args(opts)
    return experiment.load(os.path.join(HERE, config)), a


def _picked(exp, a):
    """The variants an entry's --only and --x pick."""
    return [v for v in exp["variant"]
            if (not a.only or v["series"] in a.only) and (not a.xs or float(v["x"]) in a.xs)]


def _wanted(exp, a):
    out = []
    for v in _picked(exp, a):
        n = a.games or v.get("games", exp["games"])
        out.extend(range(v.get("first_game", 1) - 1, n))
    return out


def timed(config, opts):
    """Whether an entry plays on a clock, which a loaded machine would
    distort: a match with ``--time``, or an experiment whose games (those
    its ``--only``/``--x`` pick) are played at ``seconds`` a move."""
    if config == "match":
        return any(o == "--time" or o.startswith("--time=") for o in opts)
    if config == "run":
        return False
    exp, a = _experiment(config, opts)
    return any(v.get("seconds", exp.get("seconds")) for v in _picked(exp, a))


def run_cmd(opts, workers):
    """The command of a ``run`` entry: ``python`` is this interpreter,
    ``{workers}`` the queue's workers, ``$NAME`` from the environment (a
    variable that is not set is refused by name)."""
    cmd = []
    for w in opts[2:]:
        x = os.path.expandvars(w.replace("{workers}", str(workers)))
        if "$" in x:
            raise ValueError(f"run: the environment has no {x[x.index('$'):].split()[0]}")
        cmd.append(x)
    if cmd[0] == "python":
        cmd[0] = sys.executable
    return cmd


def labels(cmd):
    """Whether a ``run`` entry's command is a teacher's self-play
    (``tools.teacher_play``), which waits between chunks as a match waits
    between games."""
    return cmd[1:3] == ["-m", "tools.teacher_play"]


def experiment_cmd(config, opts, extra):
    return [sys.executable, "-m", "tools.experiment", config, *opts, *extra]


def descendants(pid):
    """The live processes below ``pid``: its children, theirs and so on
    (read from /proc; an empty list where there is none)."""
    kids = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for d in names:
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                stat = fh.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _stop(signum, frame):
    """SIGTERM (``make queues-stop``): the entry under way stops with the
    queue, its engines and teachers with it; the games it finished are
    kept, and one under way is played again when the queue starts again."""
    for p in descendants(os.getpid()):
        try:
            os.kill(p, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
    print("paper_queue: stopped (SIGTERM); the same command resumes", file=sys.stderr, flush=True)
    raise SystemExit(128 + signum)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.paper_queue", description=__doc__.split("\n")[0])
    ap.add_argument("--queue", default=QUEUE)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--archive", action="store_true", help="publish every entry's games so far")
    ap.add_argument("--status", action="store_true", help="games played and wanted, entry by entry")
    ap.add_argument("--fixed-only", action="store_true",
                    help="skip what plays on a clock (match --time, experiments at seconds a move): "
                         "for a queue that shares the cores")
    args = ap.parse_args(argv)
    path = os.path.join(HERE, args.queue)
    if args.status:
        for config, opts in entries(path):
            left, full = pending(config, opts)
            what = ("done" if not left else "to run") if config == "run" else f"{full - left}/{full} games"
            print(f"{config} {' '.join(opts)}: {what}")
        return 0
    lock = hold(path)
    if lock is None:
        return 3
    old_term = signal.signal(signal.SIGTERM, _stop)
    try:
        return _run_queue(path, args)
    finally:
        signal.signal(signal.SIGTERM, old_term)
        lock.close()


def lock_path(path):
    """The lock of the queue that runs ``path``: runs/queue-<its path>.lock
    for a queue file in this checkout, <the file>.lock beside one elsewhere."""
    full = os.path.abspath(path)
    rel = os.path.relpath(full, HERE)
    if rel.startswith(".."):
        return full + ".lock"
    return os.path.join(HERE, "runs", "queue-" + re.sub(r"[^A-Za-z0-9]+", "-", rel).strip("-") + ".lock")


def hold(path):
    """The open lock file of the queue file at ``path``, held for this
    process's life (the lock goes with the process, however it ends), or
    None, said on stderr, when another queue holds it."""
    lp = lock_path(path)
    os.makedirs(os.path.dirname(lp), exist_ok=True)
    fh = open(lp, "a+")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        holder = fh.read().strip() or "?"
        fh.close()
        print(f"paper_queue: {os.path.relpath(path, HERE)} already runs in process {holder}; "
              "`make queues-stop` stops it", file=sys.stderr, flush=True)
        return None
    fh.seek(0)
    fh.truncate()
    fh.write(f"{os.getpid()}\n")
    fh.flush()
    return fh


def _run_queue(path, args):
    """Each entry of the queue file at ``path`` in turn (:func:`main`)."""
    tried = set()
    while True:                       # the file again after every entry: edits count at the next
        todo = [(c, o) for c, o in entries(path) if (c, tuple(o)) not in tried]
        if not todo:
            return 0
        config, opts = todo[0]
        tried.add((config, tuple(opts)))
        clock = timed(config, opts)
        if args.fixed_only and clock:
            print(f"paper_queue: an equal clock waits for quiet cores: {config} {' '.join(opts)}",
                  file=sys.stderr, flush=True)
            continue
        if config == "match":
            if args.archive or pending(config, opts)[0] == 0:
                continue            # its --out folder is its record (tools.match)
            cmd = [sys.executable, "-m", "tools.match", *opts, "--workers", str(args.workers)]
        elif config == "run":
            if args.archive or pending(config, opts)[0] == 0:
                continue
            try:
                cmd = run_cmd(opts, args.workers)
            except ValueError as e:
                print(f"paper_queue: {e}; skipped", file=sys.stderr, flush=True)
                continue
        elif args.archive:
            keep = [o for i, o in enumerate(opts) if o != "--games" and (i == 0 or opts[i - 1] != "--games")]
            cmd = experiment_cmd(config, keep, ["--report-only", "--publish"])
        else:
            if pending(config, opts)[0] == 0:
                continue
            cmd = experiment_cmd(config, opts, ["--workers", str(args.workers)])
        quiet_path = os.path.join(HERE, quiet.QUIET)
        if args.fixed_only:
            quiet.wait(quiet_path, say=lambda: print("paper_queue: waits while an equal clock holds the cores",
                                                     file=sys.stderr, flush=True))
            if config == "match" or labels(cmd):
                cmd += ["--wait-while", quiet_path]
        print("paper_queue:", " ".join(shlex.quote(c) for c in cmd[1:]), file=sys.stderr, flush=True)
        with quiet.hold(quiet_path, " ".join(opts)) if clock else contextlib.nullcontext():
            rc = subprocess.call(cmd, cwd=HERE)
        if rc != 0:
            print(f"paper_queue: {config} ended with {rc}", file=sys.stderr, flush=True)
            if rc in (-2, 130):
                return rc

if __name__ == "__main__":
    sys.exit(main())
