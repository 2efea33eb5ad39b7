"""Score lead and ownership for analysis rows (KataGo's kata-analyze
fields): the engine's work, so that GTP only formats.

With a net that has score and ownership heads (``player.score_source =
net``, the default, or ``backup``) both come from the net, as KataGo's do: a
candidate's lead is the score head's for the position after it (``net``) or
the head's leads backed up through it (``backup``: the mean over its
simulations of the lead at the deepest node of each path that the net
evaluated, as its win rate is the mean of its simulations' results; a
candidate no simulation reached with one has the head's lead after it), the
root's lead is its best candidate's (so the engine's own choice loses no
points), and the ownership is the head's for the analysed position.  Otherwise, from playouts: a move's lead is the
mean final score of the search's own simulations through it (as KataGo's
scoreMean is the search's), so lead and win rate come from the same
evidence, and the root's lead is again its best candidate's; where the search has none for a visited move (visits kept from an
earlier root) dedicated playouts stand in (``ScoredRows.score_stats``, once per
move of one analysis); ownership comes from the root's playouts."""
import logging

from board_ext.board import BLACK

log = logging.getLogger("gomcts.analysis")

# the deepest avoid/allow a query may ask for (GTP's until-moves, JSON's
# untilDepth): deeper than any game, and held by the pool's 32-bit depth
MAX_UNTIL_DEPTH = 100_000
SCORED_PER_CALL = 8


def ownership_stdev(m):
    """The standard deviation of a point's ownership over the playouts
    whose mean is ``m`` (each ends +1, -1 or 0 there): sqrt(1 - m^2), the
    most it can be (0 where every playout agrees): KataGo's ownershipStdev
    as the playouts give it."""
    return max(0.0, 1.0 - m * m) ** 0.5     # candidates whose own score playouts may run for one info line


class Avoid(set):
    """The moves the root may not play (an analysis's avoid/allow for the
    side to move), with ``deep``: [(colour, moves, until_depth)] for the
    entries that reach below the root (KataGo's untilDepth, Leela Zero's
    until-moves, > 1): those moves are forbidden to that colour at every
    node fewer than until_depth moves from the root."""

    def __init__(self, moves=(), deep=()):
        super().__init__(moves)
        self.deep = [(c, set(m), int(u)) for c, m, u in deep]

    def __bool__(self):
        return bool(len(self) or self.deep)


class Rows(list):
    """Analysis rows (dicts, best first) with the root's ``ownership``
    (size*size values in flat point order, +1 owned by the analysed colour),
    its lead (its best candidate's) and its win rate (the candidates' win
    rates weighted by their visits: the root's value over the whole search,
    as KataGo's root winrate is, steadier than one candidate's)."""
    ownership = None
    root_lead = 0.0
    root_winrate = None


def root_winrate(rows):
    """The visit-weighted mean of the rows' win rates (None without visits)."""
    shown = [r for r in rows if r.get("visits", 0) > 0]
    n = sum(r["visits"] for r in shown)
    return sum(r["visits"] * r["winrate"] for r in shown) / n if n else None


class ScoredRows:
    """Score fields and ownership of one analysis (kata-analyze,
    ``ownership true``), from the point of view of ``color``, in ``board``
    (a copy: genmove plays on).  Its sources are handed in, so this module
    calls nothing above it:

    - ``net``: an evaluator with score and ownership heads, or None;
    - dedicated playouts (engine.scoring.playout_stats, at ``komi`` with
      ``seed``): the root's ``playouts``, each candidate's ``move_playouts``;
    - ``search_score()``: the running search's own root score
      (n, mean, stdev), or None.

    Candidates' figures are computed once per move (the position does not
    change during an analysis), at most SCORED_PER_CALL new moves per
    call; a candidate still waiting for its playouts shows the root's values."""

    def __init__(self, board, color, size, komi, seed, playouts, move_playouts, net=None, search_score=None):
        self.color, self.size = color, size
        self.sign = 1.0 if color == BLACK else -1.0
        self.board = board
        self.komi, self.seed, self._playouts = komi, seed, playouts
        self._move_playouts = move_playouts
        self._search_score = search_score or (lambda: None)
        self._root = None
        self._moves = {}
        self._move_own = {}                        # move -> ownership after it, ``color``'s view
        self._net = net

    def score_stats(self, move=None, playouts=None):
        """(ownership, mean score, score stdev) over playouts from the
        position with ``color`` to move, after ``color`` plays ``move`` when
        given (engine.scoring.playout_stats; Black's view, komi included;
        ``playouts`` of them, the root's count by default)."""
        from engine.scoring import playout_stats
        b = self.board.copy()
        b.to_move = self.color
        if move is not None:
            b.superko = False
            b.play(move, self.color)
        return playout_stats(b, self.komi, playouts or self._playouts, seed=self.seed)

    def callback(self, on_info, avoid=()):
        """``on_info`` for analyses that show scores: it gets the rows as
        :class:`Rows`, annotated (:meth:`annotate`); call it with
        ``final=True`` for the last report of a search.  Its ``scored`` is
        this object."""
        def wrapped(rows, final=False):
            on_info(self.annotate(rows, avoid, final=final))
        wrapped.scored = self
        return wrapped

    def _net_after(self, moves):
        """The score head's lead (``color``'s view) after each of ``moves``;
        pass included, illegal moves left out."""
        want = [m for m in moves if m not in self._moves]
        boards, ok = [], []
        for m in want:
            b = self.board.copy()
            b.to_move = self.color
            b.superko = False
            try:
                b.play(m, self.color)
            except Exception:
                continue
            boards.append(b)
            ok.append(m)
        if boards:
            _, lead, own = self._net.evaluate_aux(boards)
            for m, v, o in zip(ok, lead, own):
                self._moves[m] = (-float(v), 0.0)      # the opponent moves next: its lead, negated
                self._move_own[m] = [-float(x) for x in o]
        return {m: self._moves[m][0] for m in moves if m in self._moves}

    def root(self):
        if self._root is None and self._net is not None:
            b = self.board.copy()
            b.to_move = self.color
            _, lead, own = self._net.evaluate_aux([b])
            # the heads speak for the side to move, here ``color``
            self._root = ([float(v) for v in own[0]], float(lead[0]), 0.0)
        if self._root is None:
            own, mean, sd = self.score_stats()
            self._root = ([self.sign * v for v in own], self.sign * mean, sd)
        return self._root

    def move_ownership(self, m):
        """The ownership after candidate ``m`` (flat points, ``color``'s
        view, +1 ``color``'s): the ownership head's, or
        ``move_playouts`` playouts'; the root's for a move
        that cannot be played."""
        if m in self._move_own:
            return self._move_own[m]
        if self._net is not None:
            self._net_after([m])
        else:
            try:
                own, mean, sd = self.score_stats(m, self._move_playouts)
                self._move_own[m] = [self.sign * v for v in own]
                self._moves.setdefault(m, (self.sign * mean, sd))
            except Exception:
                log.exception("ownership playouts after %s failed", m)
        return self._move_own.get(m, self.root()[0])

    def move(self, m, allow_new=True):
        """(lead, stdev, computed now) for candidate ``m``."""
        got = self._moves.get(m)
        if got is not None:
            return got[0], got[1], False
        if not allow_new:
            r = self.root()
            return r[1], r[2], False
        try:
            _own, mean, sd = self.score_stats(m, self._move_playouts)
        except Exception:
            log.exception("score playouts after %s failed", m)
            r = self.root()
            return r[1], r[2], False
        self._moves[m] = (self.sign * mean, sd)
        return self.sign * mean, sd, True

    def annotate(self, rows, avoid=(), final=False):
        """``rows`` (the search's root analysis, best first) as
        :class:`Rows`: each shown row gets ``scoreLead`` and ``scoreStdev``
        (at most SCORED_PER_CALL candidates get their own playouts per
        call; the others, and the rows with no visits, the root's), and
        ``ownership`` is the root's, flat points, from ``color``'s view.
        With the net, ``final`` (the last report of a search) lifts the
        limit: every shown candidate gets the head's lead after it, so the
        same query answers with the same figures whatever order its
        candidates were visited in."""
        out = Rows(rows)
        if self._net is not None:
            return self._annotate_net(out, limit=None if final else SCORED_PER_CALL)
        fresh = 0
        root = self.root()
        sr = self._search_score()
        root_lead, root_sd = (self.sign * sr[1], sr[2]) if sr else (root[1], root[2])
        for r in out:
            if r.get("score_n", 0) > 0:
                # the search's own final scores through the move: the lead
                # and the win rate come from the same simulations
                r["scoreLead"], r["scoreStdev"] = self.sign * r["score_mean"], r["score_sd"]
                continue
            if r["move"] in avoid or r.get("visits", 0) <= 0:
                r["scoreLead"], r["scoreStdev"] = root_lead, root_sd
                continue
            # visits kept from an earlier root (tree reuse): dedicated playouts
            lead, sd, new = self.move(r["move"], allow_new=fresh < SCORED_PER_CALL)
            fresh += new
            r["scoreLead"], r["scoreStdev"] = lead, sd
        out.ownership = root[0]
        # the root's lead is its best candidate's, as with the net: the mean
        # over every simulation counts the search's exploring of worse moves,
        # so a client grading by lead (KaTrain's pointsLost) read the engine's
        # own choice as a loss of points
        shown = [r for r in out if r.get("visits", 0) > 0 and r["move"] not in avoid]
        out.root_lead = shown[0]["scoreLead"] if shown else root_lead
        out.root_winrate = root_winrate(shown)
        return out

    def _annotate_net(self, out, limit=SCORED_PER_CALL):
        root = self.root()
        # the score head after the candidates shown (visited ones, best
        # first), at most SCORED_PER_CALL new ones a call: a net pass a
        # board, so the first line of a 19x19 analysis does not wait for
        # every legal move's (it waited 2-3 s)
        want, new = [], 0
        for r in out:
            if r.get("lead_n", 0) > 0 or r.get("visits", 0) <= 0:
                continue
            if r["move"] not in self._moves:
                if limit is not None and new >= limit:
                    continue
                new += 1
            want.append(r["move"])
        leads = self._net_after(want)
        for r in out:
            if r.get("lead_n", 0) > 0:
                # the score head's leads backed up through the move, as its
                # win rate is (KataGo's scoreLead: the visit-weighted mean of
                # the leads below it)
                r["scoreLead"], r["scoreStdev"] = self.sign * r["lead_mean"], r["lead_sd"]
                continue
            r["scoreLead"] = leads.get(r["move"], root[1])
            r["scoreStdev"] = r.get("score_sd", 0.0) if r.get("score_n", 0) > 0 else 0.0
        shown = [r for r in out if r.get("visits", 0) > 0]
        out.ownership = root[0]
        out.root_lead = shown[0]["scoreLead"] if shown else root[1]
        out.root_winrate = root_winrate(shown)
        return out
