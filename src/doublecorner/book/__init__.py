"""Opening books: for positions of the opening, the moves to play and how much each weighs.

A book file (docs/book.md) holds fixed-size entries sorted by the
position's 64-bit Zobrist key, the key the engine and the game database
use; a position's moves are found by binary search. Books are built from a
game database (:func:`build_book`, moves weighted by how they scored) and
checked or extended with the engine (:mod:`doublecorner.book.deepen`);
``Engine(book=...)`` plays from one.

>>> import pathlib, random, tempfile
>>> from doublecorner import Board
>>> from doublecorner.db import GameDatabase
>>> games = "1. 11-15 23-19 1-0\\n\\n1. 11-15 22-18 1/2-1/2\\n\\n1. 9-14 22-18 0-1\\n"
>>> with tempfile.TemporaryDirectory() as folder:
...     _ = (pathlib.Path(folder) / "games.pdn").write_text(games)
...     with GameDatabase(pathlib.Path(folder) / "games.sqlite3") as database:
...         _ = database.import_files([pathlib.Path(folder) / "games.pdn"])
...         built = build_book(database, min_games=1)
...     built.write(pathlib.Path(folder) / "games.book")
...     book = Book.open(pathlib.Path(folder) / "games.book")
>>> [(str(entry.move), entry.weight, entry.wins, entry.draws, entry.losses)
...  for entry in book.entries(Board())]
[('11-15', 3, 1, 1, 0), ('9-14', 0, 0, 0, 1)]
>>> str(book.choose(Board(), random.Random(7)).move)
'11-15'
"""

from doublecorner.book.builder import BuildProgress, build_book
from doublecorner.book.reader import Book, BookEntry
from doublecorner.errors import BookError

__all__ = ["Book", "BookEntry", "BookError", "BuildProgress", "build_book"]
