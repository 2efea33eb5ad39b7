"""The referee of a match: GNU Go's count of a finished game and the
stones it calls dead, corrected where they stand in a seki the engine reads
out, and the engine's own estimate where no referee answers.

    verdict = referee_verdict(moves, size, komi)      # (result, [dead points]) or None
    result, note = keep_seki_alive(board, *verdict)   # note: None when nothing changed
"""
from __future__ import annotations

import logging

from board_ext.board import BLACK, WHITE
from engine import coords
from tools.gtp_client import GNUGO, EngineDied, GtpClient, GtpError, resolve_command

log = logging.getLogger("gomcts.match")
REFEREE = f"{GNUGO} --mode gtp --chinese-rules"
CNAME = {BLACK: "b", WHITE: "w"}


def referee_verdict(moves, size, komi, referee=REFEREE, setup_black=()):
    """The referee's ``final_score`` of the game and the points of the
    stones it calls dead (``final_status_list dead``; empty when it cannot
    list them): (text, [points]), or None when it fails."""
    try:
        ref = GtpClient(resolve_command(referee), timeout=60)
    except OSError:
        return None
    try:
        ref.send(f"boardsize {size}")
        ref.send("clear_board")
        ref.send(f"komi {komi:g}")
        if setup_black:
            ref.send("set_free_handicap " + " ".join(coords.to_gtp(p, size) for p in setup_black))
        for c, m in moves:
            ref.send(f"play {CNAME[c]} {coords.to_gtp(m, size)}")
        score = ref.send("final_score").split()[0]
        try:
            dead = [coords.from_gtp(v, size) for v in ref.send("final_status_list dead").split()]
        except (GtpError, coords.BadVertex):
            dead = []
        return score, dead
    except (GtpError, EngineDied, IndexError) as e:
        log.warning("referee failed: %s", e)
        return None
    finally:
        ref.close()


def keep_seki_alive(board, result, dead):
    """The referee's result with any stones it called dead that stand in a
    seki (engine.scoring.seki_points: found by reading the closed local
    fight, neither side can capture by moving first) counted alive under
    area scoring: (result, note), note None when nothing changed.  GNU Go
    3.8 and Fuego 1.1 both call an eyeless group in seki with two shared
    liberties dead (docs/results/strength.md, the games against Fuego)."""
    from engine.scoring import area_score, fmt_score, result_value, seki_points
    wrong = sorted(set(dead) & seki_points(board))
    value = result_value(result)
    if not wrong or value is None:
        return result, None
    size = board.size
    colors = board.colors()
    delta = area_score(size, colors, set(dead) - set(wrong), 0) - area_score(size, colors, dead, 0)
    fixed = fmt_score(value + delta)
    note = (f"the referee's {result} counted {len(wrong)} stones in seki as dead "
            f"({' '.join(coords.to_gtp(p, size) for p in wrong)}); scored with them alive")
    return fixed, note


def own_score(game, playouts=None, seed=1):
    """The engine's dead-stone estimate of a finished game (the referee's
    stand-in); ``playouts`` defaults to ``player.score_playouts``'s default."""
    from engine.config import Config
    from engine.scoring import Estimate, fmt_score
    if playouts is None:
        playouts = Config().player.score_playouts
    return fmt_score(Estimate(game.board, game.komi, playouts, seed=seed).score)
