"""Whole-game analysis: scores per move, judgements, annotations, the plot, the command."""

from __future__ import annotations

import io
import itertools
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from doublecorner import Color, Move
from doublecorner.analysis import (
    Judgement,
    MoveAnalysis,
    analyse_game,
    annotate,
    evaluation_plot,
    summary,
)
from doublecorner.cli import main
from doublecorner.engine import Engine, Limit, Score
from doublecorner.kernel.scores import MATE
from doublecorner.pdn import Game, iter_games, nags, read_game

# An opening played out, with White's man taken and retaken.
QUIET_GAME = """[Event "test"]
[Black "A"]
[White "B"]
[Result "*"]

1. 11-15 23-19 2. 8-11 22-18 3. 15x22 25x18 4. 9-14 18x9 5. 5x14 *
"""


def analysed(text: str, depth: int = 6) -> tuple[Game, list[MoveAnalysis]]:
    game = read_game(io.StringIO(text))
    assert game is not None and not game.errors
    return game, analyse_game(game, Engine(hash_mb=4), Limit(depth=depth))


def judged(before: int, after: int) -> Judgement | None:
    return MoveAnalysis(1, Color.BLACK, Move(11, 15), None, Score(before), Score(after),
                        1).judgement


def test_every_move_gets_the_scores_before_and_after_for_its_mover() -> None:
    game, analyses = analysed(QUIET_GAME)
    assert [analysis.move for analysis in analyses] == game.mainline_moves()
    assert [analysis.mover for analysis in analyses] == [Color.BLACK, Color.WHITE] * 4 + [
        Color.BLACK]
    for analysis, following in itertools.pairwise(analyses):
        assert following.before == -analysis.after  # one search per position


# Black's king steps next to White's man, which takes it: 10-15 throws away a king.
KING_LOST = '[FEN "B:W18,27:BK10,1"]\n\n1. 10-15 18x11 *\n'


def test_a_king_given_away_is_a_blunder() -> None:
    _, analyses = analysed(KING_LOST)
    assert [analysis.judgement for analysis in analyses] == [Judgement.BLUNDER, None]
    assert analyses[0].loss >= 300 and analyses[0].best is not None


@pytest.mark.parametrize(("before", "after", "expected"), [
    (0, -40, None),
    (0, -50, Judgement.INACCURACY),
    (20, -80, Judgement.MISTAKE),
    (100, -200, Judgement.BLUNDER),
    (MATE - 9, 300, Judgement.BLUNDER),  # a win thrown away, though still ahead
    (0, -(MATE - 7), Judgement.BLUNDER),  # a draw thrown into a loss
    (MATE - 9, MATE - 15, None),  # only a longer road to the same win
    (-(MATE - 8), -(MATE - 4), None),  # lost either way
])
def test_thresholds(before: int, after: int, expected: Judgement | None) -> None:
    assert judged(before, after) is expected


def test_annotations_add_scores_best_moves_and_judgement_nags() -> None:
    game, analyses = analysed(KING_LOST)
    annotate(game, analyses)
    nodes = list(game.mainline())
    assert all(node.comment.startswith("[") for node in nodes)
    assert "best" in nodes[0].comment
    assert nodes[0].nags == {Judgement.BLUNDER.value} and not nodes[1].nags
    again = read_game(io.StringIO(str(game)))  # the annotated game reads back
    assert again is not None and not again.errors
    assert [node.comment for node in again.mainline()] == [node.comment for node in nodes]
    assert summary(analyses)["Black"]["blunder"] == 1
    assert again.mainline_moves() == game.mainline_moves()


def test_the_plot_is_an_svg_or_png_file(tmp_path: Path) -> None:
    _, analyses = analysed(QUIET_GAME, depth=4)
    svg_path, png_path = tmp_path / "eval.svg", tmp_path / "eval.png"
    evaluation_plot(analyses, svg_path, title="A - B")
    evaluation_plot(analyses, png_path)
    assert ElementTree.parse(svg_path).getroot().tag.endswith("svg")
    assert png_path.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ValueError, match=r"must end in \.svg or \.png"):
        evaluation_plot(analyses, tmp_path / "eval.gif")


def test_the_command_annotates_every_game_and_plots_each(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "games.pdn"
    source.write_text(QUIET_GAME + "\n" + QUIET_GAME.replace('"A"', '"C"'))
    output, plot = tmp_path / "out.pdn", tmp_path / "eval.svg"
    status = main(["analyse", str(source), "--depth", "4", "-o", str(output), "--plot", str(plot)])
    err = capsys.readouterr().err
    assert status == 0
    games = list(iter_games(output))
    assert [game.headers["Black"] for game in games] == ["A", "C"]
    assert all("best" in "".join(n.comment for n in game.mainline()) for game in games)
    assert (tmp_path / "eval-1.svg").is_file() and (tmp_path / "eval-2.svg").is_file()
    assert "game 2: 9/9 moves analysed" in err


@pytest.mark.parametrize(("extra", "message"), [
    (["--plot", "eval.gif"], "--plot must name an .svg or .png file"),
    (["--json"], "--json applies to a FEN"),
])
def test_the_command_rejects_options_that_do_not_fit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
        message: str) -> None:
    source = tmp_path / "games.pdn"
    source.write_text(QUIET_GAME)
    assert main(["analyse", str(source), "--depth", "2", *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_pdn_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "no-such-file.pdn"]) == 2
    assert "no such PDN file: 'no-such-file.pdn'" in capsys.readouterr().err


def test_plot_options_need_a_pdn_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyse", "--depth", "2", "--plot", "x.svg"]) == 2
    assert "need a PDN file" in capsys.readouterr().err


# -- forced moves, marks with a better move, one side's view (issue 15) ------------------------


def test_a_forced_move_is_never_marked() -> None:
    loss = MoveAnalysis(1, Color.BLACK, Move(11, 15), Move(11, 15), Score(0), Score(-900), 1,
                        forced=True)
    assert loss.judgement is None
    _, analyses = analysed(KING_LOST)
    assert [analysis.forced for analysis in analyses] == [False, True]  # 18x11 is the only move


def test_the_engine_s_own_move_is_never_marked() -> None:
    same = MoveAnalysis(1, Color.BLACK, Move(11, 15), Move(11, 15), Score(0), Score(-200), 1)
    assert same.judgement is None
    other = MoveAnalysis(1, Color.BLACK, Move(11, 15), Move(9, 13), Score(0), Score(-200), 1)
    assert other.judgement is Judgement.MISTAKE


def test_comments_give_the_scores_from_black_s_side() -> None:
    game, analyses = analysed(QUIET_GAME, depth=4)
    annotate(game, analyses)
    assert game.headers["Annotator"] == "doublecorner (scores for Black)"
    for node, analysis in zip(game.mainline(), analyses, strict=True):
        black_view = analysis.after if analysis.mover is Color.BLACK else -analysis.after
        assert node.comment.startswith(f"[{black_view}")
        if analysis.judgement is not None:
            assert "; best " in node.comment  # a mark always names the better move


def test_the_summary_counts_in_words() -> None:
    from doublecorner.cli.game_analysis import summary_line

    blunder = MoveAnalysis(1, Color.BLACK, Move(11, 15), Move(9, 13), Score(0), Score(-400), 1)
    slip = MoveAnalysis(2, Color.WHITE, Move(22, 18), Move(23, 19), Score(0), Score(-60), 1)
    assert summary_line([blunder, slip, slip]) == (
        "3 plies analysed (scores for Black); Black: 1 blunder; White: 2 inaccuracies")


# -- what a file name that is no file is told (issue 27) ---------------------------------------


def test_a_missing_file_of_any_name_is_not_called_an_invalid_fen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "club").mkdir()
    for argument, message in (("games.txt", "no such PDN file: 'games.txt'"),
                              ("club/games", "no such PDN file: 'club/games'"),
                              ("club", "'club' is a folder, not a PDN file"),
                              ("/dev/null", "'/dev/null' is not a regular file, not a PDN file")):
        assert main(["analyse", argument, "--depth", "2"]) == 2, argument
        assert capsys.readouterr().err == f"doublecorner: error: {message}\n"
    assert main(["analyse", "B:W99:B1", "--depth", "2"]) == 2  # a FEN is still read as one
    assert "invalid FEN" in capsys.readouterr().err


def test_the_game_s_own_marks_and_comments_stay_beside_the_engine_s(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``analyse GAME.pdn`` kept comments but dropped a ``?!`` of the game's (issue 27)."""
    source = tmp_path / "game.pdn"
    source.write_text('[FEN "B:W18,27:BK10,1"]\n\n1. 10-15?! {a comment} 18x11 $14 {forced} *\n')
    assert main(["analyse", str(source), "--depth", "4", "-o", str(tmp_path / "out.pdn")]) == 0
    capsys.readouterr()
    (game,) = iter_games(tmp_path / "out.pdn")
    first, second = game.mainline()
    assert first.nags == {nags.DUBIOUS_MOVE}  # the game's mark; the engine's is in words
    assert first.comment.startswith("a comment [") and first.comment.endswith("; blunder (??)]")
    assert second.nags == {14} and second.comment.startswith("forced [")
    assert "10-15?! {a comment [" in (tmp_path / "out.pdn").read_text()


def test_a_move_without_a_mark_of_its_own_gets_the_engine_s_as_its_nag() -> None:
    game, analyses = analysed(KING_LOST.replace("10-15", "10-15 $14 {mine}"))
    annotate(game, analyses)
    first = next(iter(game.mainline()))
    assert first.nags == {14, Judgement.BLUNDER.value}
    assert first.comment.startswith("mine [") and "blunder" not in first.comment
