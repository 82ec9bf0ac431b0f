"""A game database on SQLite: games imported from PDN, and a position explorer.

Every position of every game's main line is indexed by its 64-bit Zobrist
key, so that the games that reached a position, by any order of moves, and
the moves played there are found without reading any game. Identical games
are stored once; an import can be interrupted and run again.

>>> import io, pathlib, tempfile
>>> from doublecorner import Board
>>> from doublecorner.db import GameDatabase, GameQuery
>>> text = '''[Black "Ann"]
... [White "Bob"]
... [Date "2026.11.30"]
... 1. 11-15 23-19 2. 9-14 22-17 1/2-1/2
...
... [Black "Cy"]
... 1. 9-14 22-17 2. 11-15 23-19 1-0
... '''
>>> with tempfile.TemporaryDirectory() as folder:
...     path = pathlib.Path(folder) / "games.pdn"
...     _ = path.write_text(text)
...     with GameDatabase(pathlib.Path(folder) / "games.sqlite3") as database:
...         summary = database.import_files([path])
...         board = Board()
...         for move in ("11-15", "23-19", "9-14", "22-17"):
...             _ = board.push_str(move)
...         found = database.explore(board)
...         ann = database.search(GameQuery(player="ann"))
>>> summary.imported, found.games  # the two games transpose
(2, 2)
>>> [(game.black, game.result) for game in ann]
[('Ann', '1/2-1/2')]
"""

from doublecorner.db.database import GameDatabase
from doublecorner.db.explorer import Exploration, MoveStats
from doublecorner.db.importer import ImportProgress, ImportSummary
from doublecorner.db.records import GameSummary
from doublecorner.db.schema import default_db_path
from doublecorner.db.search import GameQuery, StoredGame
from doublecorner.errors import GameDatabaseError

__all__ = [
    "Exploration",
    "GameDatabase",
    "GameDatabaseError",
    "GameQuery",
    "GameSummary",
    "ImportProgress",
    "ImportSummary",
    "MoveStats",
    "StoredGame",
    "default_db_path",
]
