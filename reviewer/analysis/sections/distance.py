"""Category shares per WordNet distance between the prediction and the label, per model
(`reviewer.analysis.tables.category_by_distance`), beside the paper's fine-grained shares."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reviewer.analysis import plots
from reviewer.analysis.plots import PlotStyle
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections.cells import pct, plot_names, safe_name, share
from reviewer.analysis.sections.section import Section
from reviewer.analysis.tables import FINE_GRAINED_INCL_OOV, PAPER_FINE_GRAINED_SHARE
from reviewer.terms import CATEGORY_TITLES, Category

# The distance tables' two fine-grained columns: the paper's sense (§4.1) and the category alone.
FINE_GRAINED_PAPER_TITLE = "Fine-grained incl. OOV (the paper's sense)"
FINE_GRAINED_ONLY_TITLE = "Fine-grained, in-vocabulary only"


def distance_section(report: AnalysisReport, out_dir: Path, style: PlotStyle) -> Section:
    """Category shares per WordNet distance, per model (the paper reports ViT-3B's, §4.1): first the
    share of fine-grained errors in the paper's sense (in-vocabulary or OOV) with the paper's figures
    beside it, then each category, fine-grained in-vocabulary only among them, named so."""
    paper = ", ".join(f"{pct(v)} at distance {d}" for d, v in PAPER_FINE_GRAINED_SHARE.items())
    section = Section("Categories by WordNet distance", short="Distance", text=(
        "Per model, the share of each category among its reviewed mistakes at each hierarchy distance between the "
        "prediction and the image's original label, as the paper measures it (the levels up to the nearest common "
        "ancestor: 1 = the same parent). The paper (§4.1, ViT-3B) counts as fine-grained errors 'either "
        "in-vocabulary or OOV' ('78.3% of errors were assessed to be fine-grained in nature (either in-vocabulary "
        "or OOV)') and reports fine-grained " + paper + "; they stand beside '" + FINE_GRAINED_PAPER_TITLE +
        "' (fine-grained + fine-grained with out-of-vocabulary object). '" + FINE_GRAINED_ONLY_TITLE + "' is the "
        "fine-grained category alone. The variant to the nearest correct label other than the prediction follows "
        "each table."))
    titles = {**CATEGORY_TITLES, Category.FINE_GRAINED.value: FINE_GRAINED_ONLY_TITLE}
    for table, label in ((report.by_distance, "to the original label"),
                         (report.by_distance_nearest, "to the nearest correct label")):
        for model, group in table.groupby(level="model"):
            group = group.droplevel("model")
            cells = pd.DataFrame({"distance": group.index.astype(str)})
            cells[FINE_GRAINED_PAPER_TITLE] = _distance_shares(group, FINE_GRAINED_INCL_OOV)
            if label == "to the original label":
                cells["paper: fine-grained incl. OOV (ViT-3B)"] = [pct(PAPER_FINE_GRAINED_SHARE.get(int(d)))
                                                                   if int(d) in PAPER_FINE_GRAINED_SHARE else ""
                                                                   for d in group.index]
                section.images += plot_names(plots.plot_category_by_distance(
                    group, out_dir / f"distance_{safe_name(str(model))}.png", title=f"{model}: categories by distance",
                    paper=PAPER_FINE_GRAINED_SHARE, style=style))
            for column, title in titles.items():
                cells[title] = _distance_shares(group, column)
            cells["mistakes"] = group["mistakes"].astype(int).astype(str).to_numpy()
            section.tables.append((f"{model}, distance {label}", cells))
    if not section.tables:
        section.empty = _no_distance_reason(report.reviewed)
    return section


def _no_distance_reason(reviewed: pd.DataFrame) -> str:
    """Why the distance tables are empty, in the panel's terms (`reviewed`: the mistakes judged wrong)."""
    if not len(reviewed):
        return ("Nothing to plot yet: no mistake is decided wrong. The failure categories of the mistakes decided "
                "wrong are counted here by their WordNet distance.")
    rated = int(reviewed["category"].notna().sum())
    if not rated:
        return (f"Nothing to plot yet: none of the {len(reviewed)} mistakes decided wrong has a failure category; "
                "the categories are counted here by WordNet distance.")
    return (f"Nothing to plot: the {rated} mistakes decided wrong with a category have no WordNet distance (their "
            "prediction or label is outside the hierarchy).")


def _distance_shares(group: pd.DataFrame, column: str) -> list[str]:
    """A column's shares of `mistakes` at each distance, with the count (exact: share x mistakes)."""
    return ["–" if pd.isna(v) else share(round(v * n), n) for v, n in zip(group[column], group["mistakes"])]

