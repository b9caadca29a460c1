"""The report's figures, as PNG files (matplotlib's object API, Agg canvas).

No pyplot: figures are plain `Figure` objects, so plotting holds no global
state and is safe in a worker thread of the GUI. Colours come from a
`PlotStyle`: `LIGHT` (matplotlib's look) for the file report, or one a front
end passes to match its theme (the window's is dark). The trend plot (slice
score against top-1, `plot_trend`) is drawn in matplotlib's colours and
restyled through rcParams, set around it (global state, but the one worker
that draws the report is the only plotter).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.colors import same_color
from matplotlib.figure import Figure

from reviewer.analysis.calibration import Calibration
from reviewer.analysis.tables import shares
from reviewer.evaluation.leaderboard import FULL_VALIDATION, off_trend
from reviewer.terms import CATEGORY_SHORT_TITLES, SEVERITY_TITLES, Category


@dataclass(frozen=True)
class PlotStyle:
    """A figure's colours: background, text (titles, labels, ticks, annotations),
    muted (axes' frame and tick marks) and grid lines."""

    background: str = "white"
    text: str = "black"
    muted: str = "black"
    grid: str = "#b0b0b0"

    def rc(self) -> dict:
        """The same colours as matplotlib rcParams, for a figure drawn by code that takes
        no style (`matplotlib.rc_context`)."""
        return {"figure.facecolor": self.background, "axes.facecolor": self.background,
                "savefig.facecolor": self.background, "axes.edgecolor": self.muted, "axes.labelcolor": self.text,
                "axes.titlecolor": self.text, "text.color": self.text, "xtick.color": self.text,
                "ytick.color": self.text, "grid.color": self.grid, "legend.facecolor": self.background,
                "legend.edgecolor": self.muted, "legend.labelcolor": self.text}


LIGHT = PlotStyle()


def _apply(figure: Figure, style: PlotStyle) -> None:
    """Colour a drawn figure: backgrounds, frames, ticks, titles, labels, legends, and the
    texts and lines drawn in the default black."""
    figure.set_facecolor(style.background)
    for axes in figure.axes:
        axes.set_facecolor(style.background)
        for spine in axes.spines.values():
            spine.set_edgecolor(style.muted)
        axes.tick_params(which="both", color=style.muted, labelcolor=style.text)
        for label in (axes.title, axes.xaxis.label, axes.yaxis.label):
            label.set_color(style.text)
        for line in axes.get_xgridlines() + axes.get_ygridlines():
            line.set_color(style.grid)
        for artist in axes.texts + axes.lines:
            if same_color(artist.get_color(), "black"):
                artist.set_color(style.text)
        legend = axes.get_legend()
        if legend is not None:
            legend.get_frame().set_facecolor(style.background)
            legend.get_frame().set_edgecolor(style.muted)
            for text in legend.get_texts():
                text.set_color(style.text)


def _save(figure: Figure, path: Path, style: PlotStyle) -> Path:
    _apply(figure, style)
    figure.tight_layout()
    # "tight": legends placed outside the axes are kept whole, not cut at the figure's edge.
    figure.savefig(path, facecolor=style.background, bbox_inches="tight")
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
    # Beside the bars, not below them, where it covered the share axis's numbers.
    axes.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))


def _with_n(counts: pd.DataFrame) -> pd.DataFrame:
    """Row shares, each row named with its number of mistakes: 'model (n=17)'."""
    table = shares(counts)
    table.index = [f"{model} (n={int(n)})" for model, n in zip(counts.index, counts.sum(axis=1))]
    return table


def plot_shares(categories: pd.DataFrame, severities: pd.DataFrame, path: Path, *, style: PlotStyle = LIGHT,
                title: str = "Failure categories of the reviewed mistakes") -> Path | None:
    """Category and severity shares of each model's reviewed mistakes (stacked bars),
    each model with its number of mistakes."""
    # A model with no rated mistake (n=0) has no shares to draw: left out, and no plot at all
    # when none has any.
    panels = [(table[table.sum(axis=1) > 0], titles, heading)
              for table, titles, heading in ((categories, CATEGORY_SHORT_TITLES, textwrap.fill(title, 80)),
                                             (severities, SEVERITY_TITLES, "Severity"))]
    panels = [panel for panel in panels if not panel[0].empty]
    if not panels:
        return None
    rows = max(len(table) for table, _, _ in panels)
    figure = Figure(figsize=(8, 1.2 + (0.5 + 0.45 * rows) * len(panels)), dpi=100)
    for axes, (table, titles, heading) in zip(np.atleast_1d(figure.subplots(len(panels), 1)), panels):
        _stacked_bars(axes, _with_n(table), titles)
        axes.set_title(heading)
    return _save(figure, path, style)


def plot_confusions(confusions: pd.DataFrame, path: Path, *, model: str, top: int = 20,
                    style: PlotStyle = LIGHT) -> Path | None:
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
    return _save(figure, path, style)


def plot_category_by_distance(table: pd.DataFrame, path: Path, *, title: str = "",
                              paper: dict[int, float] | None = None, style: PlotStyle = LIGHT) -> Path | None:
    """Share of each category at each WordNet distance (stacked bars, mistakes on top); one
    model's table, indexed by distance. `paper`: published fine-grained shares by distance, in
    the paper's sense (in-vocabulary or OOV), drawn as markers to compare with the top of the
    fine-grained OOV bar (fine-grained + fine-grained OOV, stacked first)."""
    if table.empty:
        return None
    figure = Figure(figsize=(8, 4), dpi=100)
    axes = figure.subplots()
    columns = [c.value for c in Category if c.value in table.columns]
    bottom = np.zeros(len(table))
    x = [str(int(d)) for d in table.index]
    for column in columns:
        values = table[column].fillna(0).to_numpy()
        axes.bar(x, values, bottom=bottom, label=CATEGORY_SHORT_TITLES[column])
        bottom += values
    for xi, n in zip(x, table["mistakes"]):
        axes.text(xi, 1.01, str(int(n)), ha="center", va="bottom", fontsize=7)
    shown = {str(d): v for d, v in (paper or {}).items() if str(d) in x}
    if shown:
        axes.scatter(list(shown), list(shown.values()), marker="D", color=style.text, zorder=3,
                     label="paper, ViT-3B: fine-grained incl. OOV")
    axes.set_ylim(0, 1.08)
    axes.set_xlabel("WordNet distance between the prediction and the original label")
    axes.set_ylabel("share of the mistakes")
    if title:
        axes.set_title(textwrap.fill(title, 70), fontsize=10)
    axes.legend(fontsize=8, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.15))
    return _save(figure, path, style)


def plot_reliability(calibration: Calibration, path: Path, *, title: str, style: PlotStyle = LIGHT) -> Path | None:
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
    axes.bar(centers, accuracy, width=width, color="tab:blue", edgecolor=style.muted, linewidth=0.5, label="accuracy")
    # The gap as a hatched outline, not a translucent fill: over the blue bar (accuracy
    # above confidence) a fill mixed into an unlabelled dark colour.
    used = bins["count"].to_numpy() > 0
    axes.bar(centers[used], (confidence - accuracy)[used], bottom=accuracy[used], width=width[used], facecolor="none",
             edgecolor="tab:red", hatch="///", linewidth=0.8, label="gap to mean confidence")
    for x, n in zip(centers[used], bins["count"].to_numpy()[used]):  # how much each bar rests on
        axes.text(x, 0.01, str(int(n)), ha="center", va="bottom", fontsize=6, rotation=90, color="white")
    axes.plot([0, 1], [0, 1], linestyle="--", color=style.text, linewidth=1)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("top-1 confidence")
    axes.set_ylabel("top-1 accuracy (original label)")
    ace = f", ACE {100 * calibration.ace:.3f}%" if calibration.ace == calibration.ace else ""
    equal_width = int((bins["upper"] > bins["lower"]).sum())
    axes.set_title(f"{title}\nECE {100 * calibration.ece:.2f}%{ace} ({calibration.images} images, {equal_width} bins)",
                   fontsize=9)
    axes.legend(fontsize=8, loc="upper left")
    return _save(figure, path, style)


def plot_topk(topk: pd.DataFrame, path: Path, *, style: PlotStyle = LIGHT) -> Path | None:
    """Variable top-k per label-count subgroup, one colour per run and label set: ReaL
    labels (Anzaku et al.) solid, the multi-label-set variant dashed; circles the mean
    example-based accuracy |Y∩Ŷ|/|Y∪Ŷ| (the papers' citation), squares the mean share of
    labels found m/k (the other reading), each labelled with its ASMA. Images with more
    labels than the protocol's (reported apart) are not drawn."""
    data = topk[topk["labels"] > 0]
    if data.empty:
        return None
    figure = Figure(figsize=(6, 4), dpi=100)
    axes = figure.subplots()
    for (run_id, model, label_set), group in data.groupby(["run_id", "model", "label_set"]):
        real = label_set == "real"
        name = f"{model} (#{run_id}), {'ReaL' if real else 'multi-label set'}"
        (line,) = axes.plot(group["labels"], 100 * group["mean_jaccard"], marker="o",
                            linestyle="-" if real else "--",
                            label=f"{name}: ASMA {100 * group['asma'].iloc[0]:.1f}% (|Y∩Ŷ|/|Y∪Ŷ|, cited)")
        axes.plot(group["labels"], 100 * group["mean_hit_rate"], marker="s", markerfacecolor="none",
                  linestyle="-" if real else "--", alpha=0.6, color=line.get_color(),
                  label=f"{name}: ASMA {100 * group['asma_share_found'].iloc[0]:.1f}% (share found, m/k)")
    axes.set_xticks(sorted(int(k) for k in data["labels"].unique()))
    axes.set_xlim(0.5, data["labels"].max() + 0.5)
    axes.set_ylim(0, 105)
    axes.set_xlabel("valid labels of the image (k)")
    axes.set_ylabel("subgroup mean score (%)")
    axes.set_title("Variable top-k by label count")
    axes.legend(fontsize=6)
    axes.grid(alpha=0.3)
    return _save(figure, path, style)


def plot_source_reliability(table: pd.DataFrame, path: Path, *, style: PlotStyle = LIGHT,
                            title: str = "Evidence sources: agreement with the panel") -> Path | None:
    """Each evidence source's share of agreement with the panel's decisions, with its Wilson
    95% interval as error bars, one row per source (n on its label); sources with n = 0 are
    not drawn. `table`: `reviewer.analysis.source_agreement.agreement_frame`."""
    data = table[table["n"] > 0]
    if data.empty:
        return None
    figure = Figure(figsize=(8, 1.4 + 0.4 * len(data)), dpi=100)
    axes = figure.subplots()
    y = np.arange(len(data))[::-1]  # the first source on top
    share = 100 * data["share"].to_numpy()
    errors = np.vstack([share - 100 * data["ci_low"].to_numpy(), 100 * data["ci_high"].to_numpy() - share])
    axes.errorbar(share, y, xerr=errors, fmt="o", color="tab:blue", ecolor="tab:blue", capsize=4)
    for yi, s, k, n in zip(y, share, data["agreements"], data["n"]):
        axes.text(s, yi + 0.18, f"{s:.0f}% ({int(k)}/{int(n)})", ha="center", va="bottom", fontsize=7)
    axes.set_yticks(y, [f"{name} (n={int(n)})" for name, n in zip(data["source"], data["n"])])
    axes.set_ylim(-0.6, len(data) - 0.2)
    axes.set_xlim(-3, 103)  # a share of 0% or 100% stays in view
    axes.set_xticks(range(0, 101, 20))
    axes.set_xlabel("agreement with the panel (% of decided mistakes), Wilson 95% interval", fontsize=9)
    axes.set_title(textwrap.fill(title, 70), fontsize=10)
    axes.tick_params(axis="y", labelsize=8)
    axes.grid(axis="x", alpha=0.3)
    return _save(figure, path, style)


ERROR_TYPE_TITLES = {**CATEGORY_SHORT_TITLES, "no_explanation": "No explanation found"}


def plot_error_types(table: pd.DataFrame, path: Path, *, style: PlotStyle = LIGHT) -> Path | None:
    """Each run's share of each error type (left) and of major mistakes (right) against its MLA,
    one point per run and a least-squares line per error type where three runs or more have
    distinct MLAs, as Peychev et al. (NeurIPS 2023) plot error types against accuracy. A point
    is hollow where suggestions, not decided answers, are most of the run's counted mistakes.
    `table`: one row per run with `mla`, `suggested` (the suggestions' share of the answers) and
    a share column per error type and `major` (None where nothing was counted); runs without an
    MLA are not drawn. None (no plot) when no run can be placed."""
    data = table.dropna(subset=["mla"])
    if data.empty:
        return None
    figure = Figure(figsize=(10, 4.2), dpi=100)
    left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    x = 100 * data["mla"].to_numpy(dtype=float)
    hollow = data["suggested"].to_numpy(dtype=float) > 0.5
    for axes, columns in ((left, [c for c in ERROR_TYPE_TITLES if c in data.columns]), (right, ["major"])):
        for column in columns:
            y = 100 * pd.to_numeric(data[column], errors="coerce").to_numpy(dtype=float)
            shown = ~np.isnan(y)
            (line,) = axes.plot(x[shown & ~hollow], y[shown & ~hollow], "o", linestyle="none",
                                label=ERROR_TYPE_TITLES.get(column, "Major"))
            axes.plot(x[shown & hollow], y[shown & hollow], "o", linestyle="none", markerfacecolor="none",
                      color=line.get_color())
            if len(set(x[shown])) >= 3:
                slope, intercept = np.polyfit(x[shown], y[shown], 1)
                ends = np.array([x[shown].min(), x[shown].max()])
                axes.plot(ends, slope * ends + intercept, "-", color=line.get_color(), alpha=0.5, linewidth=1)
        axes.set_xlabel("MLA after the review (%)")
        axes.set_ylim(-3, 103)
        axes.grid(alpha=0.3)
    left.set_ylabel("share of the run's mistakes (%)")
    left.set_title("Error types against MLA", fontsize=10)
    right.set_title("Major mistakes against MLA", fontsize=10)
    left.legend(fontsize=7, loc="upper left")
    figure.text(0.01, 0.005, "filled: the panel's or a published review's answers are most of the run's; "
                "hollow: mostly the categoriser's suggestions", fontsize=7, color="0.35")
    figure.tight_layout(rect=(0, 0.04, 1, 1))
    return _save(figure, path, style)


def plot_trend(frame: pd.DataFrame, path: str | Path, *, slice_name: str = "imagenet_m",
               style: PlotStyle = LIGHT) -> bool:
    """Slice score (with its interval) against full-set top-1, one point per run that has
    both, as the paper's trend figure (§5.1); `frame`: `reviewer.evaluation.leaderboard.leaderboard`.
    Returns False (and writes nothing) when no run has both. The x axis is top-1 on the full
    validation set when every run covers it (`top1_scope` "validation"), else on each run's
    own images, and the plot says which. A footnote names the slice-only runs that cannot be
    placed (`off_trend`)."""
    data = frame.dropna(subset=["top1", "slice_score"])
    if data.empty:
        return False
    # Drawn in matplotlib's colours, restyled by rcParams: a figure reads them when it is made.
    with matplotlib.rc_context(style.rc() if style != LIGHT else {}):
        _draw_trend(frame, data, Path(path), slice_name=slice_name)
    return True


def _draw_trend(frame: pd.DataFrame, data: pd.DataFrame, path: Path, *, slice_name: str) -> None:
    full = (data["top1_scope"] == FULL_VALIDATION).all()
    unplaced = off_trend(frame)
    figure = Figure(figsize=(6, 4.5 + (0.3 if unplaced else 0)), dpi=100)
    axes = figure.subplots()
    errors = np.vstack([data["slice_score"] - data["slice_low"], data["slice_high"] - data["slice_score"]])
    axes.errorbar(100 * data["top1"], 100 * data["slice_score"], yerr=100 * errors, fmt="o", capsize=3)
    for _, row in data.iterrows():
        scope = "" if full else f", top-1 on {row['top1_scope']}"
        axes.annotate(f"{row['model']} (#{row['run_id']}{scope})", (100 * row["top1"], 100 * row["slice_score"]),
                      textcoords="offset points", xytext=(4, 4), fontsize=8)
    # Room on the right for the label of the rightmost run.
    low, high = axes.get_xlim()
    axes.set_xlim(low, high + 0.25 * (high - low))
    axes.set_xlabel("top-1 accuracy on the full validation set (%)" if full else
                    "top-1 accuracy on each run's images (%), not the full validation set")
    axes.set_ylabel(f"accuracy on {slice_name} (%), 95% CI")
    axes.set_title(f"{slice_name} score against top-1, {len(data)} runs")
    axes.grid(alpha=0.3)
    if unplaced:
        figure.text(0.01, 0.01, "not shown, no full-set top-1: " + ", ".join(unplaced), fontsize=7,
                    wrap=True, color="0.35")
    figure.tight_layout(rect=(0, 0.05 if unplaced else 0, 1, 1))
    figure.savefig(path)
