"""All coordinate conversions of the project live here.

Board points are flat indices ``idx = y * N + x`` where ``x`` is the column
(0 = the GTP letter ``A``) and ``y`` the row counted from the bottom
(0 = GTP row ``1``).  Pass is ``N * N``.  GTP letters skip ``I``.

=========  ======================  ==========================
system     example on 9x9          notes
=========  ======================  ==========================
flat       ``40``                  board_ext, search, nets
(x, y)     ``(4, 4)``              x column, y row from bottom
GTP        ``"E5"``                case-insensitive, ``pass``
SGF        ``"ee"``                column letter, row from top
=========  ======================  ==========================
"""

GTP_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
MAX_SIZE = 19


class BadVertex(ValueError):
    """A vertex string that names no point of the board."""


def shown(text, limit=20):
    """A vertex as an error names it: at most ``limit`` characters (a
    client's 1 MB garbage is not echoed back)."""
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def pass_move(size):
    return size * size


def to_xy(idx, size):
    return idx % size, idx // size


def from_xy(x, y, size):
    return y * size + x


def to_gtp(idx, size):
    """Flat index (or pass) to a GTP vertex string."""
    if idx == size * size or idx is None or idx < 0:
        return "pass"
    x, y = to_xy(idx, size)
    return f"{GTP_LETTERS[x]}{y + 1}"


def from_gtp(text, size):
    """GTP vertex to a flat index; ``pass`` gives ``size*size``.

    Raises BadVertex naming the problem for anything else.
    """
    t = text.strip().upper()
    if t == "PASS":
        return size * size
    if len(t) < 2 or t[0] not in GTP_LETTERS or not (t[1:].isascii() and t[1:].isdigit()):
        raise BadVertex(f"invalid vertex '{shown(text)}'")
    x = GTP_LETTERS.index(t[0])
    y = int(t[1:]) - 1
    if not (0 <= x < size and 0 <= y < size):
        raise BadVertex(f"vertex '{shown(text)}' is off the {size}x{size} board")
    return from_xy(x, y, size)


def to_sgf(idx, size):
    """Flat index to SGF point (``""`` for pass)."""
    if idx == size * size:
        return ""
    x, y = to_xy(idx, size)
    return "abcdefghijklmnopqrs"[x] + "abcdefghijklmnopqrs"[size - 1 - y]


def sgfmill_to_idx(rc, size):
    """sgfmill (row, col) with row 0 at the bottom, or None for pass."""
    if rc is None:
        return size * size
    row, col = rc
    return from_xy(col, row, size)


def idx_to_sgfmill(idx, size):
    if idx == size * size:
        return None
    x, y = to_xy(idx, size)
    return (y, x)
