"""Matches between players over the ACF three-move ballot deck."""

from doublecorner.match.arena import GameRecord, play_game, run_match, score_of
from doublecorner.match.ballots import Ballot, three_move_deck
from doublecorner.match.clock import ClockReading, GameClock
from doublecorner.match.elo import MatchScore
from doublecorner.match.pentanomial import PairCounter, Pentanomial, pentanomial_of
from doublecorner.match.players import (
    EnginePlayer,
    ExternalEngine,
    Player,
    ProtocolPlayer,
    RandomPlayer,
    parse_engine,
    parse_player,
)
from doublecorner.match.sprt import SequentialTest, Sprt, Verdict, parse_sprt

__all__ = [
    "Ballot",
    "ClockReading",
    "EnginePlayer",
    "ExternalEngine",
    "GameClock",
    "GameRecord",
    "MatchScore",
    "PairCounter",
    "Pentanomial",
    "Player",
    "ProtocolPlayer",
    "RandomPlayer",
    "SequentialTest",
    "Sprt",
    "Verdict",
    "parse_engine",
    "parse_player",
    "parse_sprt",
    "pentanomial_of",
    "play_game",
    "run_match",
    "score_of",
    "three_move_deck",
]
