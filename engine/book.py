"""An opening book built by the engine itself (``python -m tools.book``),
as Fuego and Pachi ship theirs: positions of the opening tree, each with
the candidates a deep search found (visits, win rate), stored once per
symmetry class (the eight symmetries of the square board), for one board
size, komi and rule set.

``Book.load(path)`` reads a book file (JSON: ``size``, ``komi``, ``rules``,
``playouts`` and ``positions``, a map from a position's canonical key to
its ``[[move, visits, winrate], ...]`` in the canonical orientation);
``Book.lookup(board, komi, rules)`` gives the book's candidates for a
position in the board's own orientation, or None when the position, the
komi or the rules are not the book's.  The Player plays the most visited
candidate while the game is in the book (``player.book``).
"""
from __future__ import annotations

import json
import logging
import os

from engine import coords

log = logging.getLogger("gomcts.player")

class BookError(ValueError):
    """A book file that cannot be read (the message names the file)."""


def _sym(k, x, y, n):
    """Symmetry k (0..7) of the square board on (x, y)."""
    if k & 4:
        x, y = y, x
    if k & 1:
        x = n - 1 - x
    if k & 2:
        y = n - 1 - y
    return x, y


def symmetries(n):
    """For each symmetry k, the flat point each flat point goes to."""
    return [[_sym(k, p % n, p // n, n)[1] * n + _sym(k, p % n, p // n, n)[0] for p in range(n * n)]
            for k in range(8)]


def canonical(board):
    """(key, k): the position's key in its canonical orientation (the least
    of its eight symmetric images: stones and the side to move) and the
    symmetry k that maps the board onto it."""
    n = board.size
    colors = board.colors()
    best, best_k = None, 0
    for k, perm in enumerate(symmetries(n)):
        grid = ["."] * (n * n)
        for p in range(n * n):
            if colors[p]:
                grid[perm[p]] = ".XO"[colors[p]]
        key = "".join(grid) + "BW"[board.to_move - 1]
        if best is None or key < best:
            best, best_k = key, k
    return best, best_k


class Book:
    """An opening book: ``positions`` maps a canonical key to its
    candidates [(flat move in the canonical orientation, visits, win rate
    of the side to move)], most visited first."""

    def __init__(self, size, komi, rules="chinese", playouts=0, positions=None):
        self.size = size
        self.komi = float(komi)
        self.rules = rules
        self.playouts = playouts
        self.positions = positions if positions is not None else {}
        self._perm = symmetries(size)

    @classmethod
    def load(cls, path):
        try:
            with open(path, encoding="utf-8") as fh:
                d = json.load(fh)
            size = int(d["size"])
            book = cls(size, float(d["komi"]), d.get("rules", "chinese"), int(d.get("playouts", 0)))
            nn = size * size
            for key, cands in d["positions"].items():
                if len(key) != nn + 1:
                    raise ValueError(f"a key of {len(key)} characters on {size}x{size}")
                book.positions[key] = [(coords.from_gtp(m, size), int(v), float(w)) for m, v, w in cands]
        except (OSError, ValueError, KeyError, TypeError, coords.BadVertex) as e:
            raise BookError(f"{path}: not an opening book ({e})") from None
        return book

    def to_json(self):
        n = self.size
        pos = {k: [[coords.to_gtp(m, n), v, round(w, 4)] for m, v, w in c] for k, c in sorted(self.positions.items())}
        return json.dumps({"size": n, "komi": self.komi, "rules": self.rules, "playouts": self.playouts,
                           "positions": pos}, indent=0, sort_keys=True) + "\n"

    def add(self, board, candidates):
        """Store a searched position: ``candidates`` [(flat move in the
        board's orientation, visits, win rate)]."""
        key, k = canonical(board)
        perm, nn = self._perm[k], self.size * self.size
        self.positions[key] = sorted(((perm[m] if m < nn else nn, int(v), round(float(w), 4)) for m, v, w in candidates),
                                     key=lambda c: -c[1])

    def __contains__(self, board):
        return canonical(board)[0] in self.positions

    def lookup(self, board, komi, rules="chinese"):
        """The candidates [(flat move, visits, win rate)] for ``board`` in
        its own orientation, most visited first; None when not in the book
        (another size, komi or rule set, or a position it does not hold)."""
        if board.size != self.size or float(komi) != self.komi or rules != self.rules:
            return None
        key, k = canonical(board)
        cands = self.positions.get(key)
        if not cands:
            return None
        perm, nn = self._perm[k], self.size * self.size
        inverse = {q: p for p, q in enumerate(perm)}
        return [(inverse[m] if m < nn else nn, v, w) for m, v, w in cands]

    def __len__(self):
        return len(self.positions)


class Shelf:
    """The books a Player reads: each file loaded once (None where there is
    none, or it does not parse, or is for another size: logged with the
    reason), and the move for a position."""

    def __init__(self):
        self._books = {}                 # path -> Book or None (unreadable)
        self._refused = set()            # (book komi, game komi, rules) already logged
        self._other_size = set()         # (path, board size) already logged

    def get(self, path, size, must_exist=False):
        """The book at ``path`` for a ``size`` board, or None.  A file is read
        once; a book for another size is passed over for that board only (the
        engine starts on 19x19 before a controller's ``boardsize 9``)."""
        if path not in self._books:
            book = None
            if os.path.exists(path) or must_exist:
                try:
                    book = Book.load(path)
                except BookError as e:
                    log.warning("%s; playing without a book", e)
            self._books[path] = book
        book = self._books[path]
        if book is not None and book.size != size:
            if (path, size) not in self._other_size:
                self._other_size.add((path, size))
                log.info("%s is a %dx%d book, the board is %dx%d; playing without it",
                         path, book.size, book.size, size, size)
            return None
        return book

    def move(self, book, board, komi, rules, avoid=()):
        """The book's most visited legal move for ``board`` (not one to
        avoid), or None: no entry, or a book for another komi or rule set
        (logged once)."""
        if (book.komi, book.rules) != (komi, rules):
            if (book.komi, komi, rules) not in self._refused:
                self._refused.add((book.komi, komi, rules))
                log.info("the opening book is for komi %g and %s rules, the game has komi %g and %s: "
                         "not used", book.komi, book.rules, komi, rules)
            return None
        for m, _v, _w in book.lookup(board, komi, rules) or ():
            if m not in avoid and (m == board.pass_move or board.is_legal(m)):
                return m
        return None
