"""The end of the game, one rule per place: the dead-stone estimate of the
position (``engine.scoring.Estimate``, computed once and shared), the one
decision whether a pass stands (:meth:`Endgame.decide`: pass when the
opponent passed and the count is ours; the search's pass only when meant;
never pass into a loss while a board move exists; under territory rules
never a move into the own territory), the cleanup of dead stones
(kgs-genmove_cleanup) and the fallback move where the search gives no
guidance.

One ``Endgame`` serves one genmove: the Player makes it and asks it once,
after the search, so the estimate runs at most once a move, with the one
seed of the Player's search; the search itself decides nothing about
passing.
"""
import logging

from board_ext.board import BLACK, WHITE
from engine.game import opponent
from engine.scoring import Estimate

log = logging.getLogger("gomcts.endgame")


class Endgame:
    """The endgame rules for ``color``'s move in ``board`` (not copied: the
    caller does not change it while the Endgame is in use).

    Args:
        board: the position (engine board).
        komi: the game's komi.
        playouts: the estimate's playouts (``player.score_playouts``).
        seed: the estimate's seed (the Player's, which its search shares).
        territory: japanese rules (territory count; cleanup by capture).
        net_priors: ``board -> priors`` (length nn+1) to rank moves with
            where the search gives none, or None.
    """

    def __init__(self, board, komi, playouts, seed, territory=False, net_priors=None):
        self.board = board
        self.komi = komi
        self.playouts = playouts
        self.seed = seed
        self.territory = territory
        self.net_priors = net_priors
        self._estimate = None
        self.estimates = 0          # how many estimates ran (at most one)

    @property
    def estimate(self):
        """The dead-stone estimate of the position (computed on first use)."""
        if self._estimate is None:
            self._estimate = Estimate(self.board, self.komi, self.playouts, seed=self.seed)
            self.estimates += 1
        return self._estimate

    def _safe_estimate(self):
        try:
            return self.estimate
        except Exception:
            log.exception("dead-stone estimate failed")
            return None

    def _vtx(self, move):
        from engine import coords
        return coords.to_gtp(move, self.board.size)

    def mine(self):
        """The area count for the side to move, dead stones taken off."""
        s = self.estimate.score
        return s if self.board.to_move == BLACK else -s

    # ------------------------------------------------ the one pass decision
    def decide(self, color, move, rows, cleanup=False, avoid=(), pass_when_won=True):
        """The move ``color`` plays where the search chose ``move`` (its
        root analysis ``rows``, best first; None without a search): where
        the opponent just passed and the count with dead stones taken off
        is ours, a pass that ends the game (``search.pass_when_won``; over a
        resignation too); the search's pass only when meant
        (:meth:`safe_pass`); then :meth:`pass_safety`."""
        nn = self.board.pass_move
        if pass_when_won and rows and self.board.last_move == nn and any(r["move"] == nn for r in rows) \
                and self.mine() > 0:
            move = nn
        elif move == nn and rows:
            move = self.safe_pass(rows)
        if move >= 0:
            move = self.pass_safety(color, move, rows, cleanup, avoid)
        return move

    def safe_pass(self, rows):
        """The move to play where the search's best move is a pass (rows:
        its root analysis, best first).  Pass only when it is safe and meant.

        * If the opponent just passed, passing ends the game and the count
          decides (dead stones estimated): never pass then while it says we
          lose and a board move exists.
        * Otherwise pass only when the search is sure of it (at least
          max(50, 10%) of the visits): a pass that won a handful of noisy
          playouts among hundreds of root moves gives the opponent a free
          move under area scoring.
        """
        b = self.board
        nn = b.size ** 2
        board_moves = [d for d in rows if d["move"] != nn and d["visits"] > 0]
        if b.last_move == nn:
            if self.mine() > 0 or not board_moves:
                return nn
            return board_moves[0]["move"]
        total = sum(d["visits"] for d in rows)
        passing = next((d for d in rows if d["move"] == nn), None)
        if passing is not None and passing["visits"] >= max(50, 0.1 * total) or not board_moves:
            return nn
        return board_moves[0]["move"]

    # ------------------------------------------------ the Player's rules
    def cleanup_capture(self, color, avoid=()):
        """kgs-genmove_cleanup under territory rules: the next move of the
        capture of the opponent's dead stones (the estimate's), or None
        when none is left or none can be played.  Each stone played costs
        a point of territory, so the move is always on a liberty of a dead
        chain: the chain with the fewest liberties first (a capture when
        one is in atari), never an own eye, never a self-atari that is not
        a capture; among a chain's liberties the one leaving the most
        liberties to the stone played."""
        board = self.board
        est = self._safe_estimate()
        if est is None:
            return None
        opp = opponent(color)
        chains, seen = [], set()
        for p in est.dead:
            if p in seen or board.color_at(p) != opp:
                continue
            ch = board.chain(p)
            seen.update(ch)
            chains.append((len(board.chain_liberties(p)), -len(ch), ch[0]))
        for _, _, p in sorted(chains):
            best = None
            for lib in board.chain_liberties(p):
                if lib in avoid or board.is_eye(lib, color) or not board.is_legal(lib, color):
                    continue
                after = board.copy()
                took = after.play(lib, color)
                libs = after.liberties(lib)
                if not took and libs < 2:
                    continue
                key = (-took, -libs, lib)
                if best is None or key < best[0]:
                    best = (key, lib)
            if best is not None:
                log.info("cleanup (territory rules): %s against the dead chain at %s",
                         self._vtx(best[1]), self._vtx(p))
                return best[1]
        return None

    def pass_safety(self, color, move, rows, cleanup, avoid=()):
        """Never pass into a loss under the dead-stone estimate while a
        non-pass move exists; in the cleanup phase, capture dead stones first.

        Under territory rules (japanese) the count is the territory count,
        and a move inside the mover's own territory, which costs a point
        and gains none, is never played instead of a pass: in the cleanup
        phase the search's move there becomes a pass (the dead stones are
        taken by :meth:`cleanup_capture` before the search runs)."""
        board = self.board
        territory = self.territory
        if move != board.pass_move and not (cleanup and territory):
            return move
        if not board.legal_moves(color):
            return move
        est = self._safe_estimate()
        if est is None:
            return move
        own_area = set()
        if territory:
            from engine.scoring import territory_owners, territory_score
            owners = territory_owners(self.board.size, board.colors(), est.dead, est.seki)
            own_area = {p for p, o in enumerate(owners) if o == color}
            score = territory_score(self.board.size, board.colors(), est.dead, est.seki,
                                    {BLACK: board.captures(BLACK), WHITE: board.captures(WHITE)},
                                    self.komi)
            if move != board.pass_move:
                if move not in own_area:
                    return move
                log.info("cleanup (territory rules): %s is in the own territory; passing instead",
                         self._vtx(move))
                move = board.pass_move
        else:
            score = est.score
        mine = score if color == BLACK else -score
        opp_dead = [p for p in est.dead if board.color_at(p) == opponent(color)]
        if territory:
            opp_dead = []           # the capturable ones were taken by cleanup_capture
        if mine > 0 and not (cleanup and opp_dead):
            return move
        alts = [m for m in self.alternatives(color, rows, est)
                if m not in avoid and m not in own_area]
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
                 -mine, " (cleanup)" if cleanup else "", self._vtx(alts[0]))
        return alts[0]

    def alternatives(self, color, rows, est=None):
        """Legal non-pass moves that do not fill an own eye, best first.

        First the search's own root moves with real visits, most visited
        first (the move the search would have played had it not passed);
        then the rest ranked by :meth:`rank_without_search`, never in
        board order."""
        board = self.board
        ok = [m for m in board.legal_moves(color) if not board.is_eye(m, color)]
        legal = set(ok)
        rows = [r for r in rows or () if r["move"] in legal and r.get("visits", 0) > 0]
        rows.sort(key=lambda r: (-r.get("visits", 0), -r.get("winrate", 0.5)))
        cands = [r["move"] for r in rows]
        seen = set(cands)
        rest = [m for m in ok if m not in seen]
        return cands + self.rank_without_search(color, rest, est)

    def rank_without_search(self, color, moves, est=None):
        """``moves`` ranked where the search gives no guidance: the expert
        prior weight of each move (captures and atari escapes high,
        self-atari and first-line moves low) times its urgency under the
        dead-stone estimate: points whose owner is unsettled and points
        next to dead stones (capturing them, or saving own ones) first,
        points the mover already owns last."""
        board = self.board
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
        if self.net_priors is not None:
            try:
                pr = self.net_priors(board)
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
