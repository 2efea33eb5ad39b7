"""Match statistics: Wilson score interval and Elo difference.

One home for these so matches, paper experiments and docs agree.  A draw
(jigo) counts as half a win.
"""
import math

Z95 = 1.959963984540054


def wilson(wins, n, z=Z95):
    """Wilson score interval (lo, hi) of a win rate from ``wins`` of ``n``
    games (wins may be fractional, draws counting 1/2). (0, 1) for n = 0."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def elo(p):
    """Elo difference for an expected score p; +-inf at 1 and 0."""
    if p <= 0:
        return -math.inf
    if p >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / p - 1.0)


def summarize(wins, losses, draws=0, z=Z95):
    """Win rate, its Wilson interval and the Elo difference with the Elo
    interval from the Wilson bounds, for one side of a match."""
    n = wins + losses + draws
    score = wins + 0.5 * draws
    p = score / n if n else float("nan")
    lo, hi = wilson(score, n, z)
    return {
        "games": n, "wins": wins, "losses": losses, "draws": draws,
        "winrate": p, "wilson_lo": lo, "wilson_hi": hi,
        "elo": elo(p) if n else float("nan"),
        "elo_lo": elo(lo) if n else float("nan"),
        "elo_hi": elo(hi) if n else float("nan"),
    }


def fmt_elo(x):
    """'+35', '-inf', 'n/a' (also for the strings/None of a JSON file)."""
    if x is None:
        return "n/a"
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.0f}"
