"""The MoGo 3x3 patterns of the playout policies (board_ext/playout.pyx
reads the table once at import).  Python: built once, never on the
playout path."""

# MoGo 3x3 patterns (Gelly et al. 2006) in michi's notation: X, O colours
# (both colour assignments are used), x = not X, o = not O, ? = anything,
# ' ' = off-board; the centre is the empty candidate point.
PATTERN_SRC = [
    ["XOX", "...", "???"],   # hane: enclosing hane
    ["XO.", "...", "?.?"],   # hane: non-cutting hane
    ["XO?", "X..", "x.?"],   # hane: magari
    [".O.", "X..", "..."],   # katatsuke or diagonal attachment
    ["XO?", "O.o", "?o?"],   # cut1: unprotected cut
    ["XO?", "O.X", "???"],   # cut1: peeped cut
    ["?X?", "O.O", "ooo"],   # cut2
    ["OX?", "o.O", "???"],   # cut keima
    ["X.?", "O.?", "   "],   # side: chase
    ["OX?", "X.O", "   "],   # side: block side cut
    ["?X?", "x.O", "   "],   # side: block side connection
    ["?XO", "x.x", "   "],   # side: sagari
    ["?OX", "X.O", "   "],   # side: cut
]


def pattern_table():
    """The 65,536-entry table by 3x3 ring code (two bits a point, ``.XO `` =
    0-3, the ring in the board's ``nbr8`` order): 1 where the ring centres a
    pattern of PATTERN_SRC in any rotation, reflection or colour swap."""
    def rot90(p):
        return [p[2][0] + p[1][0] + p[0][0], p[2][1] + p[1][1] + p[0][1], p[2][2] + p[1][2] + p[0][2]]

    def vflip(p):
        return [p[2], p[1], p[0]]

    def hflip(p):
        return [r[::-1] for r in p]

    def swap(p):
        return [r.replace("X", "Z").replace("O", "X").replace("Z", "O")
                 .replace("x", "z").replace("o", "x").replace("z", "o") for r in p]

    def wild(s):
        alts = {"?": ".XO ", "x": ".O ", "o": ".X "}
        out = [""]
        for ch in s:
            out = [o + a for o in out for a in alts.get(ch, ch)]
        return out

    code = {".": 0, "X": 1, "O": 2, " ": 3}
    table = bytearray(65536)
    for pat in PATTERN_SRC:
        variants = []
        for p in (pat, swap(pat)):
            for q in (p, vflip(p), hflip(p), vflip(hflip(p))):
                variants += [q, rot90(q)]
        for v in variants:
            s = v[0] + v[1][0] + v[1][2] + v[2]
            for e in wild(s):
                k = 0
                for i, ch in enumerate(e):
                    k |= code[ch] << (2 * i)
                table[k] = 1
    return bytes(table)
