"""One section of the report (a title, a text, tables of strings, plots, warnings) and
how its figures are written: every share with its count and denominator."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

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

    def __post_init__(self) -> None:
        self.short = self.short or self.title


def pct(value, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * value:.{digits}f}%"


def share(count, total) -> str:
    """A share with its count and denominator: '41.2% (7/17)'; '– (0/0)' for none."""
    count, total = int(count), int(total)
    return f"{pct(count / total) if total else '–'} ({count}/{total})"


def safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"



def plot_names(path: Path | None) -> list[str]:
    return [path.name] if path is not None else []
