"""Matches between players over the ACF three-move ballot deck."""

from doublecorner.match.arena import GameRecord, play_game, run_match, score_of
from doublecorner.match.ballots import Ballot, three_move_deck
from doublecorner.match.elo import MatchScore
from doublecorner.match.players import (
    EnginePlayer,
    Player,
    ProtocolPlayer,
    RandomPlayer,
    parse_player,
)

__all__ = [
    "Ballot",
    "EnginePlayer",
    "GameRecord",
    "MatchScore",
    "Player",
    "ProtocolPlayer",
    "RandomPlayer",
    "parse_player",
    "play_game",
    "run_match",
    "score_of",
    "three_move_deck",
]
