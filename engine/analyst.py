"""What the Player's search says besides its move: the root's rows, the
streaming analysis and pondering on a thread of their own, rows scored
(engine.analysis.ScoredRows).  The last move in words is the Player's
(Player.explain).

    a = player.analyst
    a.rows()                                 # the root of now (searched if it was not)
    a.analyze(color, on_info, interval)      # a Thinking, started by the caller
    a.scored_rows(color, on_info, avoid)     # on_info fed the rows with their scores
    a.start_pondering()                      # a running Thinking, or None

It reads the Player (its game, config, seed, nets and search slot) and
changes nothing of it but the position its search is set to.
"""
from __future__ import annotations

import logging

from engine.analysis import ScoredRows
from engine.thinking import Thinking

log = logging.getLogger("gomcts.player")


class Analyst:
    def __init__(self, player):
        self.p = player

    def rows(self):
        """Root analysis rows of the current position (move, visits,
        winrate, prior, lcb, pv): the last search if it was of this
        position, else a fresh search with the configured budget."""
        p = self.p
        s = p.search()
        board = p.position()
        s.set_position(board, p.score_komi)
        rows = s.analysis()
        if not rows or sum(r.get("visits", 0) for r in rows) == 0:
            s.run(playouts=p.cfg.search.playouts, seconds=p.think_seconds(board.to_move),
                  stop_event=p.interrupt)
            rows = s.analysis()
        return rows

    def last_rows(self):
        """The root analysis of the last search (none is run), or []."""
        return self.p.slot.rows()

    def top_moves(self):
        """The candidates of the last generated move, most visited first
        (rows as :meth:`rows`); [] when no search chose it."""
        last = self.p.last
        if not last or last.get("result") is None or self.p.slot.built is None \
                or self.p.slot.built.tree is None:
            return []
        return [r for r in self.last_rows() if r.get("visits", 0) > 0]

    def analyze(self, color, on_info, interval, avoid=()):
        """A :class:`Thinking` (not started yet) that searches the current
        position with ``color`` to move until it is stopped;
        ``on_info(rows)`` every ``interval`` seconds.  ``avoid``: moves the
        root may not play (Search.avoid)."""
        p = self.p
        s = p.search()
        s.set_position(p.position(color), p.score_komi)
        s.avoid(avoid)
        return Thinking(s, "analyze", on_info, interval)      # started by the caller

    def score_rows(self, color):
        """ScoredRows for ``color`` in the position of now, fed by the
        Player's sources (the score head, its score playouts, the running
        search's root score)."""
        p = self.p

        def search_score():
            s = p.slot.built
            return s.root_score() if s is not None and hasattr(s, "root_score") else None
        pc = p.cfg.player
        return ScoredRows(p.position(), color, p.size, p.score_komi, p.seed, pc.score_playouts,
                          pc.move_score_playouts, net=p.nets.scorer(p.size), search_score=search_score)

    def scored_rows(self, color, on_info, avoid=()):
        """``on_info`` fed the rows with their scores (ScoredRows.callback)."""
        return self.score_rows(color).callback(on_info, avoid)

    def can_ponder(self):
        """Pondering is on and it is the opponent's turn after our move."""
        p = self.p
        return not (not p.ponder or p.cfg.net.rawnet or p.color is None or p.game.is_over()
                    or p.game.to_move == p.color)

    def start_pondering(self):
        """Think on the opponent's time: a running :class:`Thinking` to stop
        when the opponent's move comes, or None when pondering does not apply."""
        if not self.can_ponder():
            return None
        p = self.p
        try:
            s = p.search()
            s.set_position(p.position(), p.search_komi(), komi_drift=1.0)
        except Exception:
            log.exception("ponder setup failed")
            return None
        return Thinking(s, "ponder").start()
