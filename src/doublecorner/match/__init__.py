"""Matches between players over the ACF three-move ballot deck."""

from doublecorner.match.arena import GameRecord, play_game, run_match, score_of
from doublecorner.match.ballots import Ballot, three_move_deck
from doublecorner.match.elo import MatchScore
from doublecorner.match.players import (
    EnginePlayer,
    ExternalEngine,
    Player,
    ProtocolPlayer,
    RandomPlayer,
    parse_engine,
    parse_player,
)

__all__ = [
    "Ballot",
    "EnginePlayer",
    "ExternalEngine",
    "GameRecord",
    "MatchScore",
    "Player",
    "ProtocolPlayer",
    "RandomPlayer",
    "parse_engine",
    "parse_player",
    "play_game",
    "run_match",
    "score_of",
    "three_move_deck",
]
