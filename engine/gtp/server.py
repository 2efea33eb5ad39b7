"""GTP 2 server: the engine as Sabaki, GoGui, gomill ringmaster and twogtp see it.

This module and ``client.py`` are the only places that parse text.  Every
line from the controller is preprocessed as GTP 2 (section 2.2) requires:
control characters other than HT/LF removed, HT turned into a space,
everything after ``#`` dropped, blank lines ignored.  A command is
``[id] name [args...]``; the reply is ``=[id] result`` or ``?[id] message``
followed by one blank line.  A failing command never changes the state.

Commands are listed in :data:`COMMAND_HELP` (and by ``list_commands``);
see docs/GTP.md for what each client sends.

Threads.  A reader thread puts stdin lines on a queue (``# interrupt``
lines set the interrupt event instead: GoGui's interrupt).  Commands run on
the main thread one by one.  Streaming analysis (``lz-analyze``,
``analyze``) runs the search on a worker thread and ends as soon as the
next input line arrives; that line is then processed normally.  Pondering
uses the same mechanism between commands.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import os
import queue
import re
import sys
import threading
import time

from board_ext.board import BLACK, WHITE, IllegalMove
from engine import coords
from engine import config as configmod
from engine.game import Game, GameError, SgfError, color_name, opponent, MAX_SIZE, MIN_SIZE
from engine.scoring import Estimate, fmt_score
from engine.timecontrol import TimeControl, TimeError

VERSION = "0.1.0"
PROTOCOL_VERSION = "2"
log = logging.getLogger("gomcts.gtp")

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ID_RE = re.compile(r"[0-9]+")
ANALYSIS_PLAYOUTS = 10**9          # "until interrupted"
INFO_MIN_INTERVAL_CS = 5


class GtpFail(Exception):
    """A command failed: the reply is ``? message``."""


def preprocess(line):
    """GTP 2 section 2.2 input preprocessing; '' for a line to ignore."""
    line = _CONTROL_RE.sub("", line.replace("\r", ""))
    line = line.replace("\t", " ")
    if "#" in line:
        line = line[:line.index("#")]
    return line.strip()


def parse_color(text):
    t = text.lower()
    if t in ("b", "black"):
        return BLACK
    if t in ("w", "white"):
        return WHITE
    raise GtpFail(f"invalid color '{text}'")


def color_letter(color):
    return "B" if color == BLACK else "W"


def parse_int(text, what="value", lo=None, hi=None):
    try:
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            raise ValueError
        v = int(text)
    except (ValueError, TypeError):
        raise GtpFail(f"syntax error: {what} must be an integer, not '{text}'") from None
    if lo is not None and v < lo or hi is not None and v > hi:
        raise GtpFail(f"{what} out of range: {v}")
    return v


def parse_float(text, what="value"):
    try:
        if not text.isascii():
            raise ValueError
        v = float(text)
    except (ValueError, TypeError):
        raise GtpFail(f"syntax error: {what} must be a number, not '{text}'") from None
    if not math.isfinite(v):
        raise GtpFail(f"syntax error: {what} must be finite")
    return v


def _gfx_lines(infl, labels):
    """GoGui gfx INFLUENCE and LABEL lines (omitted when empty)."""
    out = []
    if infl:
        out.append("INFLUENCE " + " ".join(infl))
    if labels:
        out.append("LABEL " + " ".join(labels))
    return out


def build_search(cfg, size, net_for_size=None):
    """A search for ``size`` with the evaluator the config asks for (see
    engine.factory).  ``net_for_size(size)`` gives the torch net or None
    (unavailable).  Returns (search, size_bound): size_bound is True when
    the evaluator only fits this board size."""
    from engine import factory
    ev, bound = None, False
    if cfg.prior.evaluator == "net":
        ev = net_for_size(size) if net_for_size is not None else None
        bound = True
        if ev is None:
            if cfg.net.required:
                raise GtpFail(f"no net weights for {size}x{size} (net.required is set)")
            log.warning("prior.evaluator = net but no net for %dx%d: searching with expert priors",
                        size, size)
            ev = factory.fallback_evaluator()
    else:
        ev = factory.load_evaluator(cfg, size)
    return factory.make_search(cfg, ev), bound


COMMAND_HELP = {
    "protocol_version": "GTP version (2)",
    "name": "engine name",
    "version": "engine version",
    "known_command": "known_command NAME: true/false",
    "list_commands": "all commands, one a line",
    "quit": "end the session",
    "boardsize": "boardsize N (2..19): new empty board, komi kept",
    "clear_board": "empty the board, komi kept",
    "komi": "komi K",
    "fixed_handicap": "fixed_handicap N: GTP standard points",
    "place_free_handicap": "place_free_handicap N: engine chooses",
    "set_free_handicap": "set_free_handicap V V ...",
    "play": "play COLOR VERTEX|pass",
    "genmove": "genmove COLOR: search, play and reply the move (or resign)",
    "reg_genmove": "reg_genmove COLOR: like genmove, not played",
    "undo": "take back the last move",
    "time_settings": "time_settings MAIN BYO STONES (0 1 0 = no limit)",
    "time_left": "time_left COLOR SECONDS STONES",
    "final_score": "score with dead stones estimated from playouts",
    "final_status_list": "final_status_list dead|alive|seki",
    "loadsgf": "loadsgf FILE [MOVE_NUMBER]",
    "printsgf": "printsgf [FILE]: the game as SGF",
    "showboard": "ASCII board",
    "kgs-genmove_cleanup": "genmove that captures dead stones before passing",
    "kgs-time_settings": "kgs-time_settings none|absolute M|byoyomi M T P|canadian M T S",
    "gomill-describe_engine": "name, version, every setting and the seed",
    "gomill-explain_last_move": "win rate, visits, PV of the last generated move",
    "gomill-cpu_time": "CPU seconds used (all threads)",
    "cputime": "CPU seconds used (all threads)",
    "gg-undo": "gg-undo [N]: take back N moves",
    "gogui-play_sequence": "gogui-play_sequence COLOR VERTEX ...",
    "gogui-setup": "gogui-setup COLOR VERTEX ... (setup stones)",
    "gogui-setup_player": "gogui-setup_player COLOR",
    "gogui-interrupt": "the '# interrupt' line stops a running search",
    "gogui-analyze_commands": "GoGui analyze commands",
    "go-ponder": "go-ponder [on|off]: think on the opponent's time",
    "go-param": "go-param [KEY [VALUE]]: show or set a config key (table.key)",
    "go-param_page": "go-param_page TABLE [KEY VALUE]: GoGui param page",
    "go-memory_report": "node pool and memory use",
    "go-set_pool_size": "go-set_pool_size N: node pool capacity (memory cap)",
    "go-gfx_visits": "gfx: visit counts of the root's children",
    "go-gfx_priors": "gfx: net move priors",
    "go-gfx_ownership": "gfx: playout ownership",
    "go-gfx_pv": "gfx: principal variation",
    "go-ownership": "dboard: playout ownership (-1 white .. +1 black)",
    "lz-analyze": "lz-analyze [COLOR] [INTERVAL] [minmoves N] [maxmoves N]: streams info lines",
    "analyze": "analyze [COLOR] [INTERVAL] ...: as lz-analyze",
    "lz-genmove_analyze": "lz-genmove_analyze COLOR [INTERVAL]: info lines, then 'play V'",
    "genmove_analyze": "genmove_analyze COLOR [INTERVAL]: as lz-genmove_analyze",
    "help": "this list with a line each",
}


class GtpServer:
    """One GTP session. ``GtpServer(cfg)``; :meth:`serve` runs it on streams;
    :meth:`respond` answers a single line (for tests and embedding)."""

    def __init__(self, cfg=None, out=None, search_factory=None, evaluator_factory=None):
        self.cfg = cfg if cfg is not None else configmod.load()
        self.out = out if out is not None else sys.stdout
        self._search_factory = search_factory
        self._evaluator_factory = evaluator_factory
        self.game = Game(self.cfg.gtp.boardsize, self.cfg.gtp.komi)
        self.tc = TimeControl.from_config(self.cfg)
        self.ponder = self.cfg.gtp.ponder
        self._search = None
        self._search_size = None
        self._size_bound = False         # the search's evaluator is for one board size
        self._evaluators = {}            # size -> Evaluator or None (unavailable)
        self._out_lock = threading.Lock()
        self.interrupt = threading.Event()
        self.queue: queue.Queue = queue.Queue()
        self._pending = None             # a line read ahead (it ended a stream)
        self._have_pending = False
        self._sync = False               # respond(): streams end at once
        self._eof = False
        self.quit = False
        self.last = None                 # info about the last generated move
        self._our_color = None           # colour of the last genmove (pondering)
        self._time_left_seen = set()
        self._seed = self.cfg.search.seed or (int(time.time() * 1000) & 0x7FFFFFFF)
        self.commands = {}
        for name in COMMAND_HELP:
            self.commands[name] = getattr(self, "cmd_" + name.replace("-", "_"))

    # ================================================================ I/O
    def _write(self, text):
        with self._out_lock:
            self.out.write(text)
            self.out.flush()

    def _reader(self, inp):
        try:
            for raw in inp:
                if raw.strip().lower() == "# interrupt":
                    self.interrupt.set()
                    continue
                self.queue.put(raw)
        except (OSError, ValueError):
            pass
        self.queue.put(None)

    def _next_raw(self, timeout=None):
        """The next input line (None at EOF); raises queue.Empty on timeout."""
        if self._have_pending:
            self._have_pending = False
            return self._pending
        return self.queue.get(timeout=timeout) if timeout is not None else self.queue.get()

    def _input_waiting(self):
        return self._have_pending or not self.queue.empty()

    def _wait_for_input(self, timeout):
        """Block up to timeout seconds for an input line; keep it pending.
        True when a line (or EOF) arrived."""
        if self._sync:
            return True
        if self._have_pending:
            return True
        try:
            line = self.queue.get(timeout=timeout)
        except queue.Empty:
            return False
        self._pending, self._have_pending = line, True
        return True

    def serve(self, inp=None, out=None):
        """Serve GTP until ``quit`` or EOF.  The net and the search for the
        current board size are built first (:meth:`prepare`), so no
        ``genmove`` pays for loading them."""
        if out is not None:
            self.out = out
        inp = inp if inp is not None else sys.stdin
        self.prepare()
        t = threading.Thread(target=self._reader, args=(inp,), daemon=True, name="gtp-reader")
        t.start()
        while not self.quit:
            if self.ponder and not self._input_waiting():
                self._ponder_until_input()
            raw = self._next_raw()
            if raw is None:
                break
            self.handle_line(raw)
        log.info("session ended")

    def respond(self, line):
        """Process one line and return everything written for it ('' for a
        comment or blank line). Streaming commands end at once."""
        import io
        saved, buf = self.out, io.StringIO()
        self.out, self._sync = buf, True
        try:
            self.handle_line(line)
        finally:
            self.out, self._sync = saved, False
        return buf.getvalue()

    def handle_line(self, raw):
        line = preprocess(raw)
        if not line:
            return
        parts = line.split()
        cid = ""
        if _ID_RE.fullmatch(parts[0]):
            cid = parts.pop(0)
        if not parts:
            self._write(f"?{cid} syntax error: no command\n\n")
            return
        name, args = parts[0], parts[1:]
        fn = self.commands.get(name) or self.commands.get(name.lower())
        if fn is None:
            log.debug("unknown command %r", name)
            self._write(f"?{cid} unknown command\n\n")
            return
        log.debug("<< %s", line)
        self._cid = cid
        self._streamed = False
        try:
            body = fn(args)
        except GtpFail as e:
            msg = str(e) or "failed"
            if self._streamed:        # the '=' line is out already: cannot fail now
                log.error("%s failed after streaming: %s", name, msg)
                self._write("\n")
                return
            log.debug(">> ? %s", msg)
            self._write(f"?{cid} {_clean(msg)}\n\n")
            return
        except Exception as e:   # a bug must not kill the session
            log.exception("internal error in %s", name)
            if self._streamed:
                self._write("\n")
                return
            self._write(f"?{cid} internal error: {_clean(type(e).__name__ + ': ' + str(e))}\n\n")
            return
        if self._streamed:            # the handler wrote the reply itself
            return
        body = "" if body is None else str(body)
        self._write(f"={cid} {_clean(body)}\n\n" if body else f"={cid}\n\n")
        log.debug(">> = %s", body[:200])

    # ================================================================ helpers
    @property
    def size(self):
        return self.game.size

    def vertex(self, text):
        if not text.isascii():
            raise GtpFail(f"invalid vertex '{text}'")
        try:
            return coords.from_gtp(text, self.size)
        except coords.BadVertex as e:
            raise GtpFail(str(e)) from None

    def vtx(self, move):
        if move is None or move < 0:
            return "resign"
        return coords.to_gtp(move, self.size)

    def _nargs(self, args, lo, hi=None, usage=""):
        hi = lo if hi is None else hi
        if not lo <= len(args) <= hi:
            raise GtpFail(f"syntax error: {usage}" if usage else "wrong number of arguments")

    def search(self):
        """The Search for the current board size (built on first use)."""
        if self._search is not None and self._search_size != self.size and self._size_bound:
            self._search = None
        if self._search is None:
            if self._search_factory is not None:
                self._search = self._search_factory(self.cfg)
                self._size_bound = False
            else:
                self._search, self._size_bound = build_search(self.cfg, self.size, self.evaluator)
            self._search_size = self.size
        return self._search

    def prepare(self):
        """Build the evaluator (loading the net and its first forward pass)
        and the search for the current board size now, not in the first
        ``genmove``: with ``time_settings 0 1 1`` the seconds that torch
        takes to load would lose on time.  Failures are logged here and
        reported by the command that needs the search."""
        t0 = time.time()
        try:
            if self.cfg.prior.evaluator == "net" and self._search_factory is None:
                ev = self.evaluator()
                if ev is not None:
                    from board_ext.board import Board
                    ev.evaluate([Board(self.size)])        # first forward pass: torch's own set-up
            self.search()
        except GtpFail as e:
            log.warning("search for %dx%d not built at start: %s", self.size, self.size, e)
            return
        except Exception:
            log.exception("search for %dx%d not built at start", self.size, self.size)
            return
        log.info("search for %dx%d ready in %.2fs", self.size, self.size, time.time() - t0)

    def _drop_tree(self):
        if self._search is not None:
            try:
                self._search.clear()
            except Exception:
                log.exception("search.clear failed")

    def _position(self, color):
        """A copy of the current board with ``color`` to move."""
        b = self.game.board.copy()
        if b.to_move != color:
            b.to_move = color
        return b

    def _estimate(self, board=None):
        board = board if board is not None else self.game.board
        return Estimate(board, self.game.komi, self.cfg.gtp.score_playouts, seed=self._seed)

    def _think_seconds(self, color):
        """Seconds for this move, or None (playouts only).  With a clock
        (time_settings, kgs-time_settings or time_left) the clock's
        allocation (engine.timecontrol); without one ``search.seconds``
        (0: ``search.playouts`` alone bounds the move).  ``search.playouts``
        caps the simulations in both cases."""
        t = self.tc.seconds_for_move(color, self.game.move_number)
        if t is not None:
            return t
        cfg_s = self.cfg.search.seconds
        return cfg_s if cfg_s > 0 else None

    # ---------------------------------------------------------- evaluator
    def evaluator(self, size=None):
        """The net for this board size, or None (logged once) if unavailable."""
        size = size or self.size
        if size in self._evaluators:
            return self._evaluators[size]
        ev = None
        try:
            if self._evaluator_factory is not None:
                ev = self._evaluator_factory(size)
            else:
                from engine import factory
                ev = factory.load_evaluator(dataclasses.replace(
                    self.cfg, prior=dataclasses.replace(self.cfg.prior, evaluator="net")), size)
        except Exception as e:
            log.warning("no net for %dx%d: %s", size, size, e)
            print(f"gomcts: no net for {size}x{size} ({e}); "
                  f"continuing without it", file=sys.stderr, flush=True)
            ev = None
        self._evaluators[size] = ev
        return ev

    # ================================================================ move generation
    def _generate(self, color, play, cleanup=False, info_interval=None):
        """Pick a move for ``color``; play it when ``play``. Returns the flat
        move, or -1 for resign."""
        game = self.game
        board = self._position(color)
        t0 = time.time()
        res = None
        move = None
        source = "search"
        if self.cfg.net.rawnet:
            move = self._rawnet_move(board, color)
            if move is not None:
                source = "net"
        if move is None:
            if self.cfg.net.rawnet and self.cfg.net.required:
                raise GtpFail(f"no net weights for {self.size}x{self.size} (net.required is set)")
            s = self.search()
            s.set_position(board, game.komi)
            secs = self._think_seconds(color)
            self.interrupt.clear()
            cb = None
            if info_interval is not None:
                cb = lambda srch: self._emit_info(srch, None)   # noqa: E731
            res = s.run(playouts=self.cfg.search.playouts, seconds=secs if secs else None,
                        stop_event=self.interrupt, callback=cb,
                        callback_interval=info_interval or 0.1)
            move = res.move
        if move is None:
            move = board.pass_move
        if move >= 0:
            move = self._pass_safety(board, color, move, res, cleanup)
        elapsed = time.time() - t0
        self.last = dict(color=color, move=move, result=res, seconds=elapsed, source=source)
        log.info("%s %s %s (%s, %.2fs%s)", "genmove" if play else "reg_genmove", color_letter(color),
                 self.vtx(move), source, elapsed,
                 f", winrate {res.winrate:.3f}, visits {res.visits}" if res is not None else "")
        if play:
            if color not in self._time_left_seen:
                self.tc.spend(color, elapsed)
            self._time_left_seen.discard(color)
            if move >= 0:
                try:
                    game.play(color, move, comment=self._explain())
                except IllegalMove as e:      # the search must never do this
                    log.error("search chose an illegal move %s (%s); passing", self.vtx(move), e.reason)
                    move = board.pass_move
                    game.play(color, move)
            self._our_color = color
        return move

    def new_game(self, size=None, komi=None):
        """Typed clear_board (+ boardsize/komi) for in-process use."""
        self.game.clear(size)
        if komi is not None:
            self.game.komi = float(komi)
        self._new_game()

    def genmove(self, color, play=True, cleanup=False):
        """Typed entry for in-process use (self-play): the flat move
        (pass = size*size, -1 = resign); played when ``play``."""
        return self._generate(color, play=play, cleanup=cleanup)

    def _rawnet_move(self, board, color):
        ev = self.evaluator()
        if ev is None:
            return None
        priors, _ = ev.evaluate([board])
        pr = list(priors[0])
        best = max(range(len(pr)), key=lambda i: pr[i])
        if pr[best] <= 0:
            return board.pass_move
        return best

    def _non_pass_alternatives(self, board, color, res, est=None):
        """Legal non-pass moves that do not fill an own eye, best first.

        First the search's own root moves with real visits, most visited
        first (the move the search would have played had it not passed);
        then the rest ranked by :meth:`_rank_without_search`, never in
        board order."""
        ok = [m for m in board.legal_moves(color) if not board.is_eye(m, color)]
        legal = set(ok)
        cands = []
        if res is not None and self._search is not None:
            try:
                rows = [r for r in self._search.analysis()
                        if r["move"] in legal and r.get("visits", 0) > 0]
            except Exception:
                log.exception("analysis failed")
                rows = []
            rows.sort(key=lambda r: (-r.get("visits", 0), -r.get("winrate", 0.5)))
            cands = [r["move"] for r in rows]
        seen = set(cands)
        rest = [m for m in ok if m not in seen]
        return cands + self._rank_without_search(board, color, rest, est)

    def _rank_without_search(self, board, color, moves, est=None):
        """``moves`` ranked where the search gives no guidance: the expert
        prior weight of each move (captures and atari escapes high,
        self-atari and first-line moves low) times its urgency under the
        dead-stone estimate: points whose owner is unsettled and points
        next to dead stones (capturing them, or saving own ones) first,
        points the mover already owns last."""
        if not moves:
            return []
        from array import array
        from board_ext.playout import expert_priors
        nn = board.pass_move
        w = array("f", bytes(4 * (nn + 1)))
        try:
            expert_priors(board, w)
        except Exception:
            log.exception("expert priors failed")
            w = array("f", [1.0] * (nn + 1))
        sign = 1.0 if color == BLACK else -1.0
        own = est.own if est is not None else [0.0] * nn
        near_dead = set()
        if est is not None:
            for p in est.dead:
                near_dead.update(board.chain_liberties(p))
        if self.cfg.net.rawnet:
            ev = self._evaluators.get(self.size)
            if ev is not None:
                try:
                    pr = ev.evaluate([board])[0][0]
                    w = array("f", [float(w[i]) * (0.05 + float(pr[i])) for i in range(nn + 1)])
                except Exception:
                    log.exception("net priors failed")

        def key(m):
            mine = sign * own[m]                    # +1: already ours, -1: the opponent's
            urgency = 1.0 - abs(own[m]) + (1.0 if m in near_dead else 0.0)
            if mine > 0.8:
                urgency *= 0.1
            return (-(float(w[m]) * (0.05 + urgency)), m)
        return sorted(moves, key=key)

    def _pass_safety(self, board, color, move, res, cleanup):
        """Never pass into a loss under the dead-stone estimate while a
        non-pass move exists; in the cleanup phase, capture dead stones first."""
        if move != board.pass_move:
            return move
        if not board.legal_moves(color):
            return move
        try:
            est = self._estimate(board)
        except Exception:
            log.exception("dead-stone estimate failed")
            return move
        mine = est.score if color == BLACK else -est.score
        opp_dead = [p for p in est.dead if board.color_at(p) == opponent(color)]
        if mine > 0 and not (cleanup and opp_dead):
            return move
        alts = self._non_pass_alternatives(board, color, res, est)
        if cleanup and opp_dead and mine > 0:
            # prefer moves next to the dead stones (capturing them)
            near = set()
            for p in opp_dead:
                near.update(board.chain_liberties(p))
            pref = [m for m in alts if m in near]
            alts = pref + [m for m in alts if m not in near]
        if not alts:
            return move
        log.info("pass would lose by %.1f under the dead-stone estimate%s; playing %s instead",
                 -mine, " (cleanup)" if cleanup else "", self.vtx(alts[0]))
        return alts[0]

    def _explain(self):
        """gomill-explain_last_move text (also the SGF comment)."""
        if not self.last:
            return ""
        res = self.last["result"]
        mv = self.vtx(self.last["move"])
        if res is None:
            return f"{mv} by {self.last['source']} in {self.last['seconds']:.2f}s"
        pv = " ".join(self.vtx(m) for m in (res.pv or [])[:12])
        txt = (f"{mv} winrate {100 * res.winrate:.1f}% visits {res.visits} playouts {res.playouts} "
               f"time {res.seconds:.2f}s")
        if pv:
            txt += f" pv {pv}"
        try:
            ps = self._search.pool_stats()
            txt += f"; pool {ps.get('used')}/{ps.get('capacity')} nodes"
            if ps.get("recycled"):
                txt += f", recycled {ps.get('recycled')}"
        except Exception:
            pass
        return txt

    # ---------------------------------------------------------- analysis lines
    def _info_line(self, srch, minmoves=0, maxmoves=0):
        rows = srch.analysis()
        parts = []
        for order, r in enumerate(rows):
            if maxmoves and len(parts) >= maxmoves:
                break
            if r.get("visits", 0) <= 0 and len(parts) >= minmoves:
                continue
            pv = [self.vtx(m) for m in (r.get("pv") or [r["move"]])]
            parts.append(
                "info move {} visits {} winrate {} prior {} lcb {} order {} pv {}".format(
                    self.vtx(r["move"]), int(r.get("visits", 0)), _permyriad(r.get("winrate", 0.5)),
                    _permyriad(r.get("prior", 0.0)), _permyriad(r.get("lcb", r.get("winrate", 0.5))),
                    order, " ".join(pv)))
        return " ".join(parts)

    def _emit_info(self, srch, opts):
        opts = opts or {}
        try:
            line = self._info_line(srch, opts.get("minmoves", 0), opts.get("maxmoves", 0))
        except Exception:
            log.exception("analysis line failed")
            return
        if line:
            self._write(line + "\n")

    def _parse_analyze_args(self, args, need_color):
        color = self.game.to_move
        interval = 10
        opts = {"minmoves": 0, "maxmoves": 0}
        i = 0
        if i < len(args) and args[i].lower() in ("b", "w", "black", "white"):
            color = parse_color(args[i])
            i += 1
        elif need_color:
            raise GtpFail("syntax error: a colour is required")
        if i < len(args) and _ID_RE.fullmatch(args[i]):
            interval = int(args[i])
            i += 1
        while i < len(args):
            key = args[i].lower()
            if i + 1 >= len(args):
                raise GtpFail(f"syntax error: '{key}' needs a value")
            val = args[i + 1]
            if key == "interval":
                interval = parse_int(val, "interval", 0)
            elif key in ("minmoves", "maxmoves"):
                opts[key] = parse_int(val, key, 0)
            else:
                raise GtpFail(f"unsupported analyze option '{args[i]}'")
            i += 2
        return color, max(interval, INFO_MIN_INTERVAL_CS) / 100.0, opts

    def _stream_analysis(self, color, interval, opts):
        """lz-analyze/analyze: '=' then info lines every interval until the
        next input line, then the closing blank line."""
        board = self._position(color)
        s = self.search()
        s.set_position(board, self.game.komi)
        stop = threading.Event()
        self._write(f"={self._cid}\n")
        self._streamed = True
        if self._sync:
            self._write("\n")
            return
        done = threading.Event()

        def work():
            try:
                s.run(playouts=ANALYSIS_PLAYOUTS, seconds=None, stop_event=stop,
                      callback=lambda srch: self._emit_info(srch, opts), callback_interval=interval)
            except Exception:
                log.exception("analysis search failed")
            finally:
                done.set()

        th = threading.Thread(target=work, daemon=True, name="gtp-analyze")
        th.start()
        while not self._wait_for_input(interval):
            if done.is_set():            # the search ended by itself (pool full): repeat its result
                self._emit_info(s, opts)
        stop.set()
        th.join()
        self._write("\n")

    # ---------------------------------------------------------- pondering
    def _ponder_until_input(self):
        game = self.game
        if (self.cfg.net.rawnet or self._our_color is None or game.is_over()
                or game.to_move == self._our_color or self._sync):
            return
        try:
            s = self.search()
            s.set_position(game.board.copy(), game.komi)
        except Exception:
            log.exception("ponder setup failed")
            return
        stop = threading.Event()

        def work():
            try:
                s.run(playouts=ANALYSIS_PLAYOUTS, seconds=None, stop_event=stop)
            except Exception:
                log.exception("ponder search failed")

        th = threading.Thread(target=work, daemon=True, name="gtp-ponder")
        th.start()
        while not self._wait_for_input(0.5):
            pass
        stop.set()
        th.join()

    # ================================================================ commands
    # -- administrative
    def cmd_protocol_version(self, args):
        return PROTOCOL_VERSION

    def cmd_name(self, args):
        return self.cfg.gtp.name

    def cmd_version(self, args):
        return VERSION

    def cmd_known_command(self, args):
        self._nargs(args, 1, usage="known_command NAME")
        return "true" if args[0] in self.commands else "false"

    def cmd_list_commands(self, args):
        return "\n".join(self.commands)

    def cmd_help(self, args):
        return "\n".join(f"{k}: {v}" for k, v in COMMAND_HELP.items())

    def cmd_quit(self, args):
        self.quit = True
        return ""

    # -- setup
    def cmd_boardsize(self, args):
        self._nargs(args, 1, usage="boardsize N")
        n = parse_int(args[0], "board size")
        if not MIN_SIZE <= n <= MAX_SIZE:
            raise GtpFail("unacceptable size")
        self.game.clear(n)
        self._new_game()
        if self._search is None or (self._size_bound and self._search_size != n):
            self.prepare()               # a new size: its net and search now, not in genmove
        return ""

    def cmd_clear_board(self, args):
        self.game.clear()
        self._new_game()
        return ""

    def _new_game(self):
        self._drop_tree()
        self.tc.reset()
        self.last = None
        self._our_color = None
        self._time_left_seen.clear()

    def cmd_komi(self, args):
        self._nargs(args, 1, usage="komi FLOAT")
        self.game.komi = parse_float(args[0], "komi")
        return ""

    def _handicap_checks(self, args, usage):
        self._nargs(args, 1, usage=usage)
        n = parse_int(args[0], "number of stones")
        if not self.game.is_empty() or self.game.history:
            raise GtpFail("board not empty")
        return n

    def cmd_fixed_handicap(self, args):
        n = self._handicap_checks(args, "fixed_handicap N")
        try:
            pts = self.game.fixed_handicap(n)
        except GameError as e:
            raise GtpFail(str(e)) from None
        self._drop_tree()
        return " ".join(self.vtx(p) for p in pts)

    def cmd_place_free_handicap(self, args):
        n = self._handicap_checks(args, "place_free_handicap N")
        try:
            pts = self.game.choose_free_handicap(n)
            self.game.free_handicap(pts)
        except GameError as e:
            raise GtpFail(str(e)) from None
        self._drop_tree()
        return " ".join(self.vtx(p) for p in pts)

    def cmd_set_free_handicap(self, args):
        if len(args) < 2:
            raise GtpFail("invalid number of stones: at least 2 handicap stones")
        pts = [self.vertex(a) for a in args]
        if not self.game.is_empty() or self.game.history:
            raise GtpFail("board not empty")
        try:
            self.game.free_handicap(pts)
        except (GameError, IllegalMove) as e:
            raise GtpFail(str(e)) from None
        self._drop_tree()
        return ""

    # -- moves
    def cmd_play(self, args):
        self._nargs(args, 2, usage="play COLOR VERTEX")
        color = parse_color(args[0])
        move = self.vertex(args[1])
        try:
            self.game.play(color, move)
        except IllegalMove as e:
            raise GtpFail(f"illegal move: {self.vtx(move)} {e.reason}") from None
        return ""

    def cmd_genmove(self, args):
        self._nargs(args, 1, usage="genmove COLOR")
        return self.vtx(self._generate(parse_color(args[0]), play=True))

    def cmd_reg_genmove(self, args):
        self._nargs(args, 1, usage="reg_genmove COLOR")
        return self.vtx(self._generate(parse_color(args[0]), play=False))

    def cmd_kgs_genmove_cleanup(self, args):
        self._nargs(args, 1, usage="kgs-genmove_cleanup COLOR")
        return self.vtx(self._generate(parse_color(args[0]), play=True, cleanup=True))

    def cmd_undo(self, args):
        self._nargs(args, 0, usage="undo")
        try:
            self.game.undo(1)
        except GameError:
            raise GtpFail("cannot undo") from None
        return ""

    def cmd_gg_undo(self, args):
        self._nargs(args, 0, 1, usage="gg-undo [N]")
        n = parse_int(args[0], "number of moves", 0) if args else 1
        try:
            self.game.undo(n)
        except GameError as e:
            raise GtpFail(str(e)) from None
        return ""

    def cmd_gogui_play_sequence(self, args):
        if len(args) % 2:
            raise GtpFail("syntax error: gogui-play_sequence COLOR VERTEX [COLOR VERTEX ...]")
        pairs = [(parse_color(args[i]), self.vertex(args[i + 1])) for i in range(0, len(args), 2)]
        trial = self.game.copy()
        for k, (c, m) in enumerate(pairs):
            try:
                trial.play(c, m)
            except IllegalMove as e:
                raise GtpFail(f"illegal move: {self.vtx(m)} {e.reason}") from None
        self.game = trial
        return ""

    def cmd_gogui_setup(self, args):
        if len(args) % 2:
            raise GtpFail("syntax error: gogui-setup COLOR VERTEX [COLOR VERTEX ...]")
        black, white = [], []
        for i in range(0, len(args), 2):
            c, m = parse_color(args[i]), self.vertex(args[i + 1])
            if m == self.game.pass_move:
                raise GtpFail("pass is not a setup stone")
            (black if c == BLACK else white).append(m)
        try:
            self.game.setup(black, white)
        except IllegalMove as e:
            raise GtpFail(f"illegal setup: {e.reason}") from None
        self._drop_tree()
        return ""

    def cmd_gogui_setup_player(self, args):
        self._nargs(args, 1, usage="gogui-setup_player COLOR")
        self.game.to_move = parse_color(args[0])
        return ""

    def cmd_gogui_interrupt(self, args):
        return ""

    # -- time
    def cmd_time_settings(self, args):
        self._nargs(args, 3, usage="time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES")
        m = parse_float(args[0], "main time")
        b = parse_float(args[1], "byo-yomi time")
        s = parse_int(args[2], "byo-yomi stones")
        try:
            self.tc.set_gtp(m, b, s)
        except TimeError as e:
            raise GtpFail(str(e)) from None
        self._time_left_seen.clear()
        return ""

    def cmd_kgs_time_settings(self, args):
        if not args:
            raise GtpFail("syntax error: kgs-time_settings none|absolute|byoyomi|canadian ...")
        vals = [parse_float(a) for a in args[1:]]
        try:
            self.tc.set_kgs(args[0], *vals)
        except TimeError as e:
            raise GtpFail(str(e)) from None
        self._time_left_seen.clear()
        return ""

    def cmd_time_left(self, args):
        self._nargs(args, 3, usage="time_left COLOR TIME STONES")
        c = parse_color(args[0])
        t = parse_float(args[1], "time")
        s = parse_int(args[2], "stones")
        try:
            self.tc.time_left(c, t, s)
        except TimeError as e:
            raise GtpFail(str(e)) from None
        self._time_left_seen.add(c)
        return ""

    # -- scoring
    def cmd_final_score(self, args):
        return fmt_score(self._estimate().score)

    def cmd_final_status_list(self, args):
        self._nargs(args, 1, usage="final_status_list dead|alive|seki")
        what = args[0].lower()
        if what not in ("dead", "alive", "seki"):
            raise GtpFail(f"syntax error: unknown status '{args[0]}' (dead, alive, seki)")
        est = self._estimate()
        pts = {"dead": est.dead, "alive": est.alive, "seki": est.seki}[what]
        return " ".join(self.vtx(p) for p in sorted(pts))

    # -- SGF
    def cmd_loadsgf(self, args):
        self._nargs(args, 1, 2, usage="loadsgf FILE [MOVE_NUMBER]")
        n = parse_int(args[1], "move number", 1) if len(args) > 1 else None
        try:
            self.game.load_sgf(args[0], n)
        except SgfError as e:
            raise GtpFail(str(e)) from None
        self._new_game()
        return ""

    def cmd_printsgf(self, args):
        self._nargs(args, 0, 1, usage="printsgf [FILE]")
        text = self.game.to_sgf(properties={"PB": self.cfg.gtp.name} if self._our_color == BLACK else
                                {"PW": self.cfg.gtp.name} if self._our_color == WHITE else None)
        if args:
            d = os.path.dirname(os.path.abspath(args[0]))
            if not os.path.isdir(d):
                raise GtpFail(f"cannot write '{args[0]}': no folder {d}")
            try:
                from engine.game import atomic_write
                atomic_write(args[0], text)
            except OSError as e:
                raise GtpFail(f"cannot write '{args[0]}': {e.strerror or e}") from None
            return ""
        return text.strip()

    def cmd_showboard(self, args):
        b = self.game.board
        n = self.size
        letters = " ".join(coords.GTP_LETTERS[:n])
        rows = ["", f"    {letters}"]
        last = b.last_move
        for y in range(n - 1, -1, -1):
            cells = []
            for x in range(n):
                p = y * n + x
                c = b.color_at(p)
                cells.append(".XO"[c])
            rows.append(f"{y + 1:3d} {' '.join(cells)} {y + 1}")
        rows.append(f"    {letters}")
        rows.append(f"{color_name(b.to_move)} to move, komi {self.game.komi:g}, move {self.game.move_number}"
                    f"{', last ' + self.vtx(last) if last is not None else ''}; "
                    f"captured by black {b.captures(BLACK)}, by white {b.captures(WHITE)}")
        return "\n".join(rows)

    # -- gomill
    def cmd_gomill_describe_engine(self, args):
        lines = [f"{self.cfg.gtp.name} {VERSION}", f"seed {self._seed}",
                 f"time: {self.tc.describe()}", f"ponder: {'on' if self.ponder else 'off'}"]
        for key, value, _doc in configmod.describe(self.cfg):
            lines.append(f"{key} = {value}")
        return "\n".join(lines)

    def cmd_gomill_explain_last_move(self, args):
        return self._explain()

    def cmd_gomill_cpu_time(self, args):
        t = os.times()
        return f"{t.user + t.system + t.children_user + t.children_system:.3f}"

    def cmd_cputime(self, args):
        return self.cmd_gomill_cpu_time(args)

    # -- search control over GTP
    def cmd_go_ponder(self, args):
        self._nargs(args, 0, 1, usage="go-ponder [on|off]")
        if args:
            v = args[0].lower()
            if v not in ("on", "off", "1", "0", "true", "false"):
                raise GtpFail("syntax error: go-ponder on|off")
            self.ponder = v in ("on", "1", "true")
            self.cfg = configmod.replace(self.cfg, **{"gtp.ponder": str(self.ponder).lower()})
            return ""
        return "on" if self.ponder else "off"

    def _set_param(self, key, value):
        try:
            new = configmod.replace(self.cfg, **{key: value})
        except configmod.ConfigError as e:
            raise GtpFail(str(e)) from None
        old = self.cfg
        self.cfg = new
        table = key.split(".", 1)[0]
        if key == "pool.pool_size" and self._search is not None:
            try:
                self._search.set_pool_size(new.pool.pool_size)
            except Exception:
                log.exception("set_pool_size failed; the search is rebuilt")
                self._search = None
        elif table in ("search", "prior", "pool", "memory", "bhrf"):
            self._search = None          # rebuilt with the new settings at the next search
        elif table == "net":
            if key == "net.device":
                from engine.factory import net_device
                try:
                    net_device(new)
                except configmod.ConfigError as e:
                    self.cfg = old
                    raise GtpFail(str(e)) from None
            self._evaluators.clear()
            self._search = None
        elif table == "time":
            self.tc.main_fraction = new.time.main_fraction
            self.tc.safety_margin = new.time.safety_margin
            self.tc.min_seconds = new.time.min_seconds
        elif key == "gtp.ponder":
            self.ponder = new.gtp.ponder
        elif key == "gtp.name" and not new.gtp.name.strip():
            self.cfg = old
            raise GtpFail("gtp.name must not be empty")
        if key == "search.seed":
            self._seed = new.search.seed or self._seed

    def _get_param(self, key):
        for k, v, _doc in configmod.describe(self.cfg):
            if k == key:
                return v
        raise GtpFail(f"unknown config key '{key}'")

    def cmd_go_param(self, args):
        if not args:
            return "\n".join(f"{k} {_fmt_value(v)}" for k, v, _ in configmod.describe(self.cfg))
        if len(args) == 1:
            return _fmt_value(self._get_param(args[0]))
        key, value = args[0], " ".join(args[1:])
        if "." not in key:
            raise GtpFail(f"unknown config key '{key}' (use table.key, e.g. search.playouts)")
        self._get_param(key)
        self._set_param(key, value)
        return ""

    def cmd_go_param_page(self, args):
        if not args:
            raise GtpFail("syntax error: go-param_page TABLE [KEY VALUE]")
        table = args[0]
        import dataclasses
        if table not in {f.name for f in dataclasses.fields(self.cfg)}:
            raise GtpFail(f"unknown config table '{table}'")
        if len(args) == 1:
            sub = getattr(self.cfg, table)
            lines = []
            for f in dataclasses.fields(sub):
                v = getattr(sub, f.name)
                choices = f.metadata.get("choices")
                if isinstance(v, bool):
                    lines.append(f"[bool] {f.name} {int(v)}")
                elif choices:
                    lines.append(f"[list/{'/'.join(choices)}] {f.name} {v}")
                else:
                    lines.append(f"[string] {f.name} {_fmt_value(v)}")
            return "\n".join(lines)
        if len(args) < 3:
            raise GtpFail("syntax error: go-param_page TABLE KEY VALUE")
        key = f"{table}.{args[1]}"
        self._get_param(key)
        self._set_param(key, " ".join(args[2:]))
        return ""

    def cmd_go_memory_report(self, args):
        lines = []
        if self._search is not None:
            try:
                for k, v in self._search.pool_stats().items():
                    lines.append(f"pool {k} {v}")
            except Exception as e:
                lines.append(f"pool unavailable ({e})")
        else:
            lines.append(f"pool not allocated yet (capacity {self.cfg.pool.pool_size} nodes, "
                         f"policy {self.cfg.pool.full_policy})")
        rss = _rss_bytes()
        if rss:
            lines.append(f"process rss_bytes {rss}")
        for size, ev in self._evaluators.items():
            if ev is not None:
                try:
                    lines.append(f"net {size}x{size} cache {ev.cache_info()}")
                except Exception:
                    pass
        return "\n".join(lines)

    def cmd_go_set_pool_size(self, args):
        self._nargs(args, 1, usage="go-set_pool_size N")
        n = parse_int(args[0], "pool size")
        self._set_param("pool.pool_size", str(n))
        return ""

    # -- GoGui views
    def cmd_gogui_analyze_commands(self, args):
        import dataclasses
        lines = [f"param/{t.name.capitalize()} Settings/go-param_page {t.name}"
                 for t in dataclasses.fields(self.cfg)]
        lines += [
            "gfx/Visit Counts/go-gfx_visits",
            "gfx/Net Priors/go-gfx_priors",
            "gfx/Ownership/go-gfx_ownership",
            "gfx/Principal Variation/go-gfx_pv",
            "dboard/Ownership Board/go-ownership",
            "string/Memory Report/go-memory_report",
            "none/Set Pool Size/go-set_pool_size %s",
            "string/Explain Last Move/gomill-explain_last_move",
            "string/Ponder/go-ponder %o",
            "string/Final Score/final_score",
            "plist/Dead Stones/final_status_list dead",
            "plist/Seki Stones/final_status_list seki",
        ]
        return "\n".join(lines)

    def _analysis_rows(self):
        """Analysis of the current position: the last search if it was of
        this position, else a fresh search with the configured budget."""
        s = self.search()
        board = self.game.board.copy()
        s.set_position(board, self.game.komi)
        rows = s.analysis()
        if not rows or sum(r.get("visits", 0) for r in rows) == 0:
            self.interrupt.clear()
            s.run(playouts=self.cfg.search.playouts, seconds=self._think_seconds(board.to_move),
                  stop_event=self.interrupt)
            rows = s.analysis()
        return rows

    def cmd_go_gfx_visits(self, args):
        rows = self._analysis_rows()
        total = max(1, max((r.get("visits", 0) for r in rows), default=1))
        labels, infl = [], []
        for r in rows:
            if r["move"] == self.game.pass_move or r.get("visits", 0) <= 0:
                continue
            v = self.vtx(r["move"])
            labels.append(f"{v} {r['visits']}")
            infl.append(f"{v} {r['visits'] / total:.2f}")
        out = _gfx_lines(infl, labels)
        if rows:
            best = rows[0]
            out.append(f"TEXT best {self.vtx(best['move'])} visits {best['visits']} "
                       f"winrate {100 * best.get('winrate', 0.5):.1f}%")
        return "\n".join(out)

    def cmd_go_gfx_priors(self, args):
        ev = self.evaluator()
        if ev is None:
            return f"TEXT no net for {self.size}x{self.size} (see stderr)"
        pr = ev.evaluate([self.game.board.copy()])[0][0]
        top = max(float(pr[:self.game.pass_move].max()), 1e-9)
        infl, labels = [], []
        for p in range(self.game.pass_move):
            if pr[p] >= 0.005:
                v = self.vtx(p)
                infl.append(f"{v} {float(pr[p]) / top:.2f}")
                labels.append(f"{v} {int(round(100 * float(pr[p])))}")
        out = _gfx_lines(infl, labels)
        out.append(f"TEXT pass prior {100 * float(pr[self.game.pass_move]):.1f}%")
        return "\n".join(out)

    def cmd_go_gfx_ownership(self, args):
        est = self._estimate()
        infl = " ".join(f"{self.vtx(p)} {v:.2f}" for p, v in enumerate(est.own) if abs(v) >= 0.05)
        out = []
        if infl:
            out.append("INFLUENCE " + infl)
        if est.dead:
            out.append("MARK " + " ".join(self.vtx(p) for p in est.dead))
        out.append(f"TEXT estimate {fmt_score(est.score)} (mean playout score {est.mean_score:+.1f})")
        return "\n".join(out)

    def cmd_go_ownership(self, args):
        est = self._estimate()
        n = self.size
        return "\n".join(" ".join(f"{est.own[y * n + x]:.2f}" for x in range(n))
                         for y in range(n - 1, -1, -1))

    def cmd_go_gfx_pv(self, args):
        rows = self._analysis_rows()
        if not rows:
            return ""
        color = self.game.to_move
        seq = []
        for m in rows[0].get("pv") or [rows[0]["move"]]:
            seq.append(f"{color_letter(color).lower()} {self.vtx(m)}")
            color = opponent(color)
        return "VAR " + " ".join(seq)

    # -- analysis (Leela Zero format)
    def cmd_lz_analyze(self, args):
        color, interval, opts = self._parse_analyze_args(args, need_color=False)
        self._stream_analysis(color, interval, opts)

    def cmd_analyze(self, args):
        return self.cmd_lz_analyze(args)

    def cmd_lz_genmove_analyze(self, args):
        if not args:
            raise GtpFail("syntax error: lz-genmove_analyze COLOR [INTERVAL]")
        color, interval, opts = self._parse_analyze_args(args, need_color=True)
        self._write(f"={self._cid}\n")
        self._streamed = True
        try:
            move = self._generate(color, play=True, info_interval=interval)
        except GtpFail as e:
            log.error("genmove_analyze failed: %s", e)
            move = None
        if move is not None:
            if self.last and self.last.get("result") is not None and self._search is not None:
                self._emit_info(self._search, opts)
            self._write(f"play {self.vtx(move)}\n")
        self._write("\n")

    def cmd_genmove_analyze(self, args):
        return self.cmd_lz_genmove_analyze(args)


def _permyriad(x):
    try:
        v = int(round(float(x) * 10000))
    except (TypeError, ValueError):
        v = 0
    return max(0, min(10000, v))


def _fmt_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if v == "":
        return '""'
    return str(v)


def _clean(text):
    """A reply body must not contain blank lines (they end the reply)."""
    lines = [ln.rstrip() for ln in str(text).replace("\r", "").split("\n")]
    out = []
    for i, ln in enumerate(lines):
        if ln == "" and i > 0:
            ln = " "
        out.append(ln)
    return "\n".join(out).rstrip() if len(out) > 1 else out[0]


def _rss_bytes():
    try:
        with open("/proc/self/status") as fh:
            for ln in fh:
                if ln.startswith("VmRSS:"):
                    return int(ln.split()[1]) * 1024
    except OSError:
        pass
    return 0


def main(cfg, inp=None, out=None):
    """Serve GTP on stdin/stdout with this config (gtp_main.py)."""
    GtpServer(cfg, out=out).serve(inp)
