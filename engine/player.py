"""The engine as its users get it: one Player under GTP, self-play, matches
and experiments.

    player = Player(cfg)                   # engine.config.Config
    player.new_game(9, 7.0)
    player.play(BLACK, 40)                 # flat points; pass = size*size
    move = player.genmove(WHITE)           # search, pass rule, played; -1 = resign
    player.final_score()                   # black - white - komi, dead stones estimated

The game and its move: it owns the game record (engine.game) and the
clocks (engine.timecontrol) and chooses each move (book, raw net or search;
then the pass rule of engine.endgame, one Endgame a genmove); its
collaborators hold the rest: ``nets`` (engine.factory.Nets, a net per board size),
``slot`` (engine.factory.SearchSlot, the search and what a change of
setting rebuilds of it), ``analyst`` (engine.analyst: rows, streaming analysis,
pondering) and engine.scoring.  It takes and
returns typed values (colours BLACK/WHITE, flat points) and raises
:class:`PlayerError` subclasses whose message is meant for the user;
engine.gtp turns them into ``? message`` replies.  It never parses
protocol text.
"""
from __future__ import annotations

import dataclasses
import logging
import threading
import time

from board_ext.board import BLACK, WHITE, IllegalMove
from engine import config as configmod, coords, scoring
from engine.game import Game, handicap_bonus
from engine.book import Shelf
from engine.endgame import Endgame
from engine.search import dynamic_komi
from engine.timecontrol import TimeControl

from engine.player_errors import (GameStateError, IllegalMoveError, NoNetError, OptionError,  # noqa: F401
                                  PlayerError, TimeSettingsError)
from engine.factory import Nets, SearchSlot, project_file
from engine.player_options import PlayerOptions
from engine.analyst import Analyst
from engine.thinking import rows_callback

log = logging.getLogger("gomcts.player")


def _clock_seed():
    return int(time.time() * 1000) & 0x7FFFFFFF


class Player(PlayerOptions):
    """One engine playing one game at a time.

    ``Player(cfg, search_factory=None, evaluator_factory=None)``:
    ``search_factory(cfg)`` replaces the configured search (tests, fakes);
    ``evaluator_factory(size)`` replaces loading the net for a board size.
    """

    def __init__(self, cfg=None, search_factory=None, evaluator_factory=None):
        cfg = cfg if cfg is not None else configmod.load()
        # the values of the board's size (its per-size tables), taken anew at every boardsize
        self.cfg = configmod.at_size(cfg, cfg.gtp.boardsize)
        self.game = Game(self.cfg.gtp.boardsize, self.cfg.gtp.komi)
        self.tc = TimeControl.from_config(self.cfg)
        self.ponder = self.cfg.player.ponder
        self.slot = SearchSlot(search_factory)   # the search, built on first use (engine/factory.py)
        self.analyst = Analyst(self)     # rows, streaming analysis, pondering (engine/analyst.py)
        self.nets = Nets(lambda: self.cfg, evaluator_factory)   # the nets by board size (engine/factory.py)
        self._shelf = Shelf()            # the opening books read
        self.interrupt = threading.Event()   # set to stop a running genmove
        self.closed = threading.Event()      # the session is over (close()): every search stops at once
        self.last = None                 # info about the last generated move
        self.color = None                # colour of the last genmove (our side, for pondering)
        self.seed = self.cfg.search.seed or _clock_seed()

    @property
    def size(self):
        return self.game.size

    def vtx(self, move):
        """A point's name in messages and logs (GTP spelling, as users see it)."""
        return "resign" if move is None or move < 0 else coords.to_gtp(move, self.size)

    # ================================================================ search and net
    def search(self):
        """The search for the board (built on first use, its config resolved
        only then; one whose net fits another size goes with that game)."""
        s = self.slot.built
        return s if s is not None else self.slot.get(self._search_cfg(), self.size, self.nets.get)

    def _search_cfg(self):
        """The config the search is built with: ``search.seed`` is the
        Player's seed, so the search and the dead-stone estimates share the
        one seed that ``get_random_seed`` reports."""
        changes = {}
        if self.cfg.search.threads == 0:        # resolved before the seed is filled in
            from engine.search import search_threads
            changes["search.threads"] = search_threads(self.cfg)
        if self.cfg.search.seed != self.seed:
            changes["search.seed"] = self.seed
        return configmod.replace(self.cfg, **changes) if changes else self.cfg

    def set_seed(self, seed):
        """The random seed of the search and of the dead-stone estimates (0:
        a fresh one from the clock).  With early stop off and a budget in
        playouts only, a game replays exactly from the same seed."""
        seed = int(seed)
        if seed == 0:
            seed = _clock_seed()
        self.set_option("search.seed", seed)
        self.slot.drop_tree()

    def prepare(self):
        """Build the evaluator (loading the net and its first forward pass)
        and the search for the current board size now, not in the first
        ``genmove``: with ``time_settings 0 1 1`` the seconds that torch
        takes to load would lose on time.  Failures are logged here and
        reported by the call that needs the search."""
        t0 = time.time()
        try:
            if self.cfg.prior.evaluator == "net" and self.slot.factory is None:
                ev = self.nets.get(self.size)
                if ev is not None:
                    from board_ext.board import Board
                    ev.evaluate([Board(self.size)])        # first forward pass: torch's own set-up
            self.search()
            if self.cfg.player.book:
                self.book()                                # the opening book is read at start-up too
        except PlayerError as e:
            log.warning("search for %dx%d not built at start: %s", self.size, self.size, e)
            return
        except Exception:
            log.exception("search for %dx%d not built at start", self.size, self.size)
            return
        log.info("search for %dx%d ready in %.2fs", self.size, self.size, time.time() - t0)

    def clear_cache(self):
        """Forget the search tree and the nets' cached evaluations (KataGo's
        clear_cache): the next search starts afresh."""
        self.slot.drop_tree()
        self.nets.clear_caches()

    def position(self, color=None):
        """A copy of the current board, with ``color`` to move when given
        (what the nets are asked about: ``player.nets``, engine.factory.Nets)."""
        b = self.game.board.copy()
        if color is not None and b.to_move != color:
            b.to_move = color
        return b

    # ================================================================ the game
    def new_game(self, size=None, komi=None):
        """An empty board (``size``: default the current one; komi kept
        unless given); clocks, tree and last move reset.  A new size takes
        the config's values for that size (its per-size tables; this
        session's go-param settings are in the config already)."""
        old = self.game.size
        if size is not None and size != configmod.sized_for(self.cfg):
            self._switch_config(size)
        self.game.clear(size)
        if komi is not None:
            self.game.komi = float(komi)
        self._new_game(old)

    def set_board_size(self, size):
        """boardsize: a new empty board; its net and search are built now,
        not in the next genmove.  A pool too small for the size is refused
        and the board stays as it was."""
        why = configmod.pool_refused(self.cfg, size)
        if why is not None:
            raise OptionError(why)
        self.new_game(size)
        if self.slot.built is None:
            self.prepare()

    def _switch_config(self, size):
        """Take the config's values for ``size`` (engine.config.at_size);
        what they change is rebuilt: the clock's plan, the search, the net."""
        old, new = self.cfg, configmod.at_size(self.cfg, size)
        self.cfg = new
        same = [getattr(old, t.name) == getattr(new, t.name) for t in dataclasses.fields(new) if t.name != "gtp"]
        if all(same):
            return
        self.tc.apply(new.time)
        self.ponder = new.player.ponder
        self.slot.forget()               # rebuilt for the new config at its next use
        if old.net != new.net:
            self.nets.forget()
        log.info("%dx%d: the config's values for the size (its [size.%d] tables)", size, size,
                 configmod.shipped_size(size))

    def _new_game(self, old_size):
        self.slot.new_board(old_size, self.size)
        self.tc.reset()
        self.last = None
        self.color = None

    def set_komi(self, komi):
        self.game.komi = float(komi)

    def play(self, color, move):
        """Play ``move`` (flat point; size*size = pass) for ``color``: a
        move the controller reports.  The controller is the arbiter: with
        ``player.superko_play = accept`` a move legal under simple ko that only
        repeats an earlier position is played (and logged), since
        controllers such as gomill and GNU Go's twogtp check simple ko only;
        the engine's own moves (genmove) always obey positional superko."""
        self._play_reported(self.game, color, move)

    def _play_reported(self, game, color, move):
        try:
            game.play(color, move)
        except IllegalMove as e:
            if e.reason == "superko" and self.cfg.player.superko_play == "accept":
                try:
                    game.play(color, move, superko=False)
                except IllegalMove as e2:
                    raise IllegalMoveError(f"illegal move: {self.vtx(move)} {e2.reason}") from None
                log.warning("accepted %s %s: it repeats an earlier position (positional superko; "
                            "player.superko_play = accept)", "BW"[color - 1], self.vtx(move))
                return
            raise IllegalMoveError(f"illegal move: {self.vtx(move)} {e.reason}") from None

    def play_sequence(self, pairs):
        """Play (color, move) pairs: all of them or none (each as :meth:`play`)."""
        trial = self.game.copy()
        for c, m in pairs:
            self._play_reported(trial, c, m)
        self.game = trial

    def illegal_reason(self, color, move):
        """None if :meth:`play` would accept ``move`` for ``color`` now, else
        the reason (occupied, suicide, ko, superko)."""
        if move == self.game.pass_move:
            return None
        r = self.game.board.illegal_reason(move, color)
        if r == "superko" and self.cfg.player.superko_play == "accept":
            b = self.game.board.copy()
            b.superko = False
            r = b.illegal_reason(move, color)
        return r

    def is_legal(self, color, move):
        """Whether :meth:`play` would accept ``move`` for ``color`` now."""
        return self.illegal_reason(color, move) is None

    def legal_moves(self, color):
        """The board points :meth:`play` would accept for ``color`` now (pass,
        always legal, is not listed)."""
        b = self.game.board
        moves = set(b.legal_moves(color))
        if self.cfg.player.superko_play == "accept":
            t = b.copy()
            t.superko = False
            moves.update(t.legal_moves(color))
        return sorted(moves)

    def undo(self, n=1, message=None):
        """Take back ``n`` moves.  GameStateError (``message`` when given)
        when there are fewer."""
        try:
            self.game.undo(n)
        except GameStateError as e:
            raise GameStateError(message or str(e)) from None

    def _check_empty(self):
        if not self.game.is_empty() or self.game.history:
            raise GameStateError("board not empty")

    def fixed_handicap(self, n):
        """The standard handicap points, placed; returns them."""
        self._check_empty()
        pts = self.game.fixed_handicap(n)
        self.slot.drop_tree()
        return pts

    def place_free_handicap(self, n):
        """``n`` handicap stones where the engine chooses; returns them."""
        self._check_empty()
        pts = self.game.choose_free_handicap(n)
        self.set_free_handicap(pts)
        return pts

    def set_free_handicap(self, points):
        self._check_empty()
        try:
            self.game.free_handicap(points)
        except IllegalMove as e:
            raise GameStateError(str(e)) from None
        self.slot.drop_tree()

    def setup(self, black, white):
        """Setup stones (gogui-setup)."""
        try:
            self.game.setup(black, white)
        except IllegalMove as e:
            raise GameStateError(f"illegal setup: {e.reason}") from None
        self.slot.drop_tree()

    def set_to_move(self, color):
        self.game.to_move = color

    def load_sgf(self, path, move_number=None):
        """The game of an SGF file, up to ``move_number`` when given."""
        old = self.game.size
        self.game.load_sgf(path, move_number)
        self._new_game(old)

    # player.rules as SGF's RU spells them (FF[4])
    SGF_RULES = {"chinese": "Chinese", "japanese": "Japanese", "aga": "AGA", "new_zealand": "NZ"}

    def sgf(self):
        """The game as SGF text: our name on the side we played, the rules
        set (player.rules, kgs-rules, kata-set-rules) as RU."""
        props = {"RU": self.SGF_RULES[self.cfg.player.rules]}
        if self.color in (BLACK, WHITE):
            props["PB" if self.color == BLACK else "PW"] = self.cfg.gtp.name
        return self.game.to_sgf(properties=props)

    # ================================================================ time (the clocks: self.tc)
    def think_seconds(self, color):
        """Seconds for this move, or None (playouts only).  With a clock
        (time_settings, kgs-time_settings or time_left) the clock's
        allocation (engine.timecontrol); without one ``search.seconds``
        (0: ``search.playouts`` alone bounds the move).  ``search.playouts``
        caps the simulations in both cases."""
        self.tc.board_points = self.size * self.size
        t = self.tc.seconds_for_move(color, self.game.move_number)
        if t is not None:
            return t
        return self.cfg.search.seconds or None

    @property
    def score_komi(self):
        """Komi as the count and the search use it: the komi plus White's
        handicap bonus under the rules in force (engine.game.handicap_bonus)."""
        return self.game.komi + handicap_bonus(self.cfg.player.rules, self.game.handicap)

    def dynamic_komi(self):
        """The points the search adds to White's komi in a handicap game
        (engine.search.dynamic_komi with ``player.handicap_komi``)."""
        pc = self.cfg.player
        return dynamic_komi(self.game.handicap, self.game.move_number, self.size * self.size,
                            pc.handicap_komi, pc.handicap_komi_end)

    def search_komi(self):
        """The komi the search plays for: the count's (score_komi) plus the
        dynamic komi of a handicap game, whichever colour the engine has."""
        return self.score_komi + self.dynamic_komi()

    def close(self):
        """The session is over (its controller is gone): the running search
        stops now and every later one at once, each with the best move it
        has.  Safe from any thread."""
        self.closed.set()
        self.interrupt.set()

    def arm_interrupt(self):
        """Before a command: forget an interrupt meant for an earlier one,
        unless the session is closed (set before the interrupt in close(),
        so a close racing this is never lost).  Whoever takes the commands
        calls it as it takes one (engine.gtp.server), before anything of the
        command runs, so an interrupt that arrives while the search is being
        built is kept; a search never clears it."""
        self.interrupt.clear()
        if self.closed.is_set():
            self.interrupt.set()

    # ================================================================ move generation
    def genmove(self, color, play=True, cleanup=False, on_info=None, info_interval=0.1,
                budget=None, avoid=(), exact=False):
        """Pick a move for ``color`` and play it when ``play``.  Returns the
        flat move (pass = size*size) or -1 for resign.

        ``cleanup``: capture the opponent's dead stones before passing.
        ``on_info(rows)`` gets the search's root analysis every
        ``info_interval`` seconds while it thinks.  ``budget`` =
        (playouts, seconds) replaces the configured budget and the clock
        (None in either place: no bound of that kind); ``exact``: no early
        stop, so a budget of visits is searched whole.  :attr:`interrupt`
        (and :meth:`close`) stops the search early.  ``avoid``: moves not to choose (the
        analysis commands' avoid/allow; the search's root forbids them)."""
        game = self.game
        board = self.position(color)
        t0 = time.time()
        res = move = None
        source = "search"
        eg = self.endgame(board)
        if cleanup and eg.territory:
            move = eg.cleanup_capture(color, avoid)
            if move is not None:
                source = "cleanup"
        if move is None and not cleanup:
            move = self._book_move(board, avoid)
            if move is not None:
                source = "book"
        if move is None and self.cfg.net.rawnet:
            move = self.nets.raw_move(board)
            if move is not None:
                source = "net"
        if move is None:
            if self.cfg.net.rawnet and self.cfg.net.required:
                raise NoNetError(f"no net weights for {self.size}x{self.size} (net.required is set)")
            s = self.search()
            s.set_position(board, self.search_komi(), komi_drift=1.0)
            s.avoid(avoid)
            extend_to = None
            if budget is not None:
                playouts, secs = budget
            else:
                playouts, secs = self.cfg.search.playouts, self.think_seconds(color)
                if self.tc.limited:
                    extend_to = self.tc.extension_for(secs)
            cb = rows_callback(on_info) if on_info is not None else None
            res = s.run(playouts=playouts, seconds=secs if secs else None, extend_to=extend_to,
                        stop_event=self.interrupt, callback=cb,
                        callback_interval=info_interval or 0.1, exact=exact)
            move = res.move
        if move is None:
            move = board.pass_move
        if source == "search" and res is not None:
            move = eg.decide(color, move, res.rows, cleanup, avoid,
                             pass_when_won=self.cfg.search.pass_when_won)
        elif move >= 0 and source != "cleanup":
            move = eg.pass_safety(color, move, None, cleanup, avoid)
        elapsed = time.time() - t0
        self.last = dict(color=color, move=move, result=res, seconds=elapsed, source=source)
        log.info("%s %s %s (%s, %.2fs%s)", "genmove" if play else "reg_genmove", "BW"[color - 1],
                 self.vtx(move), source, elapsed,
                 f", winrate {res.winrate:.3f}, visits {res.visits}" if res is not None else "")
        if play:
            self.tc.moved(color, elapsed)
            if move >= 0:
                try:
                    game.play(color, move, comment=self.explain())
                except IllegalMove as e:      # the search must never do this
                    log.error("search chose an illegal move %s (%s); passing", self.vtx(move), e.reason)
                    move = board.pass_move
                    game.play(color, move)
            self.color = color
        return move

    def explain(self):
        """The last generated move in words (gomill-explain_last_move; the
        move's SGF comment): by search, SearchResult.words."""
        last = self.last
        if not last:
            return ""
        mv, res = self.vtx(last["move"]), last["result"]
        if res is None:
            return f"{mv} by {last['source']} in {last['seconds']:.2f}s"
        return f"{mv} {res.words(self.vtx)}"

    def book(self):
        """The opening book ``player.book_file`` for the board size, or None
        (no book named; engine.book.Shelf).  No book ships."""
        if not self.cfg.player.book_file:
            return None
        return self._shelf.get(project_file(self.cfg.player.book_file), self.size, must_exist=True)

    def _book_move(self, board, avoid=()):
        """The book's move for ``board``, or None (book off, handicap, no
        entry, another komi or rule set)."""
        if not self.cfg.player.book or self.game.handicap:
            return None
        book = self.book()
        return None if book is None else self._shelf.move(book, board, self.score_komi, self.cfg.player.rules,
                                                          avoid)

    def endgame(self, board):
        """The endgame rules (engine.endgame) for a move in ``board``: one
        dead-stone estimate a move, on the Player's seed."""
        ev = self.nets.loaded(self.size) if self.cfg.net.rawnet else None
        net = (lambda b: ev.evaluate([b])[0][0]) if ev is not None else None
        return Endgame(board, self.score_komi, self.cfg.player.score_playouts, self.seed,
                       territory=self.cfg.player.rules == "japanese", net_priors=net)

    # ================================================================ scoring
    def estimate(self, board=None):
        """The dead-stone estimate (engine.scoring) of ``board`` (default
        the current position)."""
        board = board if board is not None else self.game.board
        return scoring.Estimate(board, self.score_komi, self.cfg.player.score_playouts, seed=self.seed)

    def final_score(self):
        """Black's score minus White's and komi, dead stones estimated:
        area scoring, or territory scoring when ``player.rules`` is
        japanese (engine.scoring.final_score)."""
        return scoring.final_score(self.game.board, self.estimate(), self.cfg.player.rules, self.score_komi)

    def set_rules(self, rules):
        """kgs-rules / kata-set-rules: one of chinese, aga, new_zealand,
        japanese (player.rules).  Only the reported score follows them."""
        self.set_option("player.rules", rules)

    def final_status(self, kind):
        """The points of stones with status ``kind`` (dead, alive, seki), sorted."""
        return scoring.status_points(self.estimate(), kind)
