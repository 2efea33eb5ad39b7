"""Score lead and ownership for analysis rows (KataGo's kata-analyze
fields): the engine's work, so that GTP only formats.  Each value comes
from dedicated playouts (``Player.score_stats``), computed once per
move of one analysis (the position does not change during it)."""
import logging

from board_ext.board import BLACK

log = logging.getLogger("gomcts.analysis")

SCORED_PER_CALL = 8     # candidates whose own score playouts may run for one info line


class Rows(list):
    """Analysis rows (dicts, best first) with the root's ``ownership``
    (size*size values in flat point order, +1 owned by the analysed colour)."""
    ownership = None
    root_lead = 0.0


class ScoredRows:
    """Score fields and ownership of one analysis (kata-analyze,
    ``ownership true``), from dedicated playouts (engine.player's
    :meth:`score_stats`), from the point of view of ``color``: the root's
    over ``player.score_playouts`` playouts, each candidate's over
    ``player.move_score_playouts`` playouts after it, computed once per move
    (the position does not change during an analysis) and at most
    :data:`_SCORED_PER_LINE` new moves per line; a candidate still waiting
    for its playouts shows the root's values."""

    def __init__(self, player, color, size):
        self.player, self.color, self.size = player, color, size
        self.sign = 1.0 if color == BLACK else -1.0
        self.board = player.game.board.copy()      # the analysed position (genmove plays on)
        self._root = None
        self._moves = {}

    def root(self):
        if self._root is None:
            own, mean, sd = self.player.score_stats(self.color, board=self.board)
            self._root = ([self.sign * v for v in own], self.sign * mean, sd)
        return self._root

    def move(self, m, allow_new=True):
        """(lead, stdev, computed now) for candidate ``m``."""
        got = self._moves.get(m)
        if got is not None:
            return got[0], got[1], False
        if not allow_new:
            r = self.root()
            return r[1], r[2], False
        try:
            _own, mean, sd = self.player.score_stats(
                self.color, m, self.player.cfg.player.move_score_playouts, board=self.board)
        except Exception:
            log.exception("score playouts after %s failed", m)
            r = self.root()
            return r[1], r[2], False
        self._moves[m] = (self.sign * mean, sd)
        return self.sign * mean, sd, True

    def annotate(self, rows, avoid=()):
        """``rows`` (the search's root analysis, best first) as
        :class:`Rows`: each shown row gets ``scoreLead`` and ``scoreStdev``
        (at most SCORED_PER_CALL candidates get their own playouts per
        call; the others, and the rows with no visits, the root's), and
        ``ownership`` is the root's, flat points, from ``color``'s view."""
        out = Rows(rows)
        fresh = 0
        root = self.root()
        for r in out:
            if r["move"] in avoid or r.get("visits", 0) <= 0:
                r["scoreLead"], r["scoreStdev"] = root[1], root[2]
                continue
            lead, sd, new = self.move(r["move"], allow_new=fresh < SCORED_PER_CALL)
            fresh += new
            r["scoreLead"], r["scoreStdev"] = lead, sd
        out.ownership = root[0]
        out.root_lead = root[1]
        return out
