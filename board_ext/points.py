"""The board's Python-side helpers that touch no C array: the fixed
handicap placement and boards written as text.  ``board_ext.board``
re-exports ``handicap_points`` and serves ``Board.from_ascii`` from here."""


def handicap_points(size, n):
    """Fixed handicap placement of the GTP specification (section 4.1.1).

    Raises ValueError when n is not allowed on this size.
    """
    if size < 7:
        raise ValueError(f"fixed handicap is not defined on {size}x{size}")
    maxh = 9 if (size % 2 == 1 and size > 7) else 4
    if n < 2 or n > maxh:
        raise ValueError(f"handicap {n} is not allowed on {size}x{size} (2 to {maxh})")
    e = 2 if size < 12 else 3
    lo, hi, mid = e, size - 1 - e, size // 2

    def P(x, y):
        return y * size + x
    pts = [P(lo, lo), P(hi, hi)]          # D4 Q16
    if n >= 3:
        pts.append(P(lo, hi))             # D16
    if n >= 4:
        pts.append(P(hi, lo))             # Q4
    if n >= 6:
        pts += [P(lo, mid), P(hi, mid)]   # D10 Q10
    if n >= 8:
        pts += [P(mid, lo), P(mid, hi)]   # K4 K16
    if n in (5, 7, 9):
        pts.append(P(mid, mid))           # K10
    return pts


def parse_ascii(text):
    """(size, black points, white points) of rows (top first) of X, O and .
    (spaces ignored)."""
    rows = [r.replace(" ", "") for r in text.strip().splitlines() if r.strip()]
    s = len(rows)
    if any(len(r) != s for r in rows):
        raise ValueError("ASCII board must be square")
    blacks, whites = [], []
    for i, row in enumerate(rows):
        y = s - 1 - i
        for x, ch in enumerate(row):
            if ch in "Xx#":
                blacks.append(y * s + x)
            elif ch in "Oo":
                whites.append(y * s + x)
            elif ch not in ".+":
                raise ValueError(f"bad character {ch!r} in ASCII board")
    return s, blacks, whites
