"""Score constants shared by the evaluation, the search and the transposition table.

Scores are hundredths of a man for the side to move. A side with no legal move
at ply ``p`` of the search scores ``-(MATE - p)``, so the nearer win scores
higher and ``MATE - abs(score)`` is the distance to the end in plies.
"""

MATE = 30000
MAX_PLY = 128  # the longest line the search follows
MATE_BOUND = MATE - 2 * MAX_PLY  # scores beyond this are wins or losses
INFINITE = MATE + 1
FORTY_MOVE_PLIES = 80  # the 40-move rule: 40 moves by each side
# A win the endgame tables prove, found at ply p, scores TABLE_WIN - p: below
# every counted win, above every evaluation. Scores beyond TABLE_BOUND are
# known wins or losses, counted or not.
TABLE_WIN = MATE_BOUND - 1
TABLE_BOUND = TABLE_WIN - 2 * MAX_PLY
