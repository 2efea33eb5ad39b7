"""The phases of a game by moves played, one rule for every user: the
search weighs the value net by phase (``search.value_lambda`` and
``search.value_visits`` with three entries, engine.search), and
nets/calibration.py measures what the value net is worth in each."""

OPENING, MIDDLE, END = 0, 1, 2
NAMES = ("opening", "middle", "end")


def phase_of(move_no, points):
    """0 (opening) before 20% of the board's points are played, 1 (middle
    game) before 50%, else 2 (endgame)."""
    return OPENING if move_no < 0.2 * points else (MIDDLE if move_no < 0.5 * points else END)


def board_phase(board):
    """The phase of ``board`` (its moves played and its size)."""
    return phase_of(board.move_count, board.size * board.size)
