"""Scoring: area scoring with dead stones removed, territory scoring
(Japanese rules), and the dead-stone estimate from playout ownership.  Used by GTP (final_score,
final_status_list), the search's pass rule, self-play and matches."""
import re

from board_ext.board import BLACK, WHITE
from engine.player_errors import PlayerError


def fmt_score(score):
    """GTP final_score form: B+3.5, W+0.5, 0."""
    if abs(score) < 1e-9:
        return "0"
    return f"{'B' if score > 0 else 'W'}+{abs(score):g}"


def result_value(text):
    """A game result ("B+3.5", "W+R", "0", SGF RE or GTP final_score, as
    :func:`fmt_score` writes it) ->
    black minus white (a win by resignation, time or forfeit counts one
    point), or None when it does not read."""
    t = (text or "").strip().upper()
    if t in ("0", "JIGO", "DRAW"):
        return 0.0
    m = re.fullmatch(r"([BW])\+(R|RESIGN|T|TIME|F|FORFEIT|\d+(?:\.\d*)?)", t)
    if not m:
        return None
    v = 1.0 if not m.group(2)[0].isdigit() else float(m.group(2))
    return v if m.group(1) == "B" else -v


def empty_regions(size, grid, points=False):
    """The empty regions of ``grid`` (flat colours, 0 empty): for each, its
    number of points, the colours it reaches (bits 1 black, 2 white) and
    the stones it touches; with ``points`` a fourth item, its points."""
    nn = size * size
    seen = [False] * nn
    for p in range(nn):
        if grid[p] or seen[p]:
            continue
        stack, region, reach, touch, pts = [p], 0, 0, set(), []
        seen[p] = True
        while stack:
            q = stack.pop()
            region += 1
            if points:
                pts.append(q)
            x, y = q % size, q // size
            for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                if 0 <= nx < size and 0 <= ny < size:
                    r = ny * size + nx
                    if grid[r]:
                        reach |= grid[r]
                        touch.add(r)
                    elif not seen[r]:
                        seen[r] = True
                        stack.append(r)
        yield (region, reach, touch, pts) if points else (region, reach, touch)


def area_score(size, colors, dead, komi):
    """Area score (black - white - komi) with the ``dead`` points removed:
    stones plus empty regions that reach only one colour."""
    grid = list(colors)
    for p in dead:
        grid[p] = 0
    black = grid.count(1)
    white = grid.count(2)
    for region, reach, _ in empty_regions(size, grid):
        if reach == 1:
            black += region
        elif reach == 2:
            white += region
    return black - white - komi


def territory_score(size, colors, dead, seki, captures, komi):
    """Territory score (Japanese rules; black - white - komi): each side's
    territory (empty points, dead stones' points included, in regions that
    reach only its living stones) plus its prisoners (``captures[c]``, the
    stones colour c captured during the game, and the opponent's dead
    stones).  Regions that touch a stone in ``seki`` count for nobody."""
    grid = list(colors)
    prisoners = {1: captures[1], 2: captures[2]}
    for p in dead:
        if grid[p]:
            prisoners[3 - grid[p]] += 1
            grid[p] = 0
    seki = set(seki)
    terr = {1: 0, 2: 0}
    for region, reach, touch in empty_regions(size, grid):
        if reach in (1, 2) and not (touch & seki):
            terr[reach] += region
    return terr[1] + prisoners[1] - terr[2] - prisoners[2] - komi


# the local seki search: at most this many points in the empty
# surroundings of a group of chains, chains with at most this many liberties
SEKI_MAX_POINTS = 7


def _neighbours(p, size):
    x, y = p % size, p // size
    if x > 0:
        yield p - 1
    if x < size - 1:
        yield p + 1
    if y > 0:
        yield p - size
    if y < size - 1:
        yield p + size


def seki_points(board):
    """Stones in seki, found by reading: the points of every closed
    cluster of chains (each chain's liberties all lie in the cluster's
    few empty points, at most ``SEKI_MAX_POINTS``) where neither side,
    moving first, can capture a chain of the other by play on those points
    (local passes allowed), and where some point next to both colours
    cannot be filled by either side without losing its chain.  Two-eyed
    groups with a shared liberty (dame) are not seki; playout ownership
    cannot see seki (the playouts fill the shared liberties), this can."""
    size = board.size
    colors = board.colors()
    chain_of, libs_of = {}, {}
    for p in range(size * size):
        if colors[p] and p not in chain_of:
            ch = tuple(board.chain(p))
            for q in ch:
                chain_of[q] = ch
            libs_of[ch] = set(board.chain_liberties(p))
    found, tried = set(), set()
    for start, libs in libs_of.items():
        if start in tried or len(libs) > SEKI_MAX_POINTS:
            continue
        cluster, points, todo, ok = {start}, set(libs), [start], True
        while todo and ok:
            todo.pop()
            for r in list(points):
                for q in _neighbours(r, size):
                    ch = chain_of.get(q)
                    if ch is None or ch in cluster:
                        continue
                    if len(libs_of[ch]) > SEKI_MAX_POINTS:
                        ok = False
                        break
                    cluster.add(ch)
                    todo.append(ch)
                    points |= libs_of[ch]
                if not ok or len(points) > SEKI_MAX_POINTS:
                    ok = False
                    break
        tried |= cluster
        if not ok or len({colors[ch[0]] for ch in cluster}) < 2:
            continue
        if _is_seki(board, sorted(points), cluster, colors, size):
            for ch in cluster:
                found.update(ch)
    return found


def _is_seki(board, points, cluster, colors, size):
    b0 = board.copy()
    b0.passes = 0
    memo = {}
    depth = 2 * len(points) + 3

    def wins(b, to_move, attacker, passes, d):
        """Can ``attacker`` capture a stone of the other colour before
        losing one of its own, ``to_move`` to move, play on ``points``?"""
        key = (bytes(b.color_at(p) for p in points), to_move, attacker, passes)
        if key in memo:
            return memo[key]
        if d == 0:
            return False
        memo[key] = False                      # a cycle (ko) counts as no capture
        other = 3 - to_move
        results = []
        for p in points:
            if not b.is_legal(p, to_move):
                continue
            nb = b.copy()
            if nb.play(p, to_move):            # a capture ends the local fight
                results.append(to_move == attacker)
            else:
                results.append(wins(nb, other, attacker, 0, d - 1))
            if results[-1] == (to_move == attacker):
                break
        else:
            results.append(False if passes else wins(b, other, attacker, 1, d - 1))
        res = any(results) if to_move == attacker else all(results)
        memo[key] = res
        return res

    if wins(b0, BLACK, BLACK, 0, depth) or wins(b0, 3 - BLACK, 3 - BLACK, 0, depth):
        return False
    colour_near = {p: {colors[q] for q in _neighbours(p, size) if colors[q]} for p in points}
    for p in points:
        if colour_near[p] != {1, 2}:
            continue
        bad = True
        for c in (1, 2):
            if not b0.is_legal(p, c):
                continue
            nb = b0.copy()
            if nb.play(p, c) or not wins(nb, 3 - c, 3 - c, 0, depth):
                bad = False
                break
        if bad:
            return True
    return False


def territory_owners(size, colors, dead, seki=()):
    """Who owns each point under territory counting: 1 or 2 for the
    empty points and the dead stones' points of regions that reach only
    that colour's living stones and touch no stone in ``seki``; 0 for
    stones, dame and the points of seki."""
    grid = list(colors)
    for p in dead:
        grid[p] = 0
    seki = set(seki)
    owner = [0] * (size * size)
    for _, reach, touch, pts in empty_regions(size, grid, points=True):
        if reach in (1, 2) and not (touch & seki):
            for q in pts:
                owner[q] = reach
    return owner


class Estimate:
    """Dead-stone estimate of a position from playout ownership.

    The playouts start from a copy of the board with the pass count
    cleared: a game that ended with two passes is still played out (else
    every playout would stop at once and score the stones as they stand),
    and one pass does not let a playout end on the first pass."""

    def __init__(self, board, komi, playouts, seed=1, policy="expert"):
        from board_ext.playout import ownership
        self.size = size = board.size
        start = board.copy()
        start.passes = 0
        own, self.mean_score = ownership(start, playouts, policy=policy, seed=seed, komi=komi)
        self.own = own
        colors = board.colors()
        read_seki = seki_points(board)     # the playouts fill shared liberties: read seki
        self.dead, self.alive, self.seki = [], [], []
        seen = set()
        chains = []
        for p in range(size * size):
            c = colors[p]
            if not c or p in seen:
                continue
            ch = board.chain(p)
            seen.update(ch)
            sign = 1 if c == BLACK else -1
            m = sum(own[q] for q in ch) / len(ch) * sign     # from the chain's view
            chains.append((c, ch, m))
            (self.dead if m < -0.2 and ch[0] not in read_seki else self.alive).extend(ch)
        dead = set(self.dead)
        alive_color = {}
        for c, ch, m in chains:
            if ch[0] not in dead:
                for q in ch:
                    alive_color[q] = c
        # seki: uncertain living chains sharing a liberty with an uncertain
        # living opponent chain
        for c, ch, m in chains:
            if ch[0] in dead or abs(m) >= 0.5:
                continue
            shared = False
            for lib in board.chain_liberties(ch[0]):
                x, y = lib % size, lib // size
                for nx, ny in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                    if 0 <= nx < size and 0 <= ny < size:
                        r = ny * size + nx
                        if alive_color.get(r) == 3 - c:
                            shared = True
            if shared and ch[0] not in read_seki:
                self.seki.extend(ch)
        self.seki = sorted(set(self.seki) | read_seki)
        self.score = area_score(size, colors, dead, komi)   # black - white - komi


def final_score(board, est, rules, komi):
    """Black's score minus White's and komi with the dead stones of
    estimate ``est``: area scoring, or territory scoring (prisoners, no
    points in seki) when ``rules`` is japanese."""
    if rules == "japanese":
        return territory_score(board.size, board.colors(), est.dead, est.seki,
                               {BLACK: board.captures(BLACK), WHITE: board.captures(WHITE)}, komi)
    return est.score


def status_points(est, kind):
    """The points of stones with status ``kind`` (dead, alive, seki) in
    estimate ``est``, sorted."""
    if kind not in ("dead", "alive", "seki"):
        raise PlayerError(f"unknown status '{kind}' (dead, alive, seki)")
    return sorted({"dead": est.dead, "alive": est.alive, "seki": est.seki}[kind])


def playout_stats(board, komi, playouts, seed=1, policy="expert"):
    """Mean final ownership per point (+1 black .. -1 white), mean and
    standard deviation of the final score (black - white - komi) over
    ``playouts`` playouts from ``board`` (its side to move first; the pass
    count cleared, as in :class:`Estimate`).  For kata-analyze's scoreLead,
    scoreStdev and ownership."""
    from board_ext.playout import ownership
    start = board.copy()
    start.passes = 0
    nn = board.size * board.size
    acc = [0.0] * nn
    s1 = s2 = 0.0
    for i in range(playouts):
        own, score = ownership(start, 1, policy=policy, seed=seed + 7919 * i, komi=komi)
        acc = [a + o for a, o in zip(acc, own)]
        s1 += score
        s2 += score * score
    mean = s1 / playouts
    var = max(0.0, s2 / playouts - mean * mean)
    return [a / playouts for a in acc], mean, var ** 0.5
