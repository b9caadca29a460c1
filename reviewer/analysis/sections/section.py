"""One section of the report: a title, a text, tables of strings, plots and warnings,
as `reviewer.analysis.render` writes it and the GUI's Analysis view shows it (a tab)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class Section:
    title: str
    text: str = ""
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)  # (caption, cells as strings)
    images: list[str] = field(default_factory=list)  # PNG names in the report folder
    short: str = ""  # a tab's title in the GUI
    warnings: list[str] = field(default_factory=list)  # shown before the text, marked
    empty: str = ""  # why there is no table or plot yet, said where they would be
    # A plot of one run's (a reliability diagram): its PNG name -> the run. A window with many runs
    # shows the chosen model's; `runs_not_drawn` are the runs whose plot was left out (`plot_runs`).
    image_runs: dict[str, int] = field(default_factory=dict)
    runs_not_drawn: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.short = self.short or self.title
