"""Table 2: the failure categories and severities of each model's reviewed mistakes
(imported reviews and the panel's final decisions; `reviewer.analysis.tables`), and
with the Provisional option the same counts with the current majority of the votes
of the items not locked (`reviewer.analysis.provisional`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reviewer.analysis import plots
from reviewer.analysis.plots import PlotStyle
from reviewer.analysis.provisional import PROVISIONAL
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections.cells import plot_names, share
from reviewer.analysis.sections.section import Section
from reviewer.terms import CATEGORY_TITLES, SEVERITY_TITLES


def count_share_table(counts: pd.DataFrame, titles: dict[str, str], *, suffix: str = "") -> pd.DataFrame:
    """Per model, each level's share of its reviewed mistakes, with count and denominator."""
    totals = counts.sum(axis=1)
    out = pd.DataFrame({"model": [f"{m}{suffix}" for m in counts.index]})
    for column in counts.columns:
        out[titles.get(column, column)] = [share(n, t) for n, t in zip(counts[column], totals)]
    out["reviewed"] = totals.astype(str).to_numpy()
    return out


def categories_section(report: AnalysisReport, out_dir: Path, style: PlotStyle) -> Section:
    """Table 2: category and severity shares per model, final; then, when asked, provisional."""
    o = report.options
    severity_note = "Borderline kept apart." if o.keep_borderline else "Borderline counted as Minor (as the paper)."
    unrated = {m: u for m, u in report.unrated.items() if u.category or u.severity}
    text = (f"Reviewed mistakes of each model: imported published reviews and the panel's final decisions. "
            f"{severity_note}")
    if unrated:
        text += " Left out where the panel set no value: " + "; ".join(
            f"{m}: {u.category} without category, {u.severity} without severity" for m, u in unrated.items())
    section = Section(
        "Failure categories and severities (Table 2)", text, short="Categories",
        warnings=[report.note] if report.note else [],
        tables=[("Categories", count_share_table(report.categories, CATEGORY_TITLES)),
                ("Severities", count_share_table(report.severities, SEVERITY_TITLES))],
        images=plot_names(plots.plot_shares(report.categories, report.severities, out_dir / "shares.png", style=style)))
    if o.provisional and len(report.provisional_categories):
        reviewed = report.provisional_reviewed
        marked = (reviewed["source"] == PROVISIONAL).groupby(reviewed["model"]).sum()
        caption = ("PROVISIONAL, not locked: the final decisions plus the majority of the current votes on "
                   f"{report.status.provisional} items without one")
        for name, counts, titles in (("Categories", report.provisional_categories, CATEGORY_TITLES),
                                     ("Severities", report.provisional_severities, SEVERITY_TITLES)):
            table = count_share_table(counts, titles, suffix=f" ({PROVISIONAL})")
            table["of them provisional"] = [str(int(marked.get(m, 0))) for m in counts.index]
            section.tables.append((f"{name}, {caption}", table))
        section.images += plot_names(plots.plot_shares(
            report.provisional_categories, report.provisional_severities, out_dir / "shares_provisional.png",
            style=style, title="PROVISIONAL (current votes, not locked): failure categories"))
    elif o.provisional:
        section.text += " Provisional: no item without a final decision has votes that decide it."
    return section
