"""The report's figures, as PNG files (matplotlib's object API, Agg canvas).

No pyplot: figures are plain `Figure` objects, so plotting holds no global
state and is safe in a worker thread of the GUI.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from reviewer.analysis.calibration import Calibration
from reviewer.analysis.tables import shares
from reviewer.terms import Category, Severity

SHORT_TITLES = {c.value: c.short_caption for c in Category}
SEVERITY_TITLES = {s.value: s.caption for s in Severity}


def _save(figure: Figure, path: Path) -> Path:
    figure.tight_layout()
    figure.savefig(path)
    return path


def _stacked_bars(axes, table: pd.DataFrame, titles: dict[str, str]) -> None:
    left = np.zeros(len(table))
    for column in table.columns:
        values = table[column].fillna(0).to_numpy()
        axes.barh(list(map(str, table.index)), values, left=left, label=titles.get(column, column))
        for y, (x0, v) in enumerate(zip(left, values)):
            if v >= 0.06:
                axes.text(x0 + v / 2, y, f"{100 * v:.0f}%", ha="center", va="center", fontsize=8, color="white")
        left += values
    axes.set_xlim(0, 1)
    axes.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=min(4, len(table.columns)))


def plot_shares(categories: pd.DataFrame, severities: pd.DataFrame, path: Path) -> Path | None:
    """Category and severity shares of each model's reviewed mistakes (stacked bars)."""
    if categories.empty:
        return None
    figure = Figure(figsize=(8, 2.2 + 0.9 * len(categories)), dpi=100)
    top, bottom = figure.subplots(2, 1)
    _stacked_bars(top, shares(categories), SHORT_TITLES)
    top.set_title("Failure categories of the reviewed mistakes")
    _stacked_bars(bottom, shares(severities), SEVERITY_TITLES)
    bottom.set_title("Severity")
    return _save(figure, path)


def plot_confusions(confusions: pd.DataFrame, path: Path, *, model: str, top: int = 20) -> Path | None:
    """The most frequent confused class pairs of one model."""
    data = confusions[confusions["model"] == model].head(top)
    if data.empty:
        return None
    figure = Figure(figsize=(7, 1.2 + 0.28 * len(data)), dpi=100)
    axes = figure.subplots()
    labels = [f"{a} / {b}" for a, b in zip(data["name_a"], data["name_b"])]
    axes.barh(labels[::-1], data["frequency"].to_numpy()[::-1])
    axes.set_xlabel("reviewed mistakes")
    # Pairs are unordered (either class may be the prediction); a long model name
    # is wrapped so the title stays inside the figure.
    axes.set_title(textwrap.fill(f"{model}: most confused class pairs", 60), fontsize=10)
    axes.tick_params(axis="y", labelsize=8)
    return _save(figure, path)


def plot_category_by_distance(table: pd.DataFrame, path: Path, *, title: str = "",
                              paper: dict[int, float] | None = None) -> Path | None:
    """Share of each category at each WordNet distance (stacked bars, mistakes on top); one
    model's table, indexed by distance. `paper`: published fine-grained shares by distance,
    drawn as markers to compare with the blue bars."""
    if table.empty:
        return None
    figure = Figure(figsize=(8, 4), dpi=100)
    axes = figure.subplots()
    columns = [c.value for c in Category if c.value in table.columns]
    bottom = np.zeros(len(table))
    x = [str(int(d)) for d in table.index]
    for column in columns:
        values = table[column].fillna(0).to_numpy()
        axes.bar(x, values, bottom=bottom, label=SHORT_TITLES[column])
        bottom += values
    for xi, n in zip(x, table["mistakes"]):
        axes.text(xi, 1.01, str(int(n)), ha="center", va="bottom", fontsize=7)
    shown = {str(d): v for d, v in (paper or {}).items() if str(d) in x}
    if shown:
        axes.scatter(list(shown), list(shown.values()), marker="D", color="black", zorder=3,
                     label="paper, ViT-3B: fine-grained")
    axes.set_ylim(0, 1.08)
    axes.set_xlabel("WordNet distance between the prediction and the original label")
    axes.set_ylabel("share of the mistakes")
    if title:
        axes.set_title(textwrap.fill(title, 70), fontsize=10)
    axes.legend(fontsize=8, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.15))
    return _save(figure, path)


def plot_reliability(calibration: Calibration, path: Path, *, title: str) -> Path | None:
    """Reliability diagram: accuracy per confidence bin against the diagonal."""
    if not calibration.images:
        return None
    bins = calibration.bins
    # Equal-width bins, and (when it holds images) torchmetrics' bin of confidence exactly 1.0,
    # drawn as a thin bar at the right edge.
    width = np.maximum((bins["upper"] - bins["lower"]).to_numpy(), 0.012)
    centers = np.minimum(((bins["lower"] + bins["upper"]) / 2).to_numpy(), 1 - width / 2)
    figure = Figure(figsize=(4.5, 4.5), dpi=100)
    axes = figure.subplots()
    accuracy = bins["accuracy"].fillna(0).to_numpy()
    confidence = bins["confidence"].fillna(0).to_numpy()
    axes.bar(centers, accuracy, width=width, color="tab:blue", edgecolor="black", linewidth=0.5, label="accuracy")
    # The gap as a hatched outline, not a translucent fill: over the blue bar (accuracy
    # above confidence) a fill mixed into an unlabelled dark colour.
    used = bins["count"].to_numpy() > 0
    axes.bar(centers[used], (confidence - accuracy)[used], bottom=accuracy[used], width=width[used], facecolor="none",
             edgecolor="tab:red", hatch="///", linewidth=0.8, label="gap to mean confidence")
    for x, n in zip(centers[used], bins["count"].to_numpy()[used]):  # how much each bar rests on
        axes.text(x, 0.01, str(int(n)), ha="center", va="bottom", fontsize=6, rotation=90, color="white")
    axes.plot([0, 1], [0, 1], "k--", linewidth=1)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("top-1 confidence")
    axes.set_ylabel("top-1 accuracy (original label)")
    ace = f", ACE {100 * calibration.ace:.3f}%" if calibration.ace == calibration.ace else ""
    equal_width = int((bins["upper"] > bins["lower"]).sum())
    axes.set_title(f"{title}\nECE {100 * calibration.ece:.2f}%{ace} ({calibration.images} images, {equal_width} bins)",
                   fontsize=9)
    axes.legend(fontsize=8, loc="upper left")
    return _save(figure, path)


def plot_topk(topk: pd.DataFrame, path: Path) -> Path | None:
    """Variable top-k hit rate per label-count subgroup, one line per run: ReaL labels
    (Anzaku et al.) solid, the multi-label-set variant dashed; images with more labels
    than the protocol's (reported apart) are not drawn."""
    data = topk[topk["labels"] > 0]
    if data.empty:
        return None
    figure = Figure(figsize=(6, 4), dpi=100)
    axes = figure.subplots()
    for (run_id, model, label_set), group in data.groupby(["run_id", "model", "label_set"]):
        real = label_set == "real"
        axes.plot(group["labels"], 100 * group["mean_hit_rate"], marker="o", linestyle="-" if real else "--",
                  label=f"{model} (#{run_id}), {'ReaL' if real else 'multi-label set'}: ASMA "
                        f"{100 * group['asma'].iloc[0]:.1f}%")
    axes.set_xticks(sorted(int(k) for k in data["labels"].unique()))
    axes.set_xlim(0.5, data["labels"].max() + 0.5)
    axes.set_ylim(0, 105)
    axes.set_xlabel("valid labels of the image (k)")
    axes.set_ylabel("valid labels found in the top-k (%)")
    axes.set_title("Variable top-k by label count")
    axes.legend(fontsize=7)
    axes.grid(alpha=0.3)
    return _save(figure, path)
