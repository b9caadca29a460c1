"""The leaderboard for any front end (`reviewer leaderboard`): every complete run's
top-1, MLA after the review and score on a slice (`reviewer.evaluation.leaderboard`),
read from one snapshot, and its trend plot drawn when asked.

The Analysis tab shows the same table as one section of the report
(`reviewer.app.report.build_report`, which scores it in the report's own snapshot).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from reviewer.project import Project

DEFAULT_SLICE = "imagenet_m"


@dataclass(frozen=True)
class Leaderboard:
    slice_name: str | None  # the slice every run is scored on
    table: pd.DataFrame  # one row per complete run, best slice score first (`reviewer.evaluation.leaderboard.COLUMNS`)
    has_slice: bool  # the project has a slice of that name (else the slice columns are empty)
    why_empty: str | None  # no run to rank: why, and what to do; None when the table has rows


@dataclass(frozen=True)
class Trend:
    """The trend plot of a leaderboard: whether it was drawn, and the runs it cannot place."""

    drawn: bool  # False (nothing written) when no run has both a full-set top-1 and a slice score
    off_trend: list[str]  # "model (#id)": runs over the slice only, of a model never run over the whole set


def leaderboard(project: Project, *, slice_name: str | None = DEFAULT_SLICE) -> Leaderboard:
    """Every complete run scored on the slice `slice_name`, from one snapshot."""
    from reviewer.evaluation.leaderboard import leaderboard as score_runs
    from reviewer.evaluation.leaderboard import why_empty
    from reviewer.evaluation.slices import slice_names

    with project.read() as session:
        table = score_runs(session=session, slice_name=slice_name)
        names = slice_names(session=session)
        empty = why_empty(session=session) if table.empty else None
    return Leaderboard(slice_name=slice_name, table=table, has_slice=slice_name in names, why_empty=empty)


def draw_trend(board: Leaderboard, path: str | Path) -> Trend:
    """The slice score against top-1 of `board`'s runs, as a PNG at `path`
    (`reviewer.analysis.plots.plot_trend`); UserError when the file cannot be written."""
    from reviewer.analysis.plots import plot_trend  # matplotlib: only when a plot is asked for
    from reviewer.errors import UserError
    from reviewer.evaluation.leaderboard import off_trend

    try:
        drawn = plot_trend(board.table, Path(path), slice_name=board.slice_name)
    except OSError as exc:
        raise UserError(f"could not write the plot {path}: {exc.strerror or exc}") from exc
    return Trend(drawn=drawn, off_trend=off_trend(board.table))
