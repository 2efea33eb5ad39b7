"""The game record: positions, moves, komi, handicap; SGF in and out.

A :class:`Game` keeps its history as moves and setups, the current
:class:`board_ext.board.Board` and a snapshot every :data:`KEEP_EVERY`
steps (and where a step cannot be replayed: a setup that removes stones,
a change of the side to move), so memory grows with the moves and not
with a board per move (a snapshot holds every earlier position's hash for
superko); ``undo`` replays at most ``KEEP_EVERY - 1`` steps from the
snapshot before.  A game holds at most :data:`MAX_GAME_LENGTH` steps.  Moves
are typed values (colour ``BLACK``/``WHITE``, flat point, pass =
``size*size``); text never gets here (``engine.gtp`` parses it).

Errors are typed and leave the game unchanged:

- :class:`board_ext.board.IllegalMove` (``.reason`` in occupied, suicide,
  ko, superko, off-board) from :meth:`Game.play` and :meth:`Game.setup`;
- :class:`GameError` for requests that make no sense in the current state
  (nothing to undo, a bad board size, handicap on a non-empty board);
- :class:`SgfError` (a ``GameError``) for unreadable or unsupported SGF.
"""
from __future__ import annotations

from dataclasses import dataclass

from atomicio import atomic_write
from board_ext.board import BLACK, WHITE, Board, IllegalMove, handicap_points
from engine import coords
from engine.player_errors import GameStateError

MIN_SIZE = 2
MAX_SIZE = coords.MAX_SIZE
# the longest history a game holds (moves and mid-game setups): a 19x19
# game is a few hundred moves; an SGF or a query past this is refused
MAX_GAME_LENGTH = 50_000
KEEP_EVERY = 256            # a board snapshot every this many steps

__all__ = ["Game", "GameError", "SgfError", "IllegalMove", "BLACK", "WHITE",
           "opponent", "color_name", "handicap_bonus", "MIN_SIZE", "MAX_SIZE", "MAX_GAME_LENGTH"]


def handicap_bonus(rules, handicap):
    """Points White gets for Black's handicap stones under ``rules``, on
    top of the komi, as the count uses them (KataGo keeps it with the game's
    history: whiteHandicapBonus): Chinese N (area counting gives each stone
    back), AGA N - 1, Japanese and New Zealand none."""
    if handicap < 2:
        return 0
    return {"chinese": handicap, "aga": handicap - 1}.get(rules, 0)


class GameError(GameStateError, ValueError):
    """A request the game cannot carry out in its current state (the
    Player's GameStateError: its message is for the user)."""


class SgfError(GameError):
    """An SGF file that cannot be read or is not supported."""


def opponent(color):
    return WHITE if color == BLACK else BLACK


def color_name(color):
    return "black" if color == BLACK else "white"


@dataclass
class Entry:
    """One step of the history: a move, or setup stones placed mid-game."""
    kind: str                   # "move" or "setup"
    color: int = 0              # move: BLACK/WHITE
    move: int = -1              # move: flat point or pass
    black: tuple = ()           # setup: points
    white: tuple = ()
    comment: str | None = None


class Game:
    """Positions and moves of one game.

    ``Game(size=19, komi=7.5, allow_suicide=False, superko=True)``.
    ``board`` is the current position (do not mutate it: use :meth:`play`),
    ``to_move`` the colour to play, ``moves`` the ``(color, point)`` pairs
    played so far.
    """

    def __init__(self, size=19, komi=7.5, allow_suicide=False, superko=True):
        self.komi = float(komi)
        self.allow_suicide = allow_suicide
        self.superko = superko
        self.result = None           # SGF RE value once known, e.g. "B+3.5"
        self.properties = {}         # extra root properties for to_sgf (PB, PW, GN, ...)
        self.clear(size)

    # ----------------------------------------------------------- state
    def clear(self, size=None):
        """Empty board of ``size`` (default: the current one). Komi is kept
        (Sabaki sends ``komi`` before ``boardsize``)."""
        size = self.size if size is None else size
        self._check_size(size)
        self.size = int(size)
        self.handicap = 0
        self.root_black = []
        self.root_white = []
        self.root_comment = None
        self.history: list[Entry] = []
        self._cur = Board(self.size, allow_suicide=self.allow_suicide, superko=self.superko)
        self._kept = {0: self._cur}          # steps played -> the board after them (never mutated)
        self.result = None

    @staticmethod
    def _check_size(size):
        if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
            raise GameError(f"unacceptable size: {size} (this engine plays {MIN_SIZE} to {MAX_SIZE})")

    @property
    def board(self) -> Board:
        return self._cur

    def _push(self, entry, board, keep=False):
        """One more step of the history, ``board`` the position after it;
        a snapshot is kept every KEEP_EVERY steps, and where ``keep`` (a
        step that replaying cannot redo)."""
        if len(self.history) >= MAX_GAME_LENGTH:
            raise GameError(f"game too long: at most {MAX_GAME_LENGTH} moves and setups")
        self.history.append(entry)
        self._cur = board
        if keep or len(self.history) % KEEP_EVERY == 0:
            self._kept[len(self.history)] = board

    def _replace(self, board):
        """The current position is replaced (the side to move, setup at the
        root): kept as a snapshot, so undo and replays start from it."""
        self._cur = board
        self._kept[len(self.history)] = board

    def _rebuild(self):
        """The current board after the history was cut: the last snapshot
        at or before its end, with the steps after it replayed."""
        n = len(self.history)
        for k in [k for k in self._kept if k > n]:
            del self._kept[k]
        k = max(self._kept)
        if k == n:
            self._cur = self._kept[k]
            return
        b = self._kept[k].copy()
        for e in self.history[k:]:
            if e.kind == "move":
                if b.to_move != e.color:
                    b.to_move = e.color
                b.superko = False           # it was legal when it was played
                try:
                    b.play(e.move, e.color)
                finally:
                    b.superko = self.superko
            else:
                b.setup(list(e.black), list(e.white))
        self._cur = b

    @property
    def to_move(self):
        return self.board.to_move

    @to_move.setter
    def to_move(self, color):
        """Set the side to move (gogui-setup_player, SGF PL). Replaces the
        current snapshot, so undo goes back past it as well."""
        b = self.board.copy()
        b.to_move = color
        self._replace(b)

    @property
    def moves(self):
        return [(e.color, e.move) for e in self.history if e.kind == "move"]

    @property
    def pass_move(self):
        return self.size * self.size

    @property
    def move_number(self):
        """Moves (incl. passes) played so far."""
        return sum(1 for e in self.history if e.kind == "move")

    @property
    def last_move(self):
        for e in reversed(self.history):
            if e.kind == "move":
                return e.color, e.move
            return None
        return None

    def consecutive_passes(self):
        n = 0
        for e in reversed(self.history):
            if e.kind != "move" or e.move != self.pass_move:
                break
            n += 1
        return n

    def is_over(self):
        return self.consecutive_passes() >= 2

    def is_empty(self):
        b = self.board
        return not b.stones(BLACK) and not b.stones(WHITE)

    # ----------------------------------------------------------- changes
    def play(self, color, move, comment=None, superko=True):
        """Play ``move`` (flat point or pass) for ``color``, whoever is to
        move (consecutive same-colour moves are allowed). Raises IllegalMove;
        the game is unchanged then.  ``superko=False`` checks this one move
        under simple ko only (a controller's move that repeats an earlier
        position); later moves obey the game's rule again."""
        if color not in (BLACK, WHITE):
            raise GameError(f"colour must be BLACK (1) or WHITE (2), not {color!r}")
        b = self.board.copy()
        if b.to_move != color:
            b.to_move = color
        if superko:
            b.play(move, color)          # raises IllegalMove, b is thrown away
        else:
            b.superko = False
            try:
                b.play(move, color)
            finally:
                b.superko = self.superko
        self._push(Entry("move", color, move, comment=comment), b)
        self.result = None
        return b

    def undo(self, n=1):
        """Take back the last ``n`` moves (or mid-game setups). GameError if
        there are fewer."""
        if n < 0:
            raise GameError("cannot undo a negative number of moves")
        if n > len(self.history):
            raise GameError("cannot undo" if not self.history else
                            f"cannot undo {n} moves: only {len(self.history)} in the game")
        if n:
            del self.history[len(self.history) - n:]
            self._rebuild()
        self.result = None

    def setup(self, black=(), white=(), to_move=None):
        """Place setup stones (handicap, gogui-setup, SGF AB/AW). Before the
        first move they become root setup stones; later a setup step that
        undo takes back. Raises IllegalMove (game unchanged) for an
        occupied/duplicate point."""
        black, white = list(black), list(white)
        allp = black + white
        if len(set(allp)) != len(allp):
            raise IllegalMove("occupied", None, "illegal setup: a point is given twice")
        b = self.board.copy()
        b.setup(black, white)
        if to_move is not None:
            b.to_move = to_move
        if not self.history:
            self._replace(b)
            self.root_black += black
            self.root_white += white
        else:
            self._push(Entry("setup", black=tuple(black), white=tuple(white)), b, keep=to_move is not None)
        return b

    def fixed_handicap(self, n):
        """GTP fixed_handicap: standard points for n stones; White to move."""
        if not self.is_empty() or self.history:
            raise GameError("board not empty")
        try:
            pts = handicap_points(self.size, n)
        except ValueError as e:
            raise GameError(f"invalid number of stones: {e}") from None
        self.setup(black=pts, to_move=WHITE)
        self.handicap = n
        return pts

    def free_handicap(self, points):
        """GTP set_free_handicap / place_free_handicap: Black stones on the
        given points of an empty board; White to move."""
        points = list(points)
        if not self.is_empty() or self.history:
            raise GameError("board not empty")
        if len(points) < 2:
            raise GameError("invalid number of stones: at least 2 handicap stones")
        if len(points) >= self.size * self.size:
            raise GameError("invalid number of stones: too many handicap stones")
        if any(p == self.pass_move for p in points):
            raise GameError("bad vertex list: pass is not a handicap stone")
        if len(set(points)) != len(points):
            raise GameError("bad vertex list: repeated vertex")
        self.setup(black=points, to_move=WHITE)
        self.handicap = len(points)
        return points

    def choose_free_handicap(self, n):
        """Points for place_free_handicap: the fixed layout where it exists,
        otherwise (more stones, small boards) spread out greedily."""
        if n < 2 or n >= self.size * self.size:
            raise GameError(f"invalid number of stones: {n}")
        try:
            return list(handicap_points(self.size, n))
        except ValueError:
            pass
        s = self.size
        pts = []
        try:
            pts = list(handicap_points(s, 9 if s % 2 == 1 else 4))
        except ValueError:
            pts = []
        pts = pts[:n]
        line = 2 if s < 12 else 3
        if s <= 5:
            line = 1 if s >= 3 else 0
        while len(pts) < n:
            best, bestd = None, float("-inf")
            for y in range(s):
                for x in range(s):
                    p = y * s + x
                    if p in pts:
                        continue
                    edge = min(x, y, s - 1 - x, s - 1 - y)
                    d = min((abs(x - q % s) + abs(y - q // s) for q in pts), default=2 * s)
                    score = d - 4 * max(0, line - edge) - (edge > s // 2 - 1 and s > 9)
                    if score > bestd:
                        best, bestd = p, score
            pts.append(best)
        return pts

    # ----------------------------------------------------------- SGF
    def to_sgf(self, result=None, properties=None) -> str:
        """The game as SGF text (sgfmill): size, komi, handicap, root setup,
        moves with their comments, result."""
        from sgfmill import sgf
        s = self.size
        g = sgf.Sgf_game(size=s)
        root = g.get_root()
        root.set("KM", self.komi)
        if self.handicap:
            root.set("HA", self.handicap)
        root.set("RU", "Chinese")
        for k, v in {**self.properties, **(properties or {})}.items():
            root.set_raw(k, _sgf_escape(str(v)).encode("utf-8"))
        if self.root_black or self.root_white:
            root.set_setup_stones([coords.idx_to_sgfmill(p, s) for p in self.root_black],
                                  [coords.idx_to_sgfmill(p, s) for p in self.root_white])
        if self._kept[0].to_move == WHITE:
            root.set("PL", "w")
        if self.root_comment:
            root.set("C", self.root_comment)
        res = result if result is not None else self.result
        if res:
            root.set("RE", res)
        node = root
        for e in self.history:
            node = node.new_child()
            if e.kind == "move":
                node.set_move("b" if e.color == BLACK else "w", coords.idx_to_sgfmill(e.move, s))
            else:
                node.set_setup_stones([coords.idx_to_sgfmill(p, s) for p in e.black],
                                      [coords.idx_to_sgfmill(p, s) for p in e.white])
            if e.comment:
                node.set("C", e.comment)
        return g.serialise().decode("utf-8")

    def save_sgf(self, path, **kw):
        """Write to_sgf() atomically (tmp file + os.replace)."""
        atomic_write(path, self.to_sgf(**kw))

    def load_sgf(self, path, move_number=None):
        """Load an SGF file's main line. With ``move_number`` (GTP loadsgf)
        the position is the one before that move is played (move_number=1:
        after the setup, before the first move). Raises SgfError with a clear
        message; the game is unchanged then."""
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise SgfError(f"cannot load file: '{path}' does not exist") from None
        except IsADirectoryError:
            raise SgfError(f"cannot load file: '{path}' is a directory") from None
        except OSError as e:
            raise SgfError(f"cannot load file '{path}': {e.strerror or e}") from None
        self.load_sgf_bytes(data, move_number=move_number, name=path)

    def load_sgf_bytes(self, data, move_number=None, name="<sgf>"):
        new = Game.from_sgf_bytes(data, move_number=move_number, name=name,
                                  allow_suicide=self.allow_suicide, superko=self.superko)
        self.__dict__.update(new.__dict__)

    @classmethod
    def from_sgf_bytes(cls, data, move_number=None, name="<sgf>", **kw):
        from sgfmill import sgf
        if move_number is not None and move_number < 1:
            raise SgfError(f"move number must be at least 1, not {move_number}")
        if data.count(b";") > MAX_GAME_LENGTH + 1:      # before parsing: a node is a few hundred bytes in memory
            raise SgfError(f"cannot load file: {name} has more than {MAX_GAME_LENGTH} nodes "
                           f"(this engine holds games of at most {MAX_GAME_LENGTH} moves)")
        try:
            sg = sgf.Sgf_game.from_bytes(data)
        except ValueError as e:
            raise SgfError(f"cannot load file: {name} is not valid SGF ({e})") from None
        try:
            size = sg.get_size()
        except ValueError as e:
            raise SgfError(f"{name}: bad SZ property ({e})") from None
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise SgfError(f"{name}: board size {size} is not supported (2 to {MAX_SIZE})")
        try:
            komi = sg.get_komi()
        except ValueError:
            komi = 0.0
        game = cls(size=size, komi=komi, **kw)
        root = sg.get_root()
        try:
            handicap = sg.get_handicap() or 0
        except ValueError:
            handicap = 0
        n_moves = 0
        try:
            for i, node in enumerate(sg.get_main_sequence()):
                black, white, empty = node.get_setup_stones()
                if black or white or empty:
                    b = [coords.sgfmill_to_idx(rc, size) for rc in sorted(black)]
                    w = [coords.sgfmill_to_idx(rc, size) for rc in sorted(white)]
                    if empty:
                        game._setup_with_removal(b, w, [coords.sgfmill_to_idx(rc, size) for rc in empty])
                    else:
                        game.setup(b, w)
                if node.has_property("PL"):
                    game.to_move = BLACK if node.get("PL") == "b" else WHITE
                colour, mv = node.get_move()
                if colour is not None:
                    if move_number is not None and n_moves >= move_number - 1:
                        break
                    p = coords.sgfmill_to_idx(mv, size)
                    comment = node.get("C") if node.has_property("C") else None
                    try:
                        game.play(BLACK if colour == "b" else WHITE, p, comment=comment)
                    except IllegalMove as e:
                        raise SgfError(f"{name}: move {n_moves + 1} ({colour.upper()} "
                                       f"{coords.to_gtp(p, size)}) is illegal: {e.reason}") from None
                    n_moves += 1
                elif i == 0 and node.has_property("C"):
                    game.root_comment = node.get("C")
        except SgfError:
            raise
        except (ValueError, KeyError) as e:
            raise SgfError(f"{name}: unreadable node ({e})") from None
        game.handicap = handicap if handicap >= 2 else 0
        if root.has_property("RE"):
            try:
                game.result = root.get("RE")
            except ValueError:
                pass
        return game

    def _setup_with_removal(self, black, white, empty):
        """SGF AE: rebuild the position without the removed stones."""
        cur = self.board
        keep_b = [p for p in cur.stones(BLACK) if p not in empty and p not in white]
        keep_w = [p for p in cur.stones(WHITE) if p not in empty and p not in black]
        nb = Board(self.size, allow_suicide=self.allow_suicide, superko=self.superko)
        try:
            nb.setup(keep_b + [p for p in black if p not in keep_b], keep_w + [p for p in white if p not in keep_w])
        except IllegalMove as e:
            raise SgfError(f"setup stones form an illegal position ({e.reason})") from None
        nb.to_move = cur.to_move
        if not self.history:
            self._replace(nb)
            self.root_black = nb.stones(BLACK)
            self.root_white = nb.stones(WHITE)
        else:       # the removal is not in the entry: a snapshot keeps it
            self._push(Entry("setup", black=tuple(black), white=tuple(white)), nb, keep=True)

    # ----------------------------------------------------------- helpers
    def copy(self):
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g._kept = dict(self._kept)          # snapshots are never mutated in place
        g.history = [Entry(**e.__dict__) for e in self.history]
        g.root_black = list(self.root_black)
        g.root_white = list(self.root_white)
        g.properties = dict(self.properties)
        return g

    def __repr__(self):
        return (f"<Game {self.size}x{self.size} komi={self.komi} moves={self.move_number} "
                f"to_move={'BW'[self.to_move - 1]}>")


def _sgf_escape(text):
    return text.replace("\\", "\\\\").replace("]", "\\]")


