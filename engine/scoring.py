"""Scoring: area scoring with dead stones removed, territory scoring
(Japanese rules), and the dead-stone estimate from playout ownership.  Used by GTP (final_score,
final_status_list), the search's pass rule, self-play and matches."""
from board_ext.board import BLACK


def fmt_score(score):
    """GTP final_score form: B+3.5, W+0.5, 0."""
    if abs(score) < 1e-9:
        return "0"
    return f"{'B' if score > 0 else 'W'}+{abs(score):g}"


def empty_regions(size, grid):
    """The empty regions of ``grid`` (flat colours, 0 empty): for each, its
    number of points, the colours it reaches (bits 1 black, 2 white) and
    the stones it touches."""
    nn = size * size
    seen = [False] * nn
    for p in range(nn):
        if grid[p] or seen[p]:
            continue
        stack, region, reach, touch = [p], 0, 0, set()
        seen[p] = True
        while stack:
            q = stack.pop()
            region += 1
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
        yield region, reach, touch


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
            (self.dead if m < -0.2 else self.alive).extend(ch)
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
            if shared:
                self.seki.extend(ch)
        self.score = area_score(size, colors, dead, komi)   # black - white - komi


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
