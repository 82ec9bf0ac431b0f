"""BatchedGame: the same games as the single environments, and games Board accepts."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from doublecorner import Board, Move, Position
from doublecorner.envs import BatchedGame, DoubleCornerAEC, IllegalActionError
from doublecorner.envs.actions import InvalidActionError
from doublecorner.kernel import batch as kernel
from doublecorner.kernel import decode_path
from doublecorner.match.ballots import three_move_deck
from tests.conftest import positions

TERMINATIONS = {kernel.NO_MOVES: "no legal moves", kernel.FORTY_MOVE_RULE: "forty-move rule",
                kernel.THREEFOLD_REPETITION: "threefold repetition"}


def playable(position: Position) -> bool:
    return Board.from_position(position).outcome() is None


def compare_with_aec(fens: list[str] | None, seed: int, steps: int,
                     max_steps: int | None, games: int = 4) -> int:
    """Random actions in a batch and in one AEC environment per game; the games finished."""
    batch = BatchedGame(games, start=fens or "start", max_steps=max_steps,
                        autoreset="next-step", seed=seed)
    envs = [DoubleCornerAEC(max_steps=max_steps) for _ in range(games)]

    def reset(game: int) -> None:
        envs[game].reset(options={"fen": fens[game % len(fens)]} if fens else None)

    for game in range(games):
        reset(game)
    observations, masks = batch.observations, batch.action_masks
    finished = 0
    for step in range(steps):
        for game, env in enumerate(envs):
            seen = env.observe(env.agent_selection)
            assert np.array_equal(seen["action_mask"], masks[game]), (step, game)
            assert np.array_equal(seen["observation"], observations[game]), (step, game)
        over = batch._state[:, kernel.ENDED].astype(bool)
        actions = batch.random_actions().copy()
        observations, masks, rewards, terminated, truncated = batch.step(actions)
        for game, env in enumerate(envs):
            if over[game]:
                reset(game)
                assert not terminated[game] and not truncated[game]
                assert rewards[game].tolist() == [0.0, 0.0]
                continue
            env.step(int(actions[game]))
            assert rewards[game].tolist() == [env.rewards["player_0"], env.rewards["player_1"]]
            assert terminated[game] == env.terminations["player_0"], (step, game)
            assert truncated[game] == env.truncations["player_0"], (step, game)
            if terminated[game] or truncated[game]:
                finished += 1
                info = env.infos["player_0"]
                reason = batch.end_reason(game)
                assert reason == info.get("termination", "step cap"), (reason, info)
    return finished


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 7, 60]))
def test_games_from_the_start_are_the_aec_environments_games(seed: int,
                                                             max_steps: int | None) -> None:
    compare_with_aec(None, seed, steps=200, max_steps=max_steps)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(positions().filter(playable), min_size=1, max_size=3),
       st.integers(0, 2**32 - 1))
def test_games_from_any_position_are_the_aec_environments_games(
        starts: list[Position], seed: int) -> None:
    compare_with_aec([position.fen() for position in starts], seed, steps=120,
                     max_steps=None)


def test_kings_that_shuffle_draw_by_repetition_and_the_forty_move_rule() -> None:
    # Few pieces, all kings: random play ends in both draws; the AEC games agree.
    finished = compare_with_aec(["B:WK29,K30:BK3,K4", "W:WK18:BK3,K10"], seed=3, steps=1500,
                                max_steps=None, games=6)
    assert finished >= 6


def test_thousands_of_batched_games_replay_legally_on_board() -> None:
    games = 64
    batch = BatchedGame(games, seed=11)
    boards = [Board() for _ in range(games)]
    finished = 0
    reasons: set[int] = set()
    while finished < 1000:
        batch.step(batch.random_actions())
        for game in np.flatnonzero(batch.last_moves >= 0).tolist():
            board = boards[game]
            board.push(Move(*decode_path(int(batch.last_moves[game]))))  # raises if illegal
            end = int(batch.ends[game])
            if end:
                # The batch is the referee: it claims a draw by the rules on the board.
                outcome = board.outcome(claim_draw=True)
                assert outcome is not None and outcome.termination.value == TERMINATIONS[end]
                reasons.add(end)
                finished += 1
                boards[game] = Board()
            else:
                assert board.outcome(claim_draw=True) is None
                assert board.fen() == batch.fen(game)
    assert reasons == set(TERMINATIONS)


def test_deck_openings_and_same_step_reset() -> None:
    batch = BatchedGame(8, start="deck", seed=5)
    batch.reset()
    deck_fens = {ballot.board().fen() for ballot in three_move_deck()}
    assert {batch.fen(game) for game in range(8)} <= deck_fens
    ended = 0
    for _ in range(400):
        _, masks, _, terminated, truncated = batch.step(batch.random_actions())
        ended += int((terminated | truncated).sum())
        assert masks.sum(axis=1).min() > 0  # same step: a game is never left without actions
    assert ended > 0


def test_the_same_seed_gives_the_same_games_with_one_thread_or_two() -> None:
    one, two = BatchedGame(10, seed=9, start="deck"), BatchedGame(10, seed=9, start="deck",
                                                                  threads=2)
    for _ in range(300):
        first = one.step(one.random_actions())
        second = two.step(two.random_actions())
        for a, b in zip(first, second, strict=True):
            assert np.array_equal(a, b)
    two.close()


def test_an_illegal_action_raises_and_changes_nothing_or_loses() -> None:
    batch = BatchedGame(3, seed=0)
    before = batch.observations.copy(), batch.fen(1)
    actions = np.array([40, 0, 40])
    with pytest.raises(IllegalActionError, match="illegal action 0 in game 1"):
        batch.step(actions)
    assert np.array_equal(batch.observations, before[0]) and batch.fen(1) == before[1]
    with pytest.raises(InvalidActionError):
        batch.step(np.array([40, 128, 40]))
    with pytest.raises(InvalidActionError):
        batch.step(np.array([40, 40]))
    losing = BatchedGame(3, seed=0, illegal_action="lose")
    _, _, rewards, terminated, _ = losing.step(actions)
    assert terminated.tolist() == [False, True, False]
    assert rewards[1].tolist() == [-1.0, 1.0]
    assert losing.end_reason(1) == "illegal action"


def test_starts_that_are_over_or_invalid_options_are_refused() -> None:
    with pytest.raises(ValueError, match="game is over"):
        BatchedGame(2, start=["B:W10:B"])  # Black to move has no piece
    with pytest.raises(ValueError, match="opponent's first move"):
        BatchedGame(1, start=["W:W14:B10"], opponent="random", play_as="black")
    for options in ({"autoreset": "never"}, {"illegal_action": "skip"}, {"opponent": "x"},
                    {"threads": 0}, {"max_steps": 0}, {"start": "middle"}):
        with pytest.raises(ValueError):
            BatchedGame(1, **options)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        BatchedGame(0)


def test_memory_per_game_is_under_three_kilobytes() -> None:
    batch = BatchedGame(100)
    assert batch.nbytes / 100 < 3000


def test_the_kernel_runs_the_same_without_jit() -> None:
    code = ("import numpy as np\n"
            "from doublecorner.envs import BatchedGame\n"
            "batch = BatchedGame(6, seed=2, start='deck')\n"
            "total = 0.0\n"
            "for _ in range(60):\n"
            "    observations, masks, rewards, *_ = batch.step(batch.random_actions())\n"
            "    total += float(observations.sum()) + int(masks.sum()) + float(rewards.sum())\n"
            "print(total, batch.fen(0), batch.fen(5))\n")
    results = []
    for disable in ("1", "0"):
        environment = dict(os.environ, NUMBA_DISABLE_JIT=disable)
        completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                   env=environment, timeout=300, check=False)
        assert completed.returncode == 0, completed.stderr
        results.append(completed.stdout.strip())
    assert results[0] == results[1]


def test_outputs_go_into_the_callers_buffers() -> None:
    observations = np.ones((3, 8, 8, 8), dtype=np.float32)
    masks = np.zeros((3, 128), dtype=np.int8)
    batch = BatchedGame(3, seed=0, observations=observations, action_masks=masks)
    batch.step(batch.random_actions())
    assert batch.observations is observations and batch.action_masks is masks
    assert masks.sum() > 0 and observations[:, :, :, 0].sum() == 3 * 12
    with pytest.raises(ValueError, match="invalid rewards buffer"):
        BatchedGame(3, rewards=np.zeros((3, 2)))  # float64
    with pytest.raises(ValueError, match="invalid terminated buffer"):
        BatchedGame(3, terminated=np.zeros(6, dtype=bool)[::2])
