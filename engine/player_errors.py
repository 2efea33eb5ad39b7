"""The errors the player raises: what a request may be refused for (the
GTP server answers each with ``? message``)."""


class PlayerError(Exception):
    """A request the player refuses; the message is for the user."""


class IllegalMoveError(PlayerError):
    """A move the rules forbid (occupied point, suicide, ko, superko)."""


class GameStateError(PlayerError):
    """A request the game's state does not allow (nothing to undo, handicap
    on a non-empty board, bad setup, bad SGF)."""


class TimeSettingsError(PlayerError):
    """Time settings or a time_left report out of range."""


class OptionError(PlayerError):
    """set_option: an unknown key or a value of the wrong type or out of
    range; the message names the key."""


class NoNetError(PlayerError):
    """net.required is set and no net fits the board size."""
