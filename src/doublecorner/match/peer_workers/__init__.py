"""Peer programs for ``doublecorner match``: standalone scripts, not part of the library.

Each file here is a complete program that a peer's own interpreter runs as
``python path/to/file.py`` (the peers are not dependencies of this package:
each lives in its own virtualenv, where ``doublecorner`` is not installed). The
programs speak one line protocol on stdin and stdout:

``dcp`` (answered with ``id name ...`` and ``dcpok``), ``isready``
(``readyok``), ``newgame``, ``position fen FEN [moves ...]``, ``go movetime MS``
(``bestmove 11-15``, ``bestmove 9x18x27`` or ``bestmove none``) and ``quit``;
anything else is answered with ``error <message>``.

* ``pydraughts_engine.py`` -- py-draughts' alpha-beta ``SimpleEngine``, with
  captures made compulsory and Black moving first.
* ``openspiel_mcts.py`` -- OpenSpiel's checkers with its C++ MCTS bot; it can
  only replay games from the standard start position.
* ``protocol.py`` -- the protocol loop both programs share; it must sit beside
  them, as it does in the installed package.

Nothing in the package imports them; at module level they import only the
standard library and ``protocol``, so that the package's test run and type
check can read them in an interpreter without the peers' libraries.
"""
