"""Teacher labels: positions in, a strong engine's targets out, over KataGo's
JSON analysis protocol.

    python -m tools.label --teacher "katago analysis -model NET -config CFG" \\
        --in records/datasets/9x9-selfplay --out records/datasets/teacher/9x9 --visits 1 \\
        [--chunk-files 40] [--every 1] [--offset 0] [--workers 2 | --ray | --ray-address HOST:PORT]

The positions are those of training shards (``nets/shards.py``: the engine's
self-play, ``tools.selfplay --data``, and GNU Go's games, ``tools.datagen``).
For every game the teacher gets one query with the game's moves and
``analyzeTurns`` (every ``--every``-th position from the ``--offset``-th), ``maxVisits`` ``--visits``,
``includePolicy`` and ``includeOwnership``; each answer gives the position's
targets:

- ``t_policy`` (float16, a row of ``n*n+1`` a position, flat engine indices,
  pass last): the teacher net's policy; entries under 1e-3 are stored as 0
  (the trainer renormalises);
- ``t_visits`` (float16, the same shape; only when ``--visits`` > 1): the
  teacher search's visit distribution;
- ``t_winrate`` and ``t_lead`` (float32): Black's win probability and
  Black's score lead in points, komi included;
- ``t_own`` (int8, ``n*n`` a position): Black's ownership times 127.

That is the dense form (``--dense``: the committed held-out sets); by
default the policy, ownership, win rate and lead are written packed
(``nets.shards.pack_teacher``: the moves that carry the policy, ownership in
16 levels two points a byte, float16 win rate and lead; about 150 bytes a
19x19 label where the dense form takes about 390), as the bulk sets of
``tools.teacher_play`` are; the trainer reads both.

A label shard holds its source games whole (the arrays of ``nets/shards.py``,
the source's ``visits`` row per labelled move included when it has one) and,
a row per labelled position, ``pos_game`` (the game within the shard),
``pos_turn`` (moves played before the position) and the targets above; with
``teacher`` (JSON: the command, the visits) and ``sources`` (the source shard
names).  The positions are rebuilt by replaying, as for every other shard.

Source shards are taken in sorted order, ``--chunk-files`` at a time; chunk
``i`` becomes ``T<visits>_<source folder>_<first source name>.npz`` in
``--out`` (``..._o<offset>.npz`` with an offset, so that the other positions
of labelled games can be labelled later), written to
a temporary file and renamed, so a killed run leaves no partial shard and
the same command resumes where it stopped (only complete chunks are labelled
unless ``--partial``: sources may still be accruing).

Bad teacher output never reaches a shard: an answer that does not parse,
answers another query or turn, or whose arrays have the wrong length is
named on stderr and its position skipped; a game the teacher refuses (an
``error`` reply) is named and skipped.  A teacher that dies or stalls
(``--timeout`` seconds without a line) is restarted and the game it was on
is asked again, up to ``--restarts`` times a chunk.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import queue
import shlex
import subprocess
import sys
import threading
import time

import numpy as np

from engine import coords
from nets.shards import ShardError, load_shard, make_shard, pack_teacher, save_shard
from tools import publish
from tools.fanout import Fanout, FanoutError, add_arguments, ray_target

POLICY_FLOOR = 1e-3          # policy entries below this are stored as 0
OWN_SCALE = 127


class TeacherDied(RuntimeError):
    """The teacher process exited or stopped answering."""


def teacher_problem(command):
    """Why the teacher command cannot start (its program is not there or
    not executable, or the line does not parse), or None."""
    import shutil
    try:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
    except ValueError as e:
        return f"the teacher command does not parse: {e}"
    if not argv:
        return "the teacher command is empty"
    prog = argv[0]
    if os.sep in prog:
        if not os.path.isfile(prog) or not os.access(prog, os.X_OK):
            return f"{prog}: no such executable (build KataGo: docs/TEACHER.md)"
    elif shutil.which(prog) is None:
        return f"{prog}: not on PATH (build KataGo and give its path: docs/TEACHER.md)"
    return None


class Teacher:
    """A JSON analysis engine as a subprocess: one query out, its answers back."""

    def __init__(self, command, timeout=120.0, stderr=None):
        self.command = command
        self.timeout = timeout
        self._stderr = stderr
        self.proc = None
        self.restarts = 0
        self._start()

    def _start(self):
        argv = shlex.split(self.command) if isinstance(self.command, str) else list(self.command)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr if self._stderr is not None else subprocess.DEVNULL,
                                     text=True, bufsize=1)
        self._lines = queue.Queue()
        t = threading.Thread(target=self._read, args=(self.proc, self._lines), daemon=True)
        t.start()

    @staticmethod
    def _read(proc, q):
        for ln in proc.stdout:
            q.put(ln)
        q.put(None)

    def restart(self):
        self.close()
        self.restarts += 1
        self._start()

    def close(self):
        if self.proc is None:
            return
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def send(self, query):
        """Write one query (TeacherDied when the pipe is closed)."""
        try:
            self.proc.stdin.write(json.dumps(query, separators=(",", ":")) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as e:
            raise TeacherDied(f"teacher pipe closed: {e}") from None

    def line(self):
        """The teacher's next output line; TeacherDied when it exited or
        gave none in ``timeout`` seconds."""
        try:
            ln = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            raise TeacherDied(f"teacher gave no line in {self.timeout:g} s") from None
        if ln is None:
            try:
                code = self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
            raise TeacherDied(f"teacher exited (code {code})")
        return ln

    def ask(self, query):
        """Send ``query``; return (answers by turn, errors): every line with
        the query's id until each of its ``analyzeTurns`` is answered or an
        error ends the query.  Lines that do not parse or answer something
        else go to ``errors`` as text."""
        qid = query["id"]
        want = set(query["analyzeTurns"])
        self.send(query)
        answers, errors = {}, []
        while want:
            ln = self.line()
            try:
                obj = json.loads(ln)
            except ValueError:
                errors.append(f"{qid}: unparsable line {ln.strip()[:80]!r}")
                continue
            if not isinstance(obj, dict):
                errors.append(f"{qid}: not an object {ln.strip()[:80]!r}")
                continue
            if obj.get("id") != qid:
                if "error" in obj and obj.get("id") is None:
                    errors.append(f"{qid}: error '{obj['error']}'")
                    return answers, errors
                errors.append(f"{qid}: an answer for another query ({obj.get('id')!r})")
                continue
            if "error" in obj:
                errors.append(f"{qid}: teacher refused the game: {obj['error']}")
                return answers, errors
            if "turnNumber" not in obj:
                continue                       # a warning or other notice
            if obj.get("isDuringSearch"):
                continue
            t = obj["turnNumber"]
            if t not in want:
                errors.append(f"{qid}: an answer for turn {t!r}, not asked")
                continue
            want.discard(t)
            answers[t] = obj
        return answers, errors


def _finite(xs, n):
    return isinstance(xs, list) and len(xs) == n and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in xs)


def parse_answer(obj, size, to_move, visits):
    """One answer -> (policy, visit share or None, Black's winrate, Black's
    lead, Black's ownership), all in flat engine order; ValueError naming
    what is wrong."""
    n = size * size
    info = obj.get("rootInfo")
    if not isinstance(info, dict):
        raise ValueError("no rootInfo")
    wr, lead = info.get("winrate"), info.get("scoreLead")
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (wr, lead)) or not 0 <= wr <= 1:
        raise ValueError(f"rootInfo winrate {wr!r} / scoreLead {lead!r}")
    cp = info.get("currentPlayer")
    if cp is not None and cp != ("B" if to_move == 0 else "W"):
        raise ValueError(f"answers a position with {cp} to move")
    pol, own = obj.get("policy"), obj.get("ownership")
    if not _finite(pol, n + 1):
        raise ValueError(f"policy is not {n + 1} finite numbers")
    if not _finite(own, n):
        raise ValueError(f"ownership is not {n} finite numbers")
    # rows from the top in the protocol; flat index y*n+x from the bottom here
    order = [(size - 1 - (i // size)) * size + i % size for i in range(n)]
    p = np.zeros(n + 1, np.float32)
    p[order] = np.maximum(np.asarray(pol[:n], np.float32), 0.0)     # illegal points: -1
    p[n] = max(float(pol[n]), 0.0)
    if p.sum() <= 0:
        raise ValueError("policy sums to 0")
    p /= p.sum()
    o = np.zeros(n, np.float32)
    o[order] = np.clip(np.asarray(own, np.float32), -1, 1)
    share = None
    if visits > 1:
        share = np.zeros(n + 1, np.float32)
        for mi in obj.get("moveInfos") or []:
            try:
                share[coords.from_gtp(str(mi["move"]), size)] += float(mi["visits"])
            except (KeyError, ValueError, TypeError):
                raise ValueError(f"moveInfos entry {mi!r}") from None
        if share.sum() <= 0:
            share = p.copy()
        share /= share.sum()
    return p, share, float(wr), float(lead), o


def game_query(qid, moves, size, komi, turns, visits):
    cols = "BW"
    return {"id": qid, "moves": [[cols[i % 2], coords.to_gtp(int(m), size)] for i, m in enumerate(moves)],
            "rules": "chinese", "komi": float(komi), "boardXSize": size, "boardYSize": size,
            "analyzeTurns": list(turns), "maxVisits": int(visits),
            "includePolicy": True, "includeOwnership": True}


def label_chunk(teacher_cmd, files, visits, every, timeout=120.0, restarts=3, log=None, offset=0,
                dense=False):
    """Label the games of the shards ``files``; returns (arrays, notes):
    the label shard's arrays (None when no position was labelled; the
    targets packed unless ``dense``) and the lines that name what was
    skipped."""
    notes = []
    say = (lambda s: (notes.append(s), print(f"label: {s}", file=sys.stderr, flush=True))) if log is None else log
    teacher = Teacher(teacher_cmd, timeout=timeout)
    moves_all, labels_all, offsets, seeds, scores, sp_visits = [], [], [0], [], [], []
    pos = {k: [] for k in ("pos_game", "pos_turn", "t_policy", "t_visits", "t_winrate", "t_lead", "t_own")}
    size = komi = None
    has_visits = None
    try:
        for f in files:
            sh = load_shard(f)
            s, k = int(sh["size"]), float(sh.get("komi", 7.5))
            if size is None:
                size, komi = s, k
            elif (s, k) != (size, komi):
                raise ShardError(f"{f}: size {s} komi {k}, the chunk's first shard has {size} komi {komi}")
            hv = "visits" in sh
            has_visits = hv if has_visits is None else (has_visits and hv)
            off = sh["offsets"]
            for g in range(len(off) - 1):
                mv = sh["moves"][off[g]:off[g + 1]]
                turns = list(range(offset, len(mv), every))
                if not turns:
                    continue
                qid = f"{os.path.basename(f)}:{g}"
                for attempt in range(restarts + 1):
                    try:
                        answers, errs = teacher.ask(game_query(qid, mv, size, komi, turns, visits))
                        break
                    except TeacherDied as e:
                        if attempt == restarts:
                            raise
                        say(f"{qid}: {e}; restarting the teacher")
                        teacher.restart()
                for e in errs:
                    say(e)
                gi = len(seeds)
                kept = 0
                for t in turns:
                    if t not in answers:
                        continue
                    try:
                        p, share, wr, lead, own = parse_answer(answers[t], size, t % 2, visits)
                    except ValueError as e:
                        say(f"{qid} turn {t}: {e}; skipped")
                        continue
                    p[p < POLICY_FLOOR] = 0
                    pos["pos_game"].append(gi)
                    pos["pos_turn"].append(t)
                    pos["t_policy"].append(p.astype(np.float16))
                    if share is not None:
                        pos["t_visits"].append(share.astype(np.float16))
                    pos["t_winrate"].append(wr)
                    pos["t_lead"].append(lead)
                    pos["t_own"].append(np.rint(own * OWN_SCALE).astype(np.int8))
                    kept += 1
                if not kept:
                    continue
                moves_all.extend(int(m) for m in mv)
                labels_all.extend(bool(b) for b in sh["is_label"][off[g]:off[g + 1]])
                offsets.append(len(moves_all))
                seeds.append(int(sh["seeds"][g]))
                sc = sh.get("scores")
                scores.append(float(sc[g]) if sc is not None and len(sc) > g else float("nan"))
                if hv:
                    sp_visits.append(np.asarray(sh["visits"][off[g]:off[g + 1]]))
    finally:
        teacher.close()
    if not pos["pos_game"]:
        return None, notes
    n = size * size
    if dense:
        targets = dict(t_policy=np.stack(pos["t_policy"]), t_winrate=np.asarray(pos["t_winrate"], np.float32),
                       t_lead=np.asarray(pos["t_lead"], np.float32), t_own=np.stack(pos["t_own"]))
    else:
        targets = pack_teacher(np.stack(pos["t_policy"]).astype(np.float32),
                               np.stack(pos["t_own"]).astype(np.float32) / OWN_SCALE,
                               pos["t_winrate"], pos["t_lead"])
    extra = dict(pos_game=np.asarray(pos["pos_game"], np.int32), pos_turn=np.asarray(pos["pos_turn"], np.int16),
                 **targets,
                 teacher=np.str_(json.dumps({"command": publish.no_paths(teacher_cmd),
                                             "visits": visits, "every": every,
                                             "offset": offset})),
                 sources=np.asarray([os.path.basename(f) for f in files]))
    if pos["t_visits"]:
        extra["t_visits"] = np.stack(pos["t_visits"])
    if has_visits and sp_visits:
        extra["visits"] = np.concatenate(sp_visits).astype(np.float16).reshape(-1, n + 1)
    arrays = make_shard(moves_all, labels_all, offsets, seeds, scores, size, 0, komi, **extra)
    return arrays, notes


def chunks(inputs, chunk_files, partial=False):
    """The source shards, sorted, in chunks of ``chunk_files`` (the last one
    only with ``partial``)."""
    files = []
    for d in inputs:
        files.extend(sorted(glob.glob(os.path.join(d, "*.npz"))) if os.path.isdir(d) else [d])
    out = [files[i:i + chunk_files] for i in range(0, len(files), chunk_files)]
    if out and len(out[-1]) < chunk_files and not partial:
        out.pop()
    return out


def out_path(out, visits, files, offset=0):
    """``T<visits>_<source folder>_<first source name>[_o<offset>].npz``:
    unique over several source folders whose shards share names."""
    first = os.path.abspath(files[0])
    stem = os.path.splitext(os.path.basename(first))[0]
    folder = os.path.basename(os.path.dirname(first))
    tail = f"_o{offset}" if offset else ""
    return os.path.join(out, f"T{visits}_{folder}_{stem}{tail}.npz")


def _job(teacher_cmd, files, visits, every, timeout, restarts, offset, dense=False):
    return label_chunk(teacher_cmd, files, visits, every, timeout, restarts, offset=offset, dense=dense)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--teacher", required=True,
                    help='the analysis engine\'s command line ("katago analysis -model NET -config CFG")')
    ap.add_argument("--in", dest="inputs", action="append", required=True, metavar="DIR_OR_SHARD")
    ap.add_argument("--out", required=True)
    ap.add_argument("--visits", type=int, default=1)
    ap.add_argument("--every", type=int, default=1, help="label every N-th position of a game")
    ap.add_argument("--offset", type=int, default=0,
                    help="the first position labelled (with --every 2, --offset 1 labels the others)")
    ap.add_argument("--chunk-files", type=int, default=40, help="source shards a label shard")
    ap.add_argument("--partial", action="store_true", help="also label the last, incomplete chunk")
    ap.add_argument("--limit", type=int, default=0, help="stop after this many label shards (0: all)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds without a teacher line")
    ap.add_argument("--restarts", type=int, default=3, help="teacher restarts a chunk")
    ap.add_argument("--workers", type=int, default=None, help="chunks in parallel (one teacher each)")
    ap.add_argument("--dense", action="store_true",
                    help="write the targets dense (float16 policy rows, int8 ownership) instead of packed")
    add_arguments(ap)
    args = ap.parse_args(argv)
    ray = ray_target(ap, args, args.workers)
    if args.visits < 1 or args.every < 1 or args.chunk_files < 1 or args.limit < 0 or args.offset < 0:
        ap.error("--visits, --every and --chunk-files must be positive, --limit and --offset not negative")
    if (args.workers is not None and args.workers < 1) or args.timeout <= 0 or args.restarts < 0:
        ap.error("--workers and --timeout must be positive, --restarts not negative")
    why = teacher_problem(args.teacher)
    if why and not ray:                    # (on Ray the teacher lives on the nodes)
        print(f"label: {why}", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    todo = [c for c in chunks(args.inputs, args.chunk_files, args.partial)
            if not os.path.exists(out_path(args.out, args.visits, c, args.offset))]
    if args.limit:
        todo = todo[:args.limit]
    print(f"label: {len(todo)} chunks to label into {args.out}", file=sys.stderr, flush=True)
    t0, n_pos = time.time(), 0
    fan = Fanout(workers=args.workers or 1, ray=ray, ray_cpus=args.ray_cpus, start_method=None)
    failed = 0
    try:
        with fan:
            jobs = [(args.teacher, c, args.visits, args.every, args.timeout, args.restarts, args.offset, args.dense)
                    for c in todo]
            for k, res, err in fan.imap(_job, jobs):
                if err is not None:
                    failed += 1
                    print(f"label: chunk {os.path.basename(todo[k][0])}: {type(err).__name__}: {err}",
                          file=sys.stderr, flush=True)
                    continue
                arrays, _ = res
                if arrays is None:
                    print(f"label: chunk {os.path.basename(todo[k][0])}: no position labelled",
                          file=sys.stderr, flush=True)
                    continue
                shard = out_path(args.out, args.visits, todo[k], args.offset)
                save_shard(shard, arrays)
                if publish.is_record(shard):
                    publish.register([shard])      # labels kept in records/ are listed as they accrue
                n_pos += len(arrays["pos_turn"])
                dt = time.time() - t0
                print(f"label: {out_path(args.out, args.visits, todo[k], args.offset)}: {len(arrays['pos_turn'])} positions; "
                      f"{n_pos} in {dt:.0f} s ({3600 * n_pos / max(dt, 1e-9):.0f} an hour)",
                      file=sys.stderr, flush=True)
    except FanoutError as e:
        print(f"label: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("label: interrupted (the same command resumes)", file=sys.stderr)
        return 130
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
