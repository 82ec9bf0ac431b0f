"""The web app behind ``doublecorner serve``: a JSON API, a live analysis stream and a page.

Needs the ``web`` extra (``pip install '.[web]'``). The modules,
from the bottom up: :mod:`~doublecorner.web.record` (what is kept of a game),
:mod:`~doublecorner.web.store` (SQLite), :mod:`~doublecorner.web.state` (a
record replayed on a board), :mod:`~doublecorner.web.pdn_games` (PDN out and
in), :mod:`~doublecorner.web.engine_pool` (searches off the event loop),
:mod:`~doublecorner.web.games` (the game service: rules, players, engine
replies), :mod:`~doublecorner.web.schemas` (the JSON bodies),
:mod:`~doublecorner.web.analysis_ws` (the analysis stream) and
:mod:`~doublecorner.web.app` (the FastAPI app, ``create_app``). The page
itself is in ``static/``. Nothing here is imported by the rest of the package.
"""
