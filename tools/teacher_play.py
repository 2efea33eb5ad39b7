"""Teacher self-play: a KataGo network plays itself over the JSON analysis
protocol, and every position it evaluates is kept with its targets.

    python -m tools.teacher_play --teacher "katago analysis -model NET -config CFG" \\
        --size 19 [--games 4000] [--chunk-games 16] [--in-flight 4] [--workers 2] \\
        [--out DIR] [--seed 0]

Each position of a game is one query at ``maxVisits`` 1 (the raw net's
view): its policy, Black's win rate and lead and the ownership of every
point are the position's label, and the next move is sampled from that
policy, so no position is evaluated twice.  The moves:

- game ``seed`` first plays up to ``--random-moves`` uniformly random legal
  moves (not labels for the move played; their positions still get the
  teacher's targets), then samples the policy at ``--opening-temp`` until
  move ``--opening-moves`` and at ``--temp`` after it; a move the engine's
  board refuses (simple ko, no suicide, the rules of the queries) is never
  played: the next sample is taken;
- a game ends at two passes, at ``--max-moves``, or by resignation: once
  the side behind has had a win rate under ``--resign`` for
  ``--resign-turns`` positions in a row, except in the ``--playout``
  fraction of games, which are played out;
- a game's ``score`` is the teacher's lead at its last position (Black
  minus White, komi included).

Games go in chunks of ``--chunk-games`` (game seeds ``seed + i * chunk``
onwards); chunk ``i`` becomes ``S<size>_<seed of its first game>.npz`` in
``--out`` (default: ``<data folder>/teacher-play/<size>x<size>-<net>``,
the data folder of ``nets.shards.data_root``), a label shard of
``nets/shards.py`` with packed targets, written to a temporary file and
renamed: a killed run leaves no partial shard and the same command resumes
at the first chunk not written.  ``--games 0`` plays on until stopped;
``--minutes M`` starts no chunk after M minutes (the chunks under way
end), so labelling fits a session and the training after it learns what
arrived before the machine goes.  ``--wait-while PATH`` starts no chunk
while an equal-clock match holds the cores (``tools.quiet``): a queue
that shares the machine labels between such matches, never beside one.

Bad teacher output never reaches a shard: a line that does not parse,
answers another query or turn, a position with the other side to move or
arrays of the wrong length is named on stderr and asked again (up to
``--retries`` times a position, then the game is dropped); a teacher that
exits or stalls (``--timeout`` seconds without a line) is restarted and
every game in flight asks again, up to ``--restarts`` times a chunk.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from board_ext.board import Board
from nets.shards import data_root, make_shard, pack_teacher, save_shard
from tools.fanout import Fanout, FanoutError, add_arguments, ray_target
from tools import quiet
from tools.publish import no_paths
from tools.label import Teacher, TeacherDied, game_query, parse_answer, teacher_problem


class Game:
    """One game in flight: its board, moves and the labels of its positions."""

    def __init__(self, seed, size, opts):
        self.seed, self.size, self.o = seed, size, opts
        self.rng = np.random.default_rng(seed)
        self.board = Board(size, superko=False)
        self.moves, self.is_label = [], []
        self.labels = []                 # (turn, policy, own, winrate, lead)
        self.random_left = int(self.rng.integers(0, opts["random_moves"] + 1))
        self.playout = bool(self.rng.random() < opts["playout"])
        self.behind = 0                  # positions in a row past the resign threshold
        self.passes = 0
        self.retries = 0
        self.done = False

    def query(self, komi):
        """The position now, as tools.label asks a teacher: one turn, 1 visit."""
        n = len(self.moves)
        return game_query(f"{self.seed}:{n}", self.moves, self.size, komi, [n], 1)

    def _sample(self, p, temp):
        """A move from ``p`` at ``temp`` that the board allows (pass is
        always allowed)."""
        nn = self.size * self.size
        q = np.power(p.astype(np.float64), 1.0 / temp) if temp != 1 else p.astype(np.float64)
        while True:
            s = q.sum()
            if s <= 0:
                return nn
            m = int(self.rng.choice(len(q), p=q / s))
            if m == nn or self.board.is_legal(m):
                return m
            q[m] = 0.0

    def answer(self, p, own, wr, lead):
        """Keep the position's label and play the next move."""
        o, t = self.o, len(self.moves)
        self.retries = 0
        self.labels.append((t, p, own, wr, lead))
        if t >= o["max_moves"] or self.passes >= 2:
            self.done = True
            return
        if min(wr, 1 - wr) < o["resign"] and t >= o["opening_moves"]:
            self.behind += 1
        else:
            self.behind = 0
        if self.behind >= o["resign_turns"] and not self.playout:
            self.done = True
            return
        nn = self.size * self.size
        if self.random_left > 0:
            legal = self.board.legal_moves()
            m = int(self.rng.choice(legal)) if legal else nn
            self.random_left -= 1
            label = False
        else:
            m = self._sample(p, o["opening_temp"] if t < o["opening_moves"] else o["temp"])
            label = True
        self.board.play(m)
        self.moves.append(m)
        self.is_label.append(label)
        self.passes = self.passes + 1 if m == nn else 0     # two: the end, labelled by its own query


def play_chunk(teacher_cmd, size, komi, seeds, opts, timeout=60.0, restarts=3, log=None):
    """Play the games ``seeds``; returns (shard arrays or None, notes)."""
    notes = []

    def say(s):
        notes.append(s)
        (log or (lambda x: print(f"teacher_play: {x}", file=sys.stderr, flush=True)))(s)

    teacher = Teacher(teacher_cmd, timeout=timeout)
    pending = list(seeds)[::-1]
    active, done = {}, []
    restarts_left = restarts

    def ask(g):
        try:
            teacher.send(g.query(komi))
        except TeacherDied:
            pass        # the reader sees the teacher gone next; the restart asks every game again

    try:
        while pending or active:
            try:
                while pending and len(active) < opts["in_flight"]:
                    g = Game(pending.pop(), size, opts)
                    active[g.seed] = g
                    ask(g)
                ln = teacher.line()
            except TeacherDied as e:
                if restarts_left <= 0:
                    raise
                restarts_left -= 1
                say(f"{e}; restarting the teacher, {len(active)} games ask again")
                teacher.restart()
                for g in active.values():
                    ask(g)
                continue
            try:
                obj = json.loads(ln)
            except ValueError:
                say(f"unparsable line {ln.strip()[:80]!r}")
                continue
            if not isinstance(obj, dict) or "id" not in obj:
                say(f"a line that answers no query {ln.strip()[:80]!r}")
                continue
            if "turnNumber" not in obj and "error" not in obj:
                continue                                  # a warning or other notice
            qid = str(obj.get("id"))
            try:
                seed, turn = (int(x) for x in qid.split(":"))
            except ValueError:
                say(f"an answer for an unknown query {qid!r}")
                continue
            g = active.get(seed)
            if g is None or turn != len(g.moves) or len(g.labels) > turn:
                say(f"{qid}: an answer for a position not asked (or asked before); ignored")
                continue
            try:
                if "error" in obj:
                    raise ValueError(f"teacher refused: {obj['error']}")
                if obj.get("turnNumber") != turn:
                    raise ValueError(f"answers turn {obj.get('turnNumber')!r}")
                p, _, wr, lead, own = parse_answer(obj, size, turn % 2, 1)
            except ValueError as e:
                g.retries += 1
                if g.retries > opts["retries"]:
                    say(f"{qid}: {e}; game dropped")
                    del active[seed]
                    continue
                say(f"{qid}: {e}; asked again")
                ask(g)
                continue
            g.answer(p, own, wr, lead)
            if g.done:
                del active[seed]
                done.append(g)
            else:
                ask(g)
    finally:
        teacher.close()
    return chunk_arrays(done, size, komi, teacher_cmd, opts), notes


def chunk_arrays(games, size, komi, teacher_cmd, opts):
    """The label shard of finished games, in seed order (None if none)."""
    games = sorted((g for g in games if g.labels), key=lambda g: g.seed)
    if not games:
        return None
    moves, is_label, offsets, seeds, scores = [], [], [0], [], []
    pg, pt, pol, own, wr, lead = [], [], [], [], [], []
    for gi, g in enumerate(games):
        moves.extend(g.moves)
        is_label.extend(g.is_label)
        offsets.append(len(moves))
        seeds.append(g.seed)
        scores.append(float(g.labels[-1][4]))
        for t, p, o, w, ld in g.labels:
            pg.append(gi)
            pt.append(t)
            pol.append(p)
            own.append(o)
            wr.append(w)
            lead.append(ld)
    packed = pack_teacher(np.stack(pol), np.stack(own), wr, lead)
    meta = {"command": no_paths(teacher_cmd),
            "visits": 1, "selfplay": {k: v for k, v in opts.items() if k != "in_flight"}}
    return make_shard(moves, is_label, offsets, seeds, scores, size, 0, komi,
                      pos_game=np.asarray(pg, np.int32), pos_turn=np.asarray(pt, np.int16),
                      teacher=np.str_(json.dumps(meta)), sources=np.asarray([], dtype="<U1"), **packed)


def chunk_path(out, size, first_seed):
    return os.path.join(out, f"S{size}_{first_seed:08d}.npz")


def _job(teacher_cmd, size, komi, seeds, opts, timeout, restarts):
    return play_chunk(teacher_cmd, size, komi, seeds, opts, timeout, restarts)


def net_name(teacher_cmd):
    """The network's file stem in a KataGo command line ('teacher' if none)."""
    parts = teacher_cmd.split()
    for i, a in enumerate(parts[:-1]):
        if a == "-model":
            name = os.path.basename(parts[i + 1])
            for ext in (".gz", ".bin", ".txt"):
                if name.endswith(ext):
                    name = name[: -len(ext)]
            return name.split("-s")[0] if name.startswith("g170") else name
    return "teacher"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--teacher", required=True,
                    help='the analysis engine\'s command line ("katago analysis -model NET -config CFG")')
    ap.add_argument("--size", type=int, default=19)
    ap.add_argument("--komi", type=float, default=7.5)
    ap.add_argument("--out", default=None, help="the shards' folder (default: in the data folder)")
    ap.add_argument("--games", type=int, default=0, help="games in all (0: play on until stopped)")
    ap.add_argument("--seed", type=int, default=0, help="the first game's seed")
    ap.add_argument("--chunk-games", type=int, default=16, help="games a shard")
    ap.add_argument("--in-flight", type=int, default=4, help="games a teacher plays at once")
    ap.add_argument("--random-moves", type=int, default=2, help="at most this many random opening moves")
    ap.add_argument("--opening-moves", type=int, default=None, help="moves at --opening-temp (default: size*1.5)")
    ap.add_argument("--opening-temp", type=float, default=1.0)
    ap.add_argument("--temp", type=float, default=0.7, help="the policy's temperature after the opening")
    ap.add_argument("--resign", type=float, default=0.02)
    ap.add_argument("--resign-turns", type=int, default=8)
    ap.add_argument("--playout", type=float, default=0.2, help="fraction of games never resigned")
    ap.add_argument("--max-moves", type=int, default=None, help="default: 1.3 * size * size")
    ap.add_argument("--retries", type=int, default=3, help="bad answers a position before its game is dropped")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds without a teacher line")
    ap.add_argument("--restarts", type=int, default=3, help="teacher restarts a chunk")
    ap.add_argument("--workers", type=int, default=None, help="chunks in parallel (one teacher each)")
    ap.add_argument("--limit", type=int, default=0, help="stop after this many chunks (0: no limit)")
    ap.add_argument("--minutes", type=float, default=0,
                    help="start no chunk after this many minutes (0: no limit); the chunks under way end")
    ap.add_argument("--wait-while", metavar="PATH",
                    help="start no chunk while PATH names a live process (an equal clock holds the cores, "
                         "tools.quiet)")
    add_arguments(ap)
    a = ap.parse_args(argv)
    ray = ray_target(ap, a, a.workers)
    if not 2 <= a.size <= 19:
        ap.error("--size must be 2..19")
    if a.games < 0 or a.chunk_games < 1 or a.in_flight < 1 or a.random_moves < 0 or a.limit < 0 \
            or a.minutes < 0:
        ap.error("--games, --random-moves, --limit and --minutes must not be negative, "
                 "--chunk-games and --in-flight positive")
    if a.temp <= 0 or a.opening_temp <= 0 or not 0 <= a.playout <= 1 or not 0 <= a.resign < 0.5:
        ap.error("temperatures must be positive, --playout in [0, 1], --resign in [0, 0.5)")
    if (a.workers is not None and a.workers < 1) or a.timeout <= 0 or a.restarts < 0 or a.retries < 0:
        ap.error("--workers and --timeout must be positive, --restarts and --retries not negative")
    opts = dict(random_moves=a.random_moves,
                opening_moves=a.opening_moves if a.opening_moves is not None else int(1.5 * a.size),
                opening_temp=a.opening_temp, temp=a.temp, resign=a.resign, resign_turns=a.resign_turns,
                playout=a.playout, max_moves=a.max_moves or int(1.3 * a.size * a.size),
                retries=a.retries, in_flight=a.in_flight)
    why = teacher_problem(a.teacher)
    if why and not ray:
        print(f"teacher_play: {why}", file=sys.stderr)
        return 2
    out = a.out or os.path.join(data_root(), "teacher-play", f"{a.size}x{a.size}-{net_name(a.teacher)}")
    os.makedirs(out, exist_ok=True)
    n_chunks = -(-a.games // a.chunk_games) if a.games else None
    workers = a.workers or 1
    print(f"teacher_play: {a.size}x{a.size} games into {out}", file=sys.stderr, flush=True)
    t0, n_pos, n_games, failed, made = time.time(), 0, 0, 0, 0

    def todo():
        i = 0
        while n_chunks is None or i < n_chunks:
            first = a.seed + i * a.chunk_games
            last = a.seed + a.games if a.games else first + a.chunk_games
            seeds = list(range(first, min(first + a.chunk_games, last)))
            if not os.path.exists(chunk_path(out, a.size, first)):
                yield first, (a.teacher, a.size, a.komi, seeds, opts, a.timeout, a.restarts)
            i += 1

    fan = Fanout(workers=workers, ray=ray, ray_cpus=a.ray_cpus, start_method=None)
    try:
        with fan:
            gen, rounds = todo(), 0
            while True:
                if a.wait_while:
                    quiet.wait(a.wait_while, say=lambda: print(
                        f"teacher_play: waits: {a.wait_while} holds the cores", file=sys.stderr, flush=True))
                if rounds and a.minutes and time.time() - t0 >= 60 * a.minutes:
                    print(f"teacher_play: {a.minutes:g} minutes are up: {n_games} games, {n_pos} positions "
                          f"(the same command goes on)", file=sys.stderr, flush=True)
                    break
                rounds += 1
                batch = []
                for item in gen:
                    batch.append(item)
                    if len(batch) >= workers:
                        break
                if not batch:
                    break
                for k, res, err in fan.imap(_job, [j for _, j in batch]):
                    first = batch[k][0]
                    if err is not None:
                        failed += 1
                        print(f"teacher_play: chunk {first}: {type(err).__name__}: {err}", file=sys.stderr, flush=True)
                        continue
                    arrays, _ = res
                    if arrays is None:
                        print(f"teacher_play: chunk {first}: no game finished", file=sys.stderr, flush=True)
                        continue
                    save_shard(chunk_path(out, a.size, first), arrays)
                    made += 1
                    n_pos += len(arrays["pos_turn"])
                    n_games += len(arrays["seeds"])
                    dt = time.time() - t0
                    print(f"teacher_play: {os.path.basename(chunk_path(out, a.size, first))}: "
                          f"{len(arrays['seeds'])} games, {len(arrays['pos_turn'])} positions; {n_pos} in "
                          f"{dt:.0f} s ({3600 * n_pos / max(dt, 1e-9):.0f} an hour)", file=sys.stderr, flush=True)
                if a.limit and made >= a.limit:
                    break
    except FanoutError as e:
        print(f"teacher_play: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("teacher_play: interrupted (the same command resumes)", file=sys.stderr)
        return 130
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
