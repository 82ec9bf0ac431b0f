"""The evaluation plot: the score over a game, from Black's side, as SVG or PNG.

matplotlib comes with the ``plot`` extra and is imported only when a plot
is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from doublecorner.analysis.game import PLOT_LIMIT, Judgement, MoveAnalysis, black_view

PLOT_LEAST = 1.0  # men: the vertical range at least, so that a level game is not all noise


def evaluation_plot(analyses: Sequence[MoveAnalysis], path: Path, *, title: str = "") -> None:
    """Draw the score after every move, from Black's side, to ``path`` (.svg or .png).

    Blunders and mistakes are marked on the curve.

    :raises ValueError: ``path`` is neither .svg nor .png.
    :raises ImportError: matplotlib is not installed (``pip install '.[plot]'``).
    """
    if path.suffix.lower() not in {".svg", ".png"}:
        raise ValueError(f"plot file must end in .svg or .png, not {path.name!r}")
    try:
        import matplotlib
    except ImportError:
        raise ImportError("the evaluation plot needs matplotlib: "
                          "pip install '.[plot]' in doublecorner's folder") from None
    matplotlib.use("Agg")  # files only: no display is needed or wanted
    from matplotlib import pyplot

    plies = [0, *(analysis.ply for analysis in analyses)]
    first = black_view(analyses[0].before, analyses[0].mover) if analyses else 0.0
    values = [first, *(analysis.black_score() for analysis in analyses)]
    figure, axes = pyplot.subplots(figsize=(8, 3))
    try:
        axes.axhline(0, color="#888888", linewidth=0.8)
        axes.fill_between(plies, values, 0, where=[v >= 0 for v in values], color="#b22222",
                          alpha=0.35, step=None, interpolate=True, label="Black better")
        axes.fill_between(plies, values, 0, where=[v <= 0 for v in values], color="#4a6fa5",
                          alpha=0.35, interpolate=True, label="White better")
        axes.plot(plies, values, color="#222222", linewidth=1.2)
        for judgement, marker, colour in ((Judgement.BLUNDER, "v", "#d00000"),
                                          (Judgement.MISTAKE, "o", "#e08000")):
            marked = [(a.ply, a.black_score()) for a in analyses if a.judgement is judgement]
            if marked:
                axes.scatter(*zip(*marked, strict=True), marker=marker, color=colour, zorder=3,
                             label=judgement.name.lower())
        axes.set_xlim(0, max(plies[-1], 1))
        reach = min(PLOT_LIMIT, max(PLOT_LEAST, *(abs(value) for value in values)) * 1.1)
        axes.set_ylim(-reach, reach)
        axes.set_xlabel("ply")
        axes.set_ylabel("score for Black (men)")
        if title:
            axes.set_title(title)
        axes.legend(loc="upper left", fontsize="small", ncol=4, frameon=False)
        figure.tight_layout()
        figure.savefig(path, metadata={"Date": None} if path.suffix.lower() == ".svg" else None)
    finally:
        pyplot.close(figure)
