"""How the sections write their figures as cells: every share with its count and
denominator ("41.2% (7/17)"), a missing value as "–"; and the names of the files
they write."""

from __future__ import annotations

import math
import re
from pathlib import Path


def pct(value, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * value:.{digits}f}%"


def share(count, total) -> str:
    """A share with its count and denominator: '41.2% (7/17)'; '– (0/0)' for none."""
    count, total = int(count), int(total)
    return f"{pct(count / total) if total else '–'} ({count}/{total})"


def safe_name(name: str) -> str:
    """A model's name as part of a file name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"


def plot_names(path: Path | None) -> list[str]:
    """The name of a plot written (none when the plot had nothing to draw)."""
    return [path.name] if path is not None else []
