"""Matches between two GTP engines, refereed and recorded.

    python -m tools.match --opponent "gnugo --mode gtp --level 10" --games 20 \\
        --size 9 --komi 7 [--config configs/9x9.toml] [--set search.playouts=2000] \\
        [--time 60+5/1] [--workers 2 | --ray | --ray-address HOST:PORT] --out runs/match

Engine A is ours (``gtp_main.py`` in a subprocess, with --config/--set);
engine B the opponent.  Colours alternate (A is Black in even games).  The
core is :func:`play_match`, which takes two command lines, so experiments
can pit two configs of our own engine against each other.

Rules and results
- The record is kept by :class:`engine.game.Game` (simple ko, no suicide;
  positional superko is not enforced, as in gomill).  An engine that crashes,
  times out, answers ``?`` to genmove, names a malformed or illegal move, or
  rejects a legal ``play`` forfeits (``B+F``/``W+F``), with the reason kept.
- Two passes end a game; GNU Go (Chinese rules) loaded with the moves
  scores it (``final_score``); stones it calls dead (``final_status_list
  dead``) that stand in a seki the engine reads out are counted alive
  (:func:`keep_seki_alive`: GNU Go misjudges eyeless seki), the reason
  noted.  If the referee fails, the engine's own
  dead-stone estimate scores it (``player.score_playouts`` of our engine's
  config) and the result notes that.
- ``--move-limit`` (default 3*size*size) ends a game as Void (not counted).
- ``--time M[+B/S]`` sends ``time_settings M B S`` to both and keeps their
  clocks from wall time (``time_left`` before each genmove when known); a
  clock below ``-grace`` loses on time.

Output in --out: ``game-0001.sgf`` ... (atomic writes), the engines'
stderr in ``logs/game-0001-b.log`` and ``-w.log`` (the same numbers),
``results.json`` (every finished game and the summary) and
``settings.json`` (tools.rundir).  A rerun with the same --out resumes:
finished games are kept, missing ones are played; with other settings
(opponent, our engine or its config, size, komi, time, move limit) it is
refused, naming the difference.  With ``--ray`` or ``--ray-address`` each
game is a Ray task (tools.fanout, docs/SCALE.md) that runs both engines on
its node and sends the SGF and the logs back here, where they are written
once; the end adds where the games ran.  ``--wait-while PATH`` (a queue
sharing the cores, tools.quiet) starts no game here while another run's
equal clock holds them.  Ctrl-C stops the run with one line; the
games finished so far are kept.
"""
from __future__ import annotations

import argparse
import json
import logging
import math
import os
import shlex
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait

from board_ext.board import BLACK, WHITE, IllegalMove
from engine import coords
from atomicio import atomic_write
from engine.game import Game
from tools import fanout, quiet, stats
from tools.gtp_client import EngineDied, GtpClient, GtpError, resolve_command
from tools.referee import REFEREE, keep_seki_alive, own_score as _own_score, referee_verdict
from tools.rundir import SettingsMismatch, claim

log = logging.getLogger("gomcts.match")
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CNAME = {BLACK: "b", WHITE: "w"}


def our_engine_command(config=None, sets=(), python=None):
    """argv of gtp_main.py with a config and --set overrides."""
    argv = [python or sys.executable, os.path.join(HERE, "gtp_main.py")]
    if config:
        argv += ["--config", config]
    for s in sets:
        argv += ["--set", s]
    return argv


def parse_time(spec):
    """'60' (absolute) or '60+5/1' (Canadian: 5 s per 1 stone) -> (M, B, S)."""
    if spec is None:
        return None
    try:
        if "+" in spec:
            main, rest = spec.split("+", 1)
            byo, stones = rest.split("/", 1)
            return float(main), float(byo), int(stones)
        return float(spec), 0.0, 0
    except ValueError:
        raise ValueError(f"--time '{spec}': expected MAIN or MAIN+BYO/STONES (seconds)") from None


class Interrupted(Exception):
    """The match was stopped (Ctrl-C) while this game was being played."""


class Forfeit(Exception):
    def __init__(self, color, reason):
        super().__init__(reason)
        self.color = color
        self.reason = reason


class _Clock:
    def __init__(self, spec):
        self.main, self.byo, self.stones = spec
        self.left = {c: self.main for c in (BLACK, WHITE)}
        self.period_left = {c: self.byo for c in (BLACK, WHITE)}
        self.stones_left = {c: self.stones for c in (BLACK, WHITE)}
        self.in_byo = {c: self.main <= 0 and self.stones > 0 for c in (BLACK, WHITE)}

    def time_left_args(self, c):
        if self.in_byo[c]:
            return f"{max(self.period_left[c], 0):.0f} {self.stones_left[c]}"
        return f"{max(self.left[c], 0):.0f} 0"

    def charge(self, c, secs, grace):
        """Returns False when c has lost on time."""
        if not self.in_byo[c]:
            if secs <= self.left[c]:
                self.left[c] -= secs
                return True
            secs -= self.left[c]
            self.left[c] = 0
            if self.stones <= 0:
                return secs <= grace
            self.in_byo[c] = True
        self.period_left[c] -= secs
        self.stones_left[c] -= 1
        if self.period_left[c] < -grace:
            return False
        if self.stones_left[c] <= 0:
            self.period_left[c], self.stones_left[c] = self.byo, self.stones
        return True


def _start(cmd, timeout, stderr_path):
    err = open(stderr_path, "a") if stderr_path else subprocess_devnull()
    try:
        return GtpClient(resolve_command(cmd), timeout=timeout, stderr=err), err
    except OSError as e:
        err.close()
        raise EngineDied(f"cannot start '{cmd}': {e}") from None


def preflight(cmd, size, timeout=120.0):
    """Start the engine ``cmd`` once and ask it ``name`` and ``boardsize``:
    None when it answers, else the reason it cannot play (a setup error is
    not a game: the match stops before it scores forfeits)."""
    try:
        with tempfile.TemporaryFile("w+") as err:
            try:
                client = GtpClient(resolve_command(cmd), timeout=timeout, stderr=err)
            except OSError as e:
                return f"cannot start: {e}"
            try:
                client.send("name")
                client.send(f"boardsize {size}")
                client.send("clear_board")
                return None
            except (EngineDied, GtpError) as e:
                client.close()          # the engine's last words are in err once it has exited
                err.flush()
                err.seek(0)
                tail = [ln.strip() for ln in err.read().splitlines() if ln.strip()][-1:]
                return f"{e}" + (f" ({tail[0]})" if tail else "")
            finally:
                client.close()
    except OSError as e:
        return str(e)


def subprocess_devnull():
    return open(os.devnull, "w")


def play_game(index, black_cmd, white_cmd, size, komi, *, move_timeout=120.0, move_limit=None,
              time_spec=None, grace=1.0, referee=REFEREE, stderr_dir=None, names=("black", "white"),
              score_playouts=None, stop=None, live=None, handicap=0):
    """One game (``index`` counts from 0); returns (record dict, Game).
    ``handicap`` > 1: Black's fixed handicap stones (GTP ``fixed_handicap``
    to both engines, as ringmaster sends it), White moves first.
    Raises :class:`Interrupted` when the event ``stop`` is set.  The
    engines' clients are kept in the set ``live`` while they run."""
    game = Game(size, komi, superko=False)
    if handicap:
        game.fixed_handicap(handicap)
    move_limit = move_limit or 3 * size * size
    clients, errs = {}, []
    rec = {"index": index, "black": names[0], "white": names[1], "result": None, "winner": None,
           "reason": "", "moves": 0, "scored_by": None}
    t0 = time.time()
    clock = _Clock(time_spec) if time_spec else None
    knows = {}

    def send(c, line):
        try:
            return clients[c].send(line)
        except EngineDied as e:
            raise Forfeit(c, f"{names[c - 1]} {'timed out' if 'timed out' in str(e) else 'crashed'} "
                             f"on '{line}': {e}") from None

    try:
        for c, cmd in ((BLACK, black_cmd), (WHITE, white_cmd)):
            path = os.path.join(stderr_dir, f"game-{index + 1:04d}-{CNAME[c]}.log") if stderr_dir else None
            try:
                clients[c], err = _start(cmd, move_timeout, path)
            except EngineDied as e:
                raise Forfeit(c, str(e)) from None
            errs.append(err)
            if live is not None:
                live.add(clients[c])
        for c in (BLACK, WHITE):
            try:
                send(c, f"boardsize {size}")
                send(c, "clear_board")
                send(c, f"komi {komi:g}")
                if handicap:
                    send(c, f"fixed_handicap {handicap}")
                if clock:
                    send(c, f"time_settings {clock.main:g} {clock.byo:g} {clock.stones}")
                knows[c] = {k: send(c, f"known_command {k}") == "true"
                            for k in ("gomill-explain_last_move", "time_left")}
            except GtpError as e:
                raise Forfeit(c, f"{names[c - 1]} refused setup: {e}") from None
        ended = None
        while ended is None:
            if stop is not None and stop.is_set():
                raise Interrupted()
            if game.move_number >= move_limit:
                ended = "limit"
                break
            c = game.to_move
            o = WHITE if c == BLACK else BLACK
            if clock and knows[c]["time_left"]:
                try:
                    send(c, f"time_left {CNAME[c]} {clock.time_left_args(c)}")
                except GtpError:
                    pass
            ts = time.time()
            try:
                reply = send(c, f"genmove {CNAME[c]}")
            except GtpError as e:
                raise Forfeit(c, f"{names[c - 1]} failed genmove: {e}") from None
            spent = time.time() - ts
            if clock and not clock.charge(c, spent, grace):
                raise Forfeit(c, f"{names[c - 1]} lost on time")
            word = reply.strip().lower()
            if word == "resign":
                rec["result"] = f"{'W' if c == BLACK else 'B'}+R"
                rec["reason"] = f"{names[c - 1]} resigned"
                ended = "resign"
                break
            try:
                move = coords.from_gtp(word, size)
            except coords.BadVertex:
                raise Forfeit(c, f"{names[c - 1]} answered a malformed move '{reply}'") from None
            comment = None
            if knows[c]["gomill-explain_last_move"]:
                try:
                    comment = send(c, "gomill-explain_last_move") or None
                except GtpError:
                    comment = None
            try:
                game.play(c, move, comment=comment)
            except IllegalMove as e:
                raise Forfeit(c, f"{names[c - 1]} played an illegal move {coords.to_gtp(move, size)} "
                                 f"({e.reason})") from None
            try:
                send(o, f"play {CNAME[c]} {coords.to_gtp(move, size)}")
            except GtpError as e:
                raise Forfeit(o, f"{names[o - 1]} rejected the legal move {CNAME[c]} "
                                 f"{coords.to_gtp(move, size)}: {e}") from None
            if game.consecutive_passes() >= 2:
                ended = "passes"
        if ended == "passes":
            verdict = referee_verdict(game.moves, size, komi, referee, game.root_black)
            if verdict is not None:
                res, note = keep_seki_alive(game.board, *verdict)
                rec["scored_by"] = "referee"
                if note:
                    rec["reason"] = note
            else:
                res = _own_score(game, score_playouts, seed=index + 1)
                rec["scored_by"] = "estimate"
                rec["reason"] = "referee failed; scored by the dead-stone estimate"
            rec["result"] = res
        elif ended == "limit":
            rec["result"] = "Void"
            rec["reason"] = f"move limit {move_limit} reached"
    except Forfeit as f:
        if stop is not None and stop.is_set():
            raise Interrupted() from None       # the engines got the Ctrl-C too
        rec["result"] = f"{'W' if f.color == BLACK else 'B'}+F"
        rec["reason"] = f.reason
        log.warning("game %d: %s", index, f.reason)
    finally:
        for cl in clients.values():
            if live is not None:
                live.discard(cl)
            try:
                cl.close()
            except Exception:
                pass
        for e in errs:
            try:
                e.close()
            except Exception:
                pass
    r = rec["result"]
    rec["winner"] = winner_of(r)
    rec["moves"] = game.move_number
    rec["seconds"] = round(time.time() - t0, 2)
    game.result = r
    game.properties.update({"PB": names[0], "PW": names[1]})
    if rec["reason"]:
        game.properties["GC"] = rec["reason"]
    return rec, game


def play_match(engine_a_cmd, engine_b_cmd, games, size, komi, out, workers=1, *, names=("A", "B"),
               move_timeout=120.0, move_limit=None, time_spec=None, referee=REFEREE, progress=True,
               keep_logs=True, score_playouts=None, settings=None, ray=None, ray_cpus=None,
               handicap=0, a_color="alternate", wait_while=None):
    """Play ``games`` games A vs B (colours alternate, A Black in game 0;
    ``a_color`` "black" or "white" fixes A's colour; ``handicap`` stones
    for Black),
    writing SGFs and results.json into ``out``, in ``workers`` threads (each
    game runs both engines as subprocesses) or as Ray tasks (``ray``:
    "local" or a cluster's address; tools.fanout); resumes a partial run made
    with the same ``settings`` (default: both command lines, size, komi,
    time and move limit) and raises :class:`tools.rundir.SettingsMismatch`
    for one made with others.  Returns the results dict (see
    :func:`summary`).  On KeyboardInterrupt the games finished so far stay
    recorded and the games in progress are dropped.  ``wait_while``: a
    file of :mod:`tools.quiet`; no game starts while it names a live process
    (another queue's equal-clock match needs the cores)."""
    if settings is None:
        settings = {"engine_a": _cmd_str(engine_a_cmd), "engine_b": _cmd_str(engine_b_cmd)}
    settings = {**settings, "size": size, "komi": komi, "time": time_spec, "move_limit": move_limit}
    if handicap or a_color != "alternate":      # older runs' settings stay as they were
        settings.update(handicap=handicap, a_color=a_color)
    claim(out, settings)
    from tools import sgfpack
    if os.path.exists(os.path.join(out, sgfpack.PACK)):
        sgfpack.unpack(out)        # a packed row resumes: its games count as played
    res_path = os.path.join(out, "results.json")
    done = {}
    if os.path.exists(res_path):
        try:
            with open(res_path) as fh:
                old = json.load(fh)
            for g in old.get("games", []):
                if os.path.exists(os.path.join(out, g.get("sgf", ""))):
                    done[g["index"]] = g
        except (OSError, ValueError, KeyError):
            log.warning("%s unreadable; starting afresh", res_path)
    todo = [i for i in range(games) if i not in done]
    meta = {"engine_a": _cmd_str(engine_a_cmd), "engine_b": _cmd_str(engine_b_cmd), "names": list(names),
            "size": size, "komi": komi, "games": games, "time": time_spec, "handicap": handicap,
            "a_color": a_color}
    lock = threading.Lock()
    stop = threading.Event()
    live = set()
    logdir = os.path.join(out, "logs") if keep_logs else None
    if logdir:
        os.makedirs(logdir, exist_ok=True)

    kw = dict(move_timeout=move_timeout, move_limit=move_limit, time_spec=time_spec, referee=referee,
              score_playouts=score_playouts, handicap=handicap, a_color=a_color)

    def one(i):
        if wait_while:
            quiet.wait(wait_while, stop, say=lambda: log.info("game %d waits: %s holds the cores", i + 1, wait_while))
            if stop.is_set():
                raise Interrupted()
        rec, game = _one_game(i, engine_a_cmd, engine_b_cmd, names, size, komi, stderr_dir=logdir,
                              stop=stop, live=live, **kw)
        game.save_sgf(os.path.join(out, rec["sgf"]))
        return rec

    bar = None
    if progress and todo:
        try:
            from tqdm import tqdm
            bar = tqdm(total=games, initial=len(done), desc="match", unit="game", file=sys.stderr)
        except ImportError:
            bar = None

    def record(rec):
        with lock:
            done[rec["index"]] = rec
            _write_results(res_path, meta, done)
            if bar is not None:
                bar.update(1)
                s = summary(done.values(), names)
                bar.set_postfix_str(f"{names[0]} {s['a']['wins']}-{s['a']['losses']}")

    try:
        if ray:
            _play_on_ray(todo, (engine_a_cmd, engine_b_cmd, names, size, komi, kw), out, logdir, ray,
                         ray_cpus, record)
        elif workers <= 1:
            for i in todo:
                record(one(i))
        else:
            ex = ThreadPoolExecutor(max_workers=workers)
            try:
                pending = {ex.submit(one, i) for i in todo}
                while pending:
                    # a timeout, so the main thread runs Python again every half
                    # second: a Ctrl-C that the kernel handed to a game thread is
                    # only raised here when it does (a wait without one never woke)
                    finished, pending = futures_wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                    for f in finished:
                        record(f.result())
            finally:
                stop.set()              # games still running end at their next move
                ex.shutdown(wait=False, cancel_futures=True)
    except (KeyboardInterrupt, Interrupted):
        stop.set()
        for cl in list(live):           # games in other threads end now
            try:
                cl.proc.kill()
            except OSError:
                pass
        raise KeyboardInterrupt from None
    finally:
        if bar is not None:
            bar.close()
    _write_results(res_path, meta, done)
    with open(res_path) as fh:
        return json.load(fh)


def winner_of(result):
    """"black", "white" or "draw" for a result ("B+3.5", "W+R", "0"), None otherwise."""
    if result and result[0] in "BW" and len(result) > 1:
        return "black" if result[0] == "B" else "white"
    return "draw" if result == "0" else None


def winner_engine(winner, a_black, names):
    """The name of the engine that won (A is ``names[0]``), None for a draw or no result."""
    if winner in (None, "draw"):
        return None
    return names[0] if (winner == "black") == a_black else names[1]


def _one_game(i, engine_a_cmd, engine_b_cmd, names, size, komi, a_color="alternate", **kw):
    """Game ``i`` of a match (A Black in even games, or always the colour
    ``a_color``): (record, Game)."""
    a_black = i % 2 == 0 if a_color == "alternate" else a_color == "black"
    bcmd, wcmd = (engine_a_cmd, engine_b_cmd) if a_black else (engine_b_cmd, engine_a_cmd)
    bn, wn = (names[0], names[1]) if a_black else (names[1], names[0])
    rec, game = play_game(i, bcmd, wcmd, size, komi, names=(bn, wn), **kw)
    rec["a_color"] = "black" if a_black else "white"
    rec["winner_engine"] = winner_engine(rec["winner"], a_black, names)
    rec["sgf"] = f"game-{i + 1:04d}.sgf"
    return rec, game


def _ray_game(i, engine_a_cmd, engine_b_cmd, names, size, komi, kw, keep_logs):
    """Game ``i`` as a Ray task, on whichever node: (record, SGF text,
    {log file name: text}); the driver writes them."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="gomcts-match-") as d:
        rec, game = _one_game(i, engine_a_cmd, engine_b_cmd, names, size, komi,
                              stderr_dir=d if keep_logs else None, **kw)
        logs = {}
        for fn in os.listdir(d):
            with open(os.path.join(d, fn), encoding="utf-8", errors="replace") as fh:
                logs[fn] = fh.read()
    return rec, game.to_sgf(), logs


def _play_on_ray(todo, game_args, out, logdir, ray, ray_cpus, record):
    """The games ``todo`` as Ray tasks; each one's SGF and logs are written
    here, once, and ``record`` called with its record."""
    from tools.fanout import Fanout
    fan = Fanout(ray=ray, ray_cpus=ray_cpus)
    seen = set()
    with fan:
        for k, value, err in fan.imap(_ray_game, [(i, *game_args, logdir is not None) for i in todo]):
            if err is not None:
                raise err
            rec, sgf, logs = value
            if rec["index"] in seen:
                continue
            seen.add(rec["index"])
            for fn, text in logs.items():
                atomic_write(os.path.join(logdir, fn), text)
            atomic_write(os.path.join(out, rec["sgf"]), sgf)
            record(rec)
    print(fan.summary(), file=sys.stderr)


def _cmd_str(cmd):
    """A command line as recorded in settings.json and results.json: paths
    inside the project relative to it (the record names no machine)."""
    text = cmd if isinstance(cmd, str) else " ".join(shlex.quote(a) for a in cmd)
    return text.replace(HERE + os.sep, "")


def summary(records, names=("A", "B")):
    recs = [r for r in records if r.get("result") not in (None, "Void")]
    a_w = sum(1 for r in recs if r.get("winner_engine") == names[0])
    b_w = sum(1 for r in recs if r.get("winner_engine") == names[1])
    d = sum(1 for r in recs if r.get("winner") == "draw")
    void = sum(1 for r in records if r.get("result") == "Void")
    forfeits = sum(1 for r in recs if r["result"].endswith("+F"))
    return {"a": stats.summarize(a_w, b_w, d), "void": void, "forfeits": forfeits,
            "finished": len(recs) + void}


def _write_results(path, meta, done):
    recs = [done[i] for i in sorted(done)]
    s = summary(recs, meta["names"])
    data = {**meta, "summary": s, "games": recs}
    atomic_write(path, json.dumps(_finite(data), indent=1, default=str) + "\n")


def _finite(x):
    """Strict JSON: infinities and NaN as strings / null."""
    if isinstance(x, float):
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def format_table(results):
    """The results table printed at the end of a match."""
    names = results["names"]
    s = results["summary"]["a"]
    lines = [f"{'engine':<12} {'games':>5} {'wins':>5} {'losses':>6} {'draws':>5} {'win rate':>9} "
             f"{'95% Wilson':>15} {'Elo':>6} {'Elo 95%':>15}"]
    if s["games"]:
        lines.append(f"{names[0]:<12} {s['games']:>5} {s['wins']:>5} {s['losses']:>6} {s['draws']:>5} "
                     f"{100 * s['winrate']:>8.1f}% {100 * s['wilson_lo']:>6.1f}-{100 * s['wilson_hi']:.1f}% "
                     f"{stats.fmt_elo(s['elo']):>6} {stats.fmt_elo(s['elo_lo']):>7}..{stats.fmt_elo(s['elo_hi'])}")
    else:
        lines.append(f"{names[0]:<12} no finished games")
    extra = results["summary"]
    lines.append(f"vs {names[1]}; void {extra['void']}, forfeits {extra['forfeits']}")
    by_color = {"black": [0, 0], "white": [0, 0]}
    for g in results["games"]:
        if g.get("winner_engine") in names:
            by_color[g["a_color"]][0 if g["winner_engine"] == names[0] else 1] += 1
    lines.append(f"{names[0]} as black {by_color['black'][0]}-{by_color['black'][1]}, "
                 f"as white {by_color['white'][0]}-{by_color['white'][1]}")
    for g in results["games"]:
        if g.get("reason") and g["result"] and g["result"].endswith("+F"):
            lines.append(f"  game {g['index'] + 1}: {g['result']} ({g['reason']})")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.match",
                                 description="Play our engine against a GTP opponent.")
    ap.add_argument("--opponent", required=True, help="opponent command line (GTP on stdin/stdout)")
    ap.add_argument("--engine", help="our engine's command line (default: gtp_main.py with --config/--set)")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--komi", type=float, default=7.0)
    ap.add_argument("--config", help="config of our engine")
    ap.add_argument("--set", action="append", default=[], metavar="TABLE.KEY=VALUE")
    ap.add_argument("--time", help="MAIN or MAIN+BYO/STONES seconds, sent as time_settings")
    ap.add_argument("--workers", type=int, default=None, help="games in parallel (default 1)")
    ap.add_argument("--move-timeout", type=float, default=120.0, help="seconds per GTP command")
    ap.add_argument("--move-limit", type=int, default=None, help="moves before a game is void")
    ap.add_argument("--referee", default=REFEREE, help="GTP scorer (final_score)")
    ap.add_argument("--names", nargs=2, default=None, metavar=("A", "B"))
    ap.add_argument("--handicap", type=int, default=0, help="fixed handicap stones for Black (2..9)")
    ap.add_argument("--our-color", choices=("alternate", "black", "white"), default="alternate",
                    help="our engine's colour (default: alternate, Black in the first game)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--wait-while", metavar="PATH",
                    help="start no game while PATH names a live process (tools.quiet: an equal clock elsewhere)")
    fanout.add_arguments(ap)
    args = ap.parse_args(argv)
    ray = fanout.ray_target(ap, args, args.workers)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    try:
        tspec = parse_time(args.time)
    except ValueError as e:
        ap.error(str(e))
    if args.handicap:
        from engine.game import handicap_points
        try:
            handicap_points(args.size, args.handicap)
        except ValueError as e:
            ap.error(f"--handicap {args.handicap}: {e}")
    score_playouts = None
    settings = {"opponent": args.opponent, "engine": args.engine}
    sets = list(args.set)
    if (args.workers or 1) > 1 and not any(s.startswith("search.threads=") for s in sets):
        sets.append("search.threads=1")      # games side by side: a core each, not every core each
    if args.config or args.set or not args.engine:
        from engine.config import ConfigError, at_size, load, to_dict
        try:
            cfg = load(args.config, sets)    # fail here, not in every game
        except ConfigError as e:
            ap.error(str(e))
        score_playouts = at_size(cfg, args.size).player.score_playouts
        from engine.factory import NoNet, require_net
        try:
            require_net(cfg, args.size)
        except NoNet as e:
            print(f"match: our engine cannot play {args.size}x{args.size} with net.required: {e}",
                  file=sys.stderr)
            return 2
        if not args.engine:
            settings["config"] = to_dict(cfg)
    ours = args.engine or our_engine_command(args.config, sets)
    names = tuple(args.names) if args.names else ("gomcts", os.path.basename(resolve_command(args.opponent)[0]))
    for cmd in ((ours, args.opponent) if args.games > 0 else ()):
        why = preflight(cmd, args.size, args.move_timeout)
        if why is not None:
            print(f"match: the engine '{cmd if isinstance(cmd, str) else shlex.join(cmd)}' cannot play: {why}",
                  file=sys.stderr)
            return 2
    try:
        results = play_match(ours, args.opponent, args.games, args.size, args.komi, args.out, args.workers or 1,
                             names=names, move_timeout=args.move_timeout, move_limit=args.move_limit,
                             time_spec=tspec, referee=args.referee, score_playouts=score_playouts,
                             settings=settings, ray=ray, ray_cpus=args.ray_cpus, handicap=args.handicap,
                             a_color=args.our_color, wait_while=args.wait_while)
    except (SettingsMismatch, fanout.FanoutError) as e:
        print(f"match: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"match: interrupted; {_finished_games(args.out)} of {args.games} games are in {args.out} "
              f"(the same command resumes)", file=sys.stderr)
        return 130
    print(format_table(results))
    return 0


def _finished_games(out):
    try:
        with open(os.path.join(out, "results.json")) as fh:
            return len(json.load(fh).get("games", []))
    except (OSError, ValueError):
        return 0


if __name__ == "__main__":
    sys.exit(main())
