"""GTP 2 server: the engine as Sabaki, GoGui, gomill ringmaster and twogtp see it.

The protocol only: parsing, dispatch, reply formatting and the GoGui and
Leela Zero views.  The engine behind it is an :class:`engine.player.Player`
(moves, pass rule, time, pondering, scoring, options), whose typed errors
become ``? message`` replies.

This module and ``tools/gtp_client.py`` are the only places that parse
GTP text.  Every
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
uses the same mechanism between commands (the Player's :class:`Thinking`).

The controller going away ends the session.  End of input (stdin closed)
stops a running search at once (``Player.close``): the lines read before
it are still answered, each ``genmove`` with the best move found so far,
and then :meth:`GtpServer.serve` returns.  A reply that cannot be written
(stdout closed: ``BrokenPipeError``) is dropped, stops the search and ends
the session the same way (``out_closed``), without a traceback.
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

from board_ext.board import BLACK, WHITE
from engine import coords
from engine.game import color_name, opponent, MAX_SIZE, MIN_SIZE
from engine.gtp import params
from engine.player import Player, PlayerError
from engine.scoring import fmt_score

VERSION = "0.1.0"
PROTOCOL_VERSION = "2"
log = logging.getLogger("gomcts.gtp")

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ID_RE = re.compile(r"[0-9]+")
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
    "lz-analyze": "lz-analyze [COLOR] [INTERVAL] [minmoves N] [maxmoves N] [avoid|allow C V,.. N] "
                  "[ownership true]: streams info lines",
    "analyze": "analyze [COLOR] [INTERVAL] ...: as lz-analyze",
    "lz-genmove_analyze": "lz-genmove_analyze COLOR [INTERVAL] [options]: info lines, then 'play V'",
    "genmove_analyze": "genmove_analyze COLOR [INTERVAL]: as lz-genmove_analyze",
    "kata-analyze": "kata-analyze [COLOR] [INTERVAL] [ownership true] ...: KataGo's info lines (scores, ownership)",
    "kata-genmove_analyze": "kata-genmove_analyze COLOR [INTERVAL] ...: kata-analyze lines, then 'play V'",
    "set_random_seed": "set_random_seed N: seed of the search and the estimates (0: a fresh one)",
    "get_random_seed": "the random seed in use",
    "is_legal": "is_legal COLOR VERTEX: 1 if play would accept it, else 0",
    "all_legal": "all_legal COLOR: the vertices play would accept (pass not listed)",
    "kata-set-param": "kata-set-param NAME VALUE: KataGo name (maxVisits, maxTime, ...) or table.key",
    "kata-get-param": "kata-get-param NAME",
    "kata-list-params": "the KataGo parameter names understood, then every table.key",
    "lz-setoption": "lz-setoption name NAME value VALUE: Leela Zero option (Playouts, Visits, ...) or table.key",
    "kgs-rules": "kgs-rules chinese|aga|new_zealand|japanese",
    "kata-set-rules": "kata-set-rules NAME: chinese, chinese-kgs, chinese-ogs, aga, bga, new-zealand, japanese, korean",
    "kata-get-rules": "the rules in force, as KataGo's JSON",
    "kgs-game_over": "the game is over (KGS): stop pondering",
    "help": "this list with a line each",
}


class GtpServer:
    """One GTP session over a :class:`engine.player.Player`.
    ``GtpServer(cfg)``; :meth:`serve` runs it on streams; :meth:`respond`
    answers a single line (for tests and embedding).  ``search_factory`` and
    ``evaluator_factory`` go to the Player."""

    def __init__(self, cfg=None, out=None, search_factory=None, evaluator_factory=None):
        self.player = Player(cfg, search_factory=search_factory, evaluator_factory=evaluator_factory)
        self.out = out if out is not None else sys.stdout
        self._out_lock = threading.Lock()
        self.queue: queue.Queue = queue.Queue()
        self._pending = None             # a line read ahead (it ended a stream)
        self._have_pending = False
        self._sync = False               # respond(): streams end at once
        self.quit = False
        self.out_closed = False          # a write failed: the controller is gone
        self.commands = {}
        for name in COMMAND_HELP:
            self.commands[name] = getattr(self, "cmd_" + name.replace("-", "_"))

    # ================================================================ I/O
    def _write(self, text):
        with self._out_lock:
            if self.out_closed:
                return
            try:
                self.out.write(text)
                self.out.flush()
            except (BrokenPipeError, ValueError):    # closed pipe, closed file
                self.out_closed = True
                self.quit = True
                self.player.close()
                log.info("output closed: the controller is gone; ending the session")

    def _reader(self, inp):
        try:
            for raw in inp:
                if raw.strip().lower() == "# interrupt":
                    self.player.interrupt.set()
                    continue
                self.queue.put(raw)
        except (OSError, ValueError):
            pass
        # end of input: every command read before it is answered in full (as
        # GNU Go, Pachi and Fuego do with piped input); only an open-ended
        # analysis or pondering stops at it (they wait for the next line);
        # serve() closes the Player when the queue is done
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
        True when a line (or EOF) arrived, or the output is closed."""
        if self._sync or self.out_closed:
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
        current board size are built first (``Player.prepare``), so no
        ``genmove`` pays for loading them."""
        if out is not None:
            self.out = out
        inp = inp if inp is not None else sys.stdin
        self.player.prepare()
        t = threading.Thread(target=self._reader, args=(inp,), daemon=True, name="gtp-reader")
        t.start()
        while not self.quit:
            if self.player.ponder and not self._input_waiting():
                self._ponder_until_input()
            raw = self._next_raw()
            if raw is None:
                break
            self.handle_line(raw)
        self.player.close()        # no search outlives the session
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
        except (GtpFail, PlayerError) as e:
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
    def game(self):
        return self.player.game

    @property
    def cfg(self):
        return self.player.cfg

    @property
    def size(self):
        return self.player.size

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

    # ---------------------------------------------------------- analysis lines
    def _info_line(self, rows, opts):
        """One analysis line: an ``info`` group per candidate (Leela Zero's
        integer format, or KataGo's float format with score fields when
        ``opts['kata']``), then `` ownership ...`` when asked (KataGo puts it
        on the same line, after the infos).  Avoided moves are left out."""
        minmoves, maxmoves = opts.get("minmoves", 0), opts.get("maxmoves", 0)
        avoid = opts.get("avoid") or ()
        kata = opts.get("kata", False)
        parts = []
        for r in rows:
            if maxmoves and len(parts) >= maxmoves:
                break
            if r["move"] in avoid:
                continue
            if r.get("visits", 0) <= 0 and len(parts) >= minmoves:
                continue
            pv = " ".join(self.vtx(m) for m in (r.get("pv") or [r["move"]]))
            mv, visits, order = self.vtx(r["move"]), int(r.get("visits", 0)), len(parts)
            wr = min(1.0, max(0.0, float(r.get("winrate", 0.5))))
            lcb = min(1.0, max(0.0, float(r.get("lcb", wr))))
            prior = min(1.0, max(0.0, float(r.get("prior", 0.0))))
            if kata:
                lead, sd = r.get("scoreLead", 0.0), r.get("scoreStdev", 0.0)
                # KataGo's fields in KataGo's order; the playout mean is the
                # lead, the mean and the self-play score at once
                info = (f"info move {mv} visits {visits} utility {2 * wr - 1:.6g} winrate {wr:.6g} "
                        f"scoreMean {lead:.6g} scoreStdev {sd:.6g} scoreLead {lead:.6g} "
                        f"scoreSelfplay {lead:.6g} prior {prior:.6g} lcb {lcb:.6g} "
                        f"utilityLcb {2 * lcb - 1:.6g} order {order} pv {pv}")
                if opts.get("pvVisits") and r.get("pv_visits"):
                    info += " pvVisits " + " ".join(str(int(v)) for v in r["pv_visits"])
                parts.append(info)
            else:
                parts.append(f"info move {mv} visits {visits} winrate {_permyriad(wr)} "
                             f"prior {_permyriad(prior)} lcb {_permyriad(lcb)} order {order} pv {pv}")
        if kata and opts.get("rootInfo") and rows:
            # the root as KataGo reports it: all visits, the chosen move's
            # value for the side to move, the root's score lead
            best = rows[0]
            wr = min(1.0, max(0.0, float(best.get("winrate", 0.5))))
            lead = getattr(rows, "root_lead", best.get("scoreLead", 0.0))
            parts.append(f"rootInfo visits {sum(int(r.get('visits', 0)) for r in rows)} "
                         f"utility {2 * wr - 1:.6g} winrate {wr:.6g} scoreMean {lead:.6g} "
                         f"scoreLead {lead:.6g} scoreSelfplay {lead:.6g}")
        own = getattr(rows, "ownership", None)
        if opts.get("ownership") and own is not None:
            n = self.size         # KataGo's order: the top row (A19 on 19x19) first, left to right
            rows_top_first = [own[y * n + x] for y in range(n - 1, -1, -1) for x in range(n)]
            parts.append("ownership " + " ".join(f"{round(v, 4) or 0.0:g}" for v in rows_top_first))
        return " ".join(parts)

    def _emit_info(self, rows, opts):
        try:
            line = self._info_line(rows, opts or {})
        except Exception:
            log.exception("analysis line failed")
            return
        if line:
            self._write(line + "\n")

    def _emit_analysis(self, analysis, on_info):
        """An info line of the rows ``analysis()`` gives, through ``on_info``
        (the callback of :meth:`_info_callback`)."""
        try:
            rows = analysis()
        except Exception:
            log.exception("analysis line failed")
            return
        on_info(rows)

    def _parse_analyze_args(self, args, need_color, kata=False):
        """[COLOR] [INTERVAL] then key/value pairs: interval CS, minmoves N,
        maxmoves N, ownership true|false, avoid COLOR V[,V...] UNTIL, allow
        COLOR V[,V...] UNTIL (Leela Zero's and KataGo's analyze options).
        Returns (color, interval in seconds, opts); opts['avoid'] is the set
        of root moves to leave out (avoid and allow entries of the colour to
        move, with UNTIL >= 1: the root is the first move)."""
        color = self.game.to_move
        interval = 10
        opts = {"minmoves": 0, "maxmoves": 0, "ownership": False, "kata": kata, "avoid": set()}
        avoid = {BLACK: set(), WHITE: set()}
        allow = {BLACK: None, WHITE: None}
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
            if key in ("avoid", "allow"):
                if i + 3 >= len(args):
                    raise GtpFail(f"syntax error: {key} COLOR VERTEX[,VERTEX...] UNTIL_MOVES")
                c = parse_color(args[i + 1])
                moves = self._vertex_list(args[i + 2])
                parse_int(args[i + 3], f"{key} until-moves", 1)
                if key == "avoid":
                    avoid[c].update(moves)
                else:
                    allow[c] = (allow[c] or set()) | set(moves)
                i += 4
                continue
            if i + 1 >= len(args):
                raise GtpFail(f"syntax error: '{key}' needs a value")
            val = args[i + 1]
            if key == "interval":
                interval = parse_int(val, "interval", 0)
            elif key in ("minmoves", "maxmoves"):
                opts[key] = parse_int(val, key, 0)
            elif key in ("ownership",) + KATA_FLAGS:
                if val.lower() not in ("true", "false"):
                    raise GtpFail(f"syntax error: {args[i]} true|false, not '{val}'")
                opts[key if key == "ownership" else KATA_FLAGS_BY_LOWER[key]] = val.lower() == "true"
            else:
                raise GtpFail(f"unsupported analyze option '{args[i]}'")
            i += 2
        nn = self.game.pass_move
        for c in (BLACK, WHITE):
            if allow[c] is not None and any(m != nn for m in avoid[c]):
                raise GtpFail("allow and avoid of board points cannot be combined for one colour")
        root = set(avoid[color])
        if allow[color] is not None:
            root |= {p for p in range(nn) if p not in allow[color]}
        opts["avoid"] = root
        return color, max(interval, INFO_MIN_INTERVAL_CS) / 100.0, opts

    def _vertex_list(self, text):
        """``D4,Q16`` or ranges ``A1:C3`` (Leela Zero) as flat points."""
        out = []
        for part in text.split(","):
            if not part:
                raise GtpFail(f"syntax error: empty vertex in '{text}'")
            if ":" in part:
                lo, _, hi = part.partition(":")
                a, b = self.vertex(lo), self.vertex(hi)
                nn = self.game.pass_move
                if nn in (a, b):
                    raise GtpFail(f"syntax error: pass in a vertex range '{part}'")
                n = self.size
                for y in range(min(a, b) // n, max(a, b) // n + 1):
                    for x in range(min(a % n, b % n), max(a % n, b % n) + 1):
                        out.append(y * n + x)
            else:
                out.append(self.vertex(part))
        return out

    def _info_callback(self, color, opts):
        """on_info for the Player: an info line per call; KataGo's fields
        ask the Player for rows that carry score lead and ownership
        (Player.scored_rows), which this layer only formats."""
        def emit(rows):
            self._emit_info(rows, opts)
        if opts["kata"] or opts["ownership"]:
            return self.player.scored_rows(color, emit, avoid=opts["avoid"])
        return emit

    def _stream_analysis(self, color, interval, opts):
        """lz-analyze/analyze/kata-analyze: '=' then info lines every
        interval until the next input line, then the closing blank line."""
        on_info = self._info_callback(color, opts)
        thinking = self.player.analyze(color, on_info, interval, avoid=opts["avoid"])
        self._write(f"={self._cid}\n")
        self._streamed = True
        if self._sync:
            self._write("\n")
            return
        thinking.start()
        while not self._wait_for_input(interval):
            if thinking.done.is_set():   # the search ended by itself (pool full): repeat its result
                self._emit_analysis(thinking.search.analysis, on_info)
        thinking.stop()
        self._write("\n")

    # ---------------------------------------------------------- pondering
    def _ponder_until_input(self):
        if self._sync:
            return
        thinking = self.player.start_pondering()
        if thinking is None:
            return
        while not self._wait_for_input(0.5):
            pass
        thinking.stop()

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
        self.player.set_board_size(n)
        return ""

    def cmd_clear_board(self, args):
        self.player.new_game()
        return ""

    def cmd_komi(self, args):
        self._nargs(args, 1, usage="komi FLOAT")
        self.player.set_komi(parse_float(args[0], "komi"))
        return ""

    def cmd_fixed_handicap(self, args):
        self._nargs(args, 1, usage="fixed_handicap N")
        n = parse_int(args[0], "number of stones")
        return " ".join(self.vtx(p) for p in self.player.fixed_handicap(n))

    def cmd_place_free_handicap(self, args):
        self._nargs(args, 1, usage="place_free_handicap N")
        n = parse_int(args[0], "number of stones")
        return " ".join(self.vtx(p) for p in self.player.place_free_handicap(n))

    def cmd_set_free_handicap(self, args):
        if len(args) < 2:
            raise GtpFail("invalid number of stones: at least 2 handicap stones")
        self.player.set_free_handicap([self.vertex(a) for a in args])
        return ""

    # -- moves
    def cmd_play(self, args):
        self._nargs(args, 2, usage="play COLOR VERTEX")
        color = parse_color(args[0])
        self.player.play(color, self.vertex(args[1]))
        return ""

    def cmd_genmove(self, args):
        self._nargs(args, 1, usage="genmove COLOR")
        return self.vtx(self.player.genmove(parse_color(args[0]), play=True))

    def cmd_reg_genmove(self, args):
        self._nargs(args, 1, usage="reg_genmove COLOR")
        return self.vtx(self.player.genmove(parse_color(args[0]), play=False))

    def cmd_kgs_genmove_cleanup(self, args):
        self._nargs(args, 1, usage="kgs-genmove_cleanup COLOR")
        return self.vtx(self.player.genmove(parse_color(args[0]), play=True, cleanup=True))

    def cmd_undo(self, args):
        self._nargs(args, 0, usage="undo")
        self.player.undo(1, message="cannot undo")
        return ""

    def cmd_gg_undo(self, args):
        self._nargs(args, 0, 1, usage="gg-undo [N]")
        n = parse_int(args[0], "number of moves", 0) if args else 1
        self.player.undo(n)
        return ""

    def cmd_gogui_play_sequence(self, args):
        if len(args) % 2:
            raise GtpFail("syntax error: gogui-play_sequence COLOR VERTEX [COLOR VERTEX ...]")
        self.player.play_sequence([(parse_color(args[i]), self.vertex(args[i + 1]))
                                   for i in range(0, len(args), 2)])
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
        self.player.setup(black, white)
        return ""

    def cmd_gogui_setup_player(self, args):
        self._nargs(args, 1, usage="gogui-setup_player COLOR")
        self.player.set_to_move(parse_color(args[0]))
        return ""

    def cmd_gogui_interrupt(self, args):
        return ""

    def cmd_is_legal(self, args):
        self._nargs(args, 2, usage="is_legal COLOR VERTEX")
        color = parse_color(args[0])
        return "1" if self.player.is_legal(color, self.vertex(args[1])) else "0"

    def cmd_all_legal(self, args):
        self._nargs(args, 1, usage="all_legal COLOR")
        return " ".join(self.vtx(p) for p in self.player.legal_moves(parse_color(args[0])))

    # -- seeds (GNU Go; its twogtp.py writes get_random_seed into the SGF)
    def cmd_set_random_seed(self, args):
        self._nargs(args, 1, usage="set_random_seed N")
        self.player.set_seed(parse_int(args[0], "seed", 0, 2**63 - 1))
        return ""

    def cmd_get_random_seed(self, args):
        self._nargs(args, 0, usage="get_random_seed")
        return str(self.player.seed)

    # -- time
    def cmd_time_settings(self, args):
        self._nargs(args, 3, usage="time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES")
        m = parse_float(args[0], "main time")
        b = parse_float(args[1], "byo-yomi time")
        s = parse_int(args[2], "byo-yomi stones")
        self.player.time_settings(m, b, s)
        return ""

    def cmd_kgs_time_settings(self, args):
        if not args:
            raise GtpFail("syntax error: kgs-time_settings none|absolute|byoyomi|canadian ...")
        vals = [parse_float(a) for a in args[1:]]
        self.player.kgs_time_settings(args[0], *vals)
        return ""

    def cmd_time_left(self, args):
        self._nargs(args, 3, usage="time_left COLOR TIME STONES")
        c = parse_color(args[0])
        t = parse_float(args[1], "time")
        s = parse_int(args[2], "stones")
        self.player.time_left(c, t, s)
        return ""

    # -- scoring
    def cmd_final_score(self, args):
        return fmt_score(self.player.final_score())

    def cmd_final_status_list(self, args):
        self._nargs(args, 1, usage="final_status_list dead|alive|seki")
        what = args[0].lower()
        if what not in ("dead", "alive", "seki"):
            raise GtpFail(f"syntax error: unknown status '{args[0]}' (dead, alive, seki)")
        return " ".join(self.vtx(p) for p in self.player.final_status(what))

    # -- rules (KGS, KataGo)
    def cmd_kgs_rules(self, args):
        self._nargs(args, 1, usage="kgs-rules chinese|aga|new_zealand|japanese")
        name = args[0].lower()
        if name not in ("chinese", "aga", "new_zealand", "japanese"):
            raise GtpFail(f"unknown rules '{args[0]}' (chinese, aga, new_zealand, japanese)")
        self.player.set_rules(name)
        return ""

    def cmd_kata_set_rules(self, args):
        if len(args) != 1:
            raise GtpFail("syntax error: kata-set-rules NAME (JSON rules are not supported)")
        name = _KATA_RULES.get(args[0].lower())
        if name is None:
            raise GtpFail(f"unknown or unsupported rules '{args[0]}' ({', '.join(_KATA_RULES)})")
        self.player.set_rules(name)
        return ""

    def cmd_kata_get_rules(self, args):
        self._nargs(args, 0, usage="kata-get-rules")
        r = self.cfg.player.rules
        jp = r == "japanese"
        return ('{"hasButton":false,"ko":"POSITIONAL","scoring":"%s","suicide":false,"tax":"%s",'
                '"whiteHandicapBonus":"0"}' % ("TERRITORY" if jp else "AREA", "SEKI" if jp else "NONE"))

    def cmd_kgs_game_over(self, args):
        self.player.color = None          # nothing to ponder on
        return ""

    # -- SGF
    def cmd_loadsgf(self, args):
        self._nargs(args, 1, 2, usage="loadsgf FILE [MOVE_NUMBER]")
        n = parse_int(args[1], "move number", 1) if len(args) > 1 else None
        self.player.load_sgf(args[0], n)
        return ""

    def cmd_printsgf(self, args):
        self._nargs(args, 0, 1, usage="printsgf [FILE]")
        text = self.player.sgf()
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
        p = self.player
        lines = [f"{self.cfg.gtp.name} {VERSION}", f"seed {p.seed}",
                 f"time: {p.tc.describe()}", f"ponder: {'on' if p.ponder else 'off'}"]
        for key, value, _doc in p.options():
            lines.append(f"{key} = {value}")
        return "\n".join(lines)

    def cmd_gomill_explain_last_move(self, args):
        return self.player.explain()

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
            self.player.set_ponder(v in ("on", "1", "true"))
            return ""
        return "on" if self.player.ponder else "off"

    def cmd_go_param(self, args):
        if not args:
            return "\n".join(f"{k} {_fmt_value(v)}" for k, v, _ in self.player.options())
        if len(args) == 1:
            return _fmt_value(self.player.option(args[0]))
        key, value = args[0], " ".join(args[1:])
        if "." not in key:
            raise GtpFail(f"unknown config key '{key}' (use table.key, e.g. search.playouts)")
        self.player.set_option(key, value)
        return ""

    # -- KataGo and Leela Zero parameters (engine/gtp/params.py)
    def cmd_kata_set_param(self, args):
        if len(args) < 2:
            raise GtpFail("syntax error: kata-set-param NAME VALUE")
        try:
            params.set_param(self.player, params.KATA, args[0], " ".join(args[1:]))
        except params.ParamError as e:
            raise GtpFail(str(e)) from None
        return ""

    def cmd_kata_get_param(self, args):
        self._nargs(args, 1, usage="kata-get-param NAME")
        try:
            return params.get_param(self.player, params.KATA, args[0])
        except params.ParamError as e:
            raise GtpFail(str(e)) from None

    def cmd_kata_list_params(self, args):
        self._nargs(args, 0, usage="kata-list-params")
        return "\n".join(list(params.KATA) + [k for k, _v, _d in self.player.options()])

    def cmd_lz_setoption(self, args):
        if not args:
            return "\n".join(params.lz_option_lines(self.player))
        low = [a.lower() for a in args]
        if low[0] != "name" or "value" not in low[1:] or len(args) < 4:
            raise GtpFail("syntax error: lz-setoption name NAME value VALUE")
        iv = len(low) - 1 - low[::-1].index("value")
        name, value = " ".join(args[1:iv]), " ".join(args[iv + 1:])
        if not name or not value:
            raise GtpFail("syntax error: lz-setoption name NAME value VALUE")
        try:
            params.set_param(self.player, params.LZ, name, value)
        except params.ParamError as e:
            raise GtpFail(str(e)) from None
        return ""

    def cmd_go_param_page(self, args):
        if not args:
            raise GtpFail("syntax error: go-param_page TABLE [KEY VALUE]")
        table = args[0]
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
        self.player.set_option(f"{table}.{args[1]}", " ".join(args[2:]))
        return ""

    def cmd_go_memory_report(self, args):
        return "\n".join(self.player.memory_report())

    def cmd_go_set_pool_size(self, args):
        self._nargs(args, 1, usage="go-set_pool_size N")
        n = parse_int(args[0], "pool size")
        self.player.set_option("pool.pool_size", str(n))
        return ""

    # -- GoGui views
    def cmd_gogui_analyze_commands(self, args):
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

    def cmd_go_gfx_visits(self, args):
        rows = self.player.analysis()
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
        pr = self.player.priors()
        if pr is None:
            return f"TEXT no net for {self.size}x{self.size} (see stderr)"
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
        est = self.player.estimate()
        infl = " ".join(f"{self.vtx(p)} {v:.2f}" for p, v in enumerate(est.own) if abs(v) >= 0.05)
        out = []
        if infl:
            out.append("INFLUENCE " + infl)
        if est.dead:
            out.append("MARK " + " ".join(self.vtx(p) for p in est.dead))
        out.append(f"TEXT estimate {fmt_score(est.score)} (mean playout score {est.mean_score:+.1f})")
        return "\n".join(out)

    def cmd_go_ownership(self, args):
        est = self.player.estimate()
        n = self.size
        return "\n".join(" ".join(f"{est.own[y * n + x]:.2f}" for x in range(n))
                         for y in range(n - 1, -1, -1))

    def cmd_go_gfx_pv(self, args):
        rows = self.player.analysis()
        if not rows:
            return ""
        color = self.game.to_move
        seq = []
        for m in rows[0].get("pv") or [rows[0]["move"]]:
            seq.append(f"{color_letter(color).lower()} {self.vtx(m)}")
            color = opponent(color)
        return "VAR " + " ".join(seq)

    # -- analysis (Leela Zero and KataGo formats)
    def cmd_lz_analyze(self, args):
        color, interval, opts = self._parse_analyze_args(args, need_color=False)
        self._stream_analysis(color, interval, opts)

    def cmd_analyze(self, args):
        return self.cmd_lz_analyze(args)

    def cmd_kata_analyze(self, args):
        color, interval, opts = self._parse_analyze_args(args, need_color=False, kata=True)
        self._stream_analysis(color, interval, opts)

    def _genmove_analyze(self, args, kata):
        name = "kata-genmove_analyze" if kata else "lz-genmove_analyze"
        if not args:
            raise GtpFail(f"syntax error: {name} COLOR [INTERVAL] [KEY VALUE ...]")
        color, interval, opts = self._parse_analyze_args(args, need_color=True, kata=kata)
        on_info = self._info_callback(color, opts)
        self._write(f"={self._cid}\n")
        self._streamed = True
        try:
            move = self.player.genmove(color, play=True, on_info=on_info,
                                       info_interval=interval, avoid=opts["avoid"])
        except (GtpFail, PlayerError) as e:
            log.error("%s failed: %s", name, e)
            move = None
        if move is not None:
            p = self.player
            if p.last and p.last.get("result") is not None and p.search_built is not None:
                self._emit_analysis(p.last_analysis, on_info)
            self._write(f"play {self.vtx(move)}\n")
        self._write("\n")

    def cmd_lz_genmove_analyze(self, args):
        self._genmove_analyze(args, kata=False)

    def cmd_genmove_analyze(self, args):
        self._genmove_analyze(args, kata=False)

    def cmd_kata_genmove_analyze(self, args):
        self._genmove_analyze(args, kata=True)


# kata-set-rules names (KataGo's shorthands) -> player.rules
_KATA_RULES = {"chinese": "chinese", "chinese-kgs": "chinese", "chinese-ogs": "chinese", "aga": "aga",
               "bga": "aga", "new-zealand": "new_zealand", "new_zealand": "new_zealand",
               "japanese": "japanese", "korean": "japanese"}



# KataGo's kata-analyze flags: pvVisits and rootInfo are emitted, the others
# (ownership by move, its deviation, edge visits) are accepted and ignored
KATA_FLAG_NAMES = ("pvVisits", "rootInfo", "movesOwnership", "ownershipStdev", "pvEdgeVisits")
KATA_FLAGS = tuple(k.lower() for k in KATA_FLAG_NAMES)
KATA_FLAGS_BY_LOWER = {k.lower(): k for k in KATA_FLAG_NAMES}


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
