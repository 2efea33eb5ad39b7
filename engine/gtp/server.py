"""GTP 2 server: the engine as Sabaki, GoGui, gomill ringmaster and twogtp see it.

The protocol only: parsing, dispatch, reply formatting and the GoGui and
Leela Zero views.  The engine behind it is an :class:`engine.player.Player`
(moves, pass rule, time, pondering, scoring, options), whose typed errors
become ``? message`` replies.

This package and ``tools/gtp_client.py`` are the only places that parse
GTP text; the commands live in command groups (``cmd_game``, ``cmd_params``,
``cmd_analysis``), mixed into :class:`GtpServer`.  Every
line from the controller is preprocessed as GTP 2 (section 2.2) requires:
control characters other than HT/LF removed, HT turned into a space,
everything after ``#`` dropped, blank lines ignored.  A command is
``[id] name [args...]``; the reply is ``=[id] result`` or ``?[id] message``
followed by one blank line.  A failing command never changes the state.

Commands are listed in :data:`COMMAND_HELP` (and by ``list_commands``);
see docs/GTP.md for what each client sends.

Threads.  A reader thread puts stdin lines on a queue (``# interrupt``
lines set the interrupt event instead: GoGui's interrupt).  Commands run on
the main thread one by one.  An interrupt is meant for the command read
before it: each line is numbered as it is read, and a command is armed
when it is taken off the queue, before anything of it runs: the event is
cleared for it unless an interrupt arrived after it was read (then it
stops at once, however early the interrupt came).  Streaming analysis (``lz-analyze``,
``analyze``) runs the search on a worker thread and ends as soon as the
next input line arrives; that line is then processed normally.  Pondering
uses the same mechanism between commands (the Player's :class:`Thinking`).

The controller going away ends the session.  While it serves, the server
watches its output (``engine.gtp.peer``): when the output's reader has gone
(the controller was killed, crashed, or closed its ends of the pipes) the
running search stops within a fraction of a second (``Player.close``) and
:meth:`GtpServer.serve` returns, so the process exits; a reply that cannot
be written (``BrokenPipeError``) does the same, without a traceback.  The
end of input alone, with the output still read (``printf 'genmove b' |
gtp_main.py``, a script), is not the controller going away: every command
read before it is answered in full, as GNU Go, Pachi and Fuego answer piped
input, and then the session ends.
"""
from __future__ import annotations

import logging
import queue
import sys
import threading

from engine import coords
from engine.gtp import VERSION
from engine.gtp.cmd_analysis import HELP as ANALYSIS_HELP, AnalysisCommands
from engine.gtp.cmd_game import HELP as GAME_HELP, GameCommands
from engine.gtp.cmd_params import HELP as PARAM_HELP, ParamCommands
from engine.gtp.parse import GtpFail, ID_RE, clean_reply, preprocess  # noqa: F401 (the server's API)
from engine.gtp.peer import OutputWatch
from engine.player import Player, PlayerError

PROTOCOL_VERSION = "2"
log = logging.getLogger("gomcts.gtp")

# every command with its one-line help, in list_commands order: the
# server's own, then each command group's (engine/gtp/cmd_*.py)
COMMAND_HELP = {
    "protocol_version": "GTP version (2)",
    "name": "engine name",
    "version": "engine version",
    "known_command": "known_command NAME: true/false",
    "list_commands": "all commands, one a line",
    "quit": "end the session",
    "stop": "end pondering or an analysis (KataGo; any input line ends a stream)",
    "help": "this list with a line each",
    **GAME_HELP, **PARAM_HELP, **ANALYSIS_HELP,
}


class GtpServer(GameCommands, ParamCommands, AnalysisCommands):
    """One GTP session over a :class:`engine.player.Player`.
    ``GtpServer(cfg)``; :meth:`serve` runs it on streams; :meth:`respond`
    answers a single line (for tests and embedding).  ``search_factory`` and
    ``evaluator_factory`` go to the Player."""

    def __init__(self, cfg=None, out=None, search_factory=None, evaluator_factory=None, err=None,
                 player=None):
        # the engine it serves: a Player handed in (a test, an embedder), or one built from cfg
        self.player = player if player is not None else Player(
            cfg, search_factory=search_factory, evaluator_factory=evaluator_factory)
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self._out_lock = threading.Lock()
        self.queue: queue.Queue = queue.Queue()
        self._pending = None             # a line read ahead (it ended a stream)
        self._have_pending = False
        self._read_seq = 0               # lines the reader has queued
        self._interrupt_seq = 0          # the last line read before the latest '# interrupt'
        self._interrupt_lock = threading.Lock()
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
                self._controller_gone()

    def _controller_gone(self):
        """The output has no reader: stop the search, end the session."""
        self.out_closed = True
        self.quit = True
        self.player.close()
        self.queue.put(None)                     # wake a main loop waiting for input
        log.info("output closed: the controller is gone; ending the session")

    def _stderr(self, text):
        """Text for the controller's other channel (GoGui's live graphics,
        Leela Zero's heatmap); a closed stderr is ignored."""
        try:
            self.err.write(text)
            self.err.flush()
        except (OSError, ValueError):
            pass

    def _reader(self, inp):
        try:
            for raw in inp:
                if raw.strip().lower() == "# interrupt":
                    with self._interrupt_lock:          # with _arm: never cleared after it was set
                        self._interrupt_seq = self._read_seq
                        self.player.interrupt.set()
                    continue
                self._read_seq += 1
                self.queue.put((self._read_seq, raw))
        except (OSError, ValueError):
            pass
        # end of input: every command read before it is answered in full (as
        # GNU Go, Pachi and Fuego do with piped input); only an open-ended
        # analysis or pondering stops at it (they wait for the next line);
        # serve() closes the Player when the queue is done
        self.queue.put(None)

    def _next_raw(self, timeout=None):
        """The next input line (None at EOF), armed (:meth:`_arm`); raises
        queue.Empty on timeout."""
        if self._have_pending:
            self._have_pending = False
            item = self._pending
        else:
            item = self.queue.get(timeout=timeout) if timeout is not None else self.queue.get()
        if item is None:
            return None
        seq, raw = item
        self._arm(seq)
        return raw

    def _arm(self, seq):
        """The command read as line ``seq`` is about to run: an interrupt
        that came after it was read is its own and stays set; one meant for
        an earlier command is forgotten (Player.arm_interrupt)."""
        with self._interrupt_lock:
            if self._interrupt_seq < seq:
                self.player.arm_interrupt()

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
        watch = OutputWatch(self.out, self._controller_gone)
        try:
            while not self.quit:
                if self.player.ponder and not self._input_waiting():
                    self._ponder_until_input()
                raw = self._next_raw()
                if raw is None:
                    break
                self.handle_line(raw)
        finally:
            watch.stop()
        self.player.close()        # no search outlives the session
        log.info("session ended")

    def respond(self, line):
        """Process one line and return everything written for it ('' for a
        comment or blank line). Streaming commands end at once."""
        import io
        saved, buf = self.out, io.StringIO()
        self.out, self._sync = buf, True
        try:
            self.player.arm_interrupt()
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
        if ID_RE.fullmatch(parts[0]):
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
            self._write(f"?{cid} {clean_reply(msg)}\n\n")
            return
        except Exception as e:   # a bug must not kill the session
            log.exception("internal error in %s", name)
            if self._streamed:
                self._write("\n")
                return
            self._write(f"?{cid} internal error: {clean_reply(type(e).__name__ + ': ' + str(e))}\n\n")
            return
        if self._streamed:            # the handler wrote the reply itself
            return
        body = "" if body is None else str(body)
        self._write(f"={cid} {clean_reply(body)}\n\n" if body else f"={cid}\n\n")
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
            raise GtpFail(f"invalid vertex '{coords.shown(text)}'")
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

    # ---------------------------------------------------------- pondering
    def _ponder_until_input(self):
        if self._sync:
            return
        thinking = self.player.analyst.start_pondering()
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

    version = VERSION           # gtp_main.py --override-version replaces it (Lizzie; docs/GTP.md)

    def cmd_version(self, args):
        return self.version

    def cmd_known_command(self, args):
        self._nargs(args, 1, usage="known_command NAME")
        return "true" if args[0] in self.commands else "false"

    # known but not listed: Sabaki takes the first of analyze, kata-analyze and
    # lz-analyze that list_commands names, and only kata-analyze shows score leads
    UNLISTED = ("analyze", "genmove_analyze")

    def cmd_list_commands(self, args):
        return "\n".join(c for c in self.commands if c not in self.UNLISTED)

    def cmd_help(self, args):
        return "\n".join(f"{k}: {v}" for k, v in COMMAND_HELP.items())

    def cmd_stop(self, args):
        # a stream (analysis, pondering) ended when this line arrived; what
        # is left is to say so
        self._nargs(args, 0, usage="stop")
        return ""

    def cmd_quit(self, args):
        self.quit = True
        return ""
