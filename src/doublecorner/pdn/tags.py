"""The standard tags and results of PDN for English draughts: shared by tree, reader and writer.

>>> SEVEN_TAG_ROSTER[0], GAME_TYPE, RESULTS[0]
('Event', '21', '1-0')
"""

SEVEN_TAG_ROSTER = ("Event", "Site", "Date", "Round", "Black", "White", "Result")
GAME_TYPE = "21"  # English draughts; under it "1-0" is a win for Black, who moves first
UNKNOWN_DATE = "????.??.??"
# What can end a game's moves: the four PDN results, and the scores of games
# counted out of two (other draughts games) that a reader meets in mixed files.
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
TWO_POINT_RESULTS = ("2-0", "0-2", "1-1", "0-0")
