"""Training the engine's neural evaluation: self-play data, fitting, export.

The pipeline, each step a ``doublecorner train`` command:

1. :mod:`.selfplay` plays games from the ACF deck (plus a few random plies)
   with the compiled engine and keeps each game as a compact record
   (:mod:`.records`: the start, the moves, the search's scores, the result):
   the data kept in the repository, beside the networks it trained.
2. :mod:`.positions` rebuilds every searched position from the records, with
   the endgame tables' value where the tables given hold it; :mod:`.dataset`
   turns them into network inputs and targets (a blend of the result and the
   search score; the tables' value where known).
3. :mod:`.fit` trains the network in numpy (hand-written Adam, seeded, a
   held-out validation set, early stopping) and exports the weights file that
   :mod:`doublecorner.engine.network` loads.

Nothing outside this package imports it; inference never needs it.
"""
