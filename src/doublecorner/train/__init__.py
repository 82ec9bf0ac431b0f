"""Training the engine's neural evaluation: self-play data, fitting, export.

The pipeline, each step a ``doublecorner train`` command:

1. :mod:`.selfplay` plays games from the ACF deck (plus a few random plies)
   with the compiled engine and writes every searched position as numpy
   shards: the position, the search's score, the game's result, and the
   endgame tables' value where they hold the position.
2. :mod:`.dataset` turns shards into network inputs and targets (a blend of
   the result and the search score; the tables' value where known).
3. :mod:`.fit` trains the network in numpy (hand-written Adam, seeded, a
   held-out validation set, early stopping) and exports the weights file that
   :mod:`doublecorner.engine.network` loads.

Nothing outside this package imports it; inference never needs it.
"""
