"""The zoom probe: per model, the mistakes that some crop corrects (Taesiri et al. 2023,
§3, §4.1), by the panel's verdict, severity and category and by zoom group
(`reviewer.analysis.zoom_probe`)."""

from __future__ import annotations

import pandas as pd

from reviewer.analysis.sections.cells import pct, share
from reviewer.analysis.sections.section import Section
from reviewer.analysis.zoom_probe import (
    CATEGORIES,
    GROUPS,
    PAPER_OPTIMAL_ZOOM,
    SEVERITIES,
    UNRATED,
    VERDICTS,
    ZoomReport,
)
from reviewer.evaluation.zoom_hard import CORRECTED, NEEDS_PROBE, ZoomHardSlice
from reviewer.runs.zoom.result import ACCEPTED_RULE, TAESIRI_RULE
from reviewer.terms import CATEGORY_TITLES, SEVERITY_TITLES

# The zoom table's two "corrected" columns: this tool's accepted labels and Taesiri et al.'s IN+ReaL.
ZOOM_TOOL_COLUMN = "corrected by some crop (this tool: correct/unclear ∪ ReaL)"
ZOOM_TAESIRI_COLUMN = "corrected by some crop (Taesiri et al.: IN+ReaL, original ∪ ReaL)"
UNCLASSIFIABLE_COLUMN = "unclassifiable: no crop correct (IN+ReaL)"


def _zoom_tables(zoom: ZoomReport) -> list[tuple[str, pd.DataFrame]]:
    """Per model: corrected by verdict; the wrong ones' severity x category; by zoom group."""
    probed = [m for m in zoom.models if m.probed or m.partial]
    rows = [{"model": m.model, "mistakes": str(m.mistakes), ZOOM_TOOL_COLUMN: share(m.corrected, m.probed),
             ZOOM_TAESIRI_COLUMN: share(m.taesiri_corrected, m.probed),
             UNCLASSIFIABLE_COLUMN: share(m.unclassifiable, m.probed),
             **{f"panel: {v}": share(*m.by_verdict[v]) for v in VERDICTS},
             "partial (not in the shares)": (f"{m.partial}, {m.partial_corrected} already corrected"
                                             if m.partial else "0")} for m in probed]
    tables = [(("Mistakes some crop corrects, per model (complete probes), by the panel's verdict (by this tool's "
                "accepted labels, but the Taesiri et al. column)"), pd.DataFrame(rows))]
    titles = {**CATEGORY_TITLES, UNRATED: "unrated"}
    for m in probed:
        if not m.by_verdict[VERDICTS[1]][1]:
            continue
        cross = [{"severity": SEVERITY_TITLES.get(sev, sev),
                  **{titles[c]: share(*m.crosstab[sev][c]) for c in CATEGORIES},
                  "all": share(*m.by_severity[sev])} for sev in SEVERITIES]
        cross.append({"severity": "all", **{titles[c]: share(*m.by_category[c]) for c in CATEGORIES},
                      "all": share(*m.by_verdict[VERDICTS[1]])})
        tables.append(((f"{m.model}: decided wrong, corrected by some crop (this tool's accepted labels), "
                        "severity × category"), pd.DataFrame(cross)))
    tables.append((("Mistakes a crop of each zoom group corrects (this tool's accepted labels; zoom-out S < 224, "
                    "zoom-in S > 224; one mistake may count in several)"),
                   pd.DataFrame([{"model": m.model, **{g: share(m.by_group[g], m.probed) for g in GROUPS}}
                                 for m in probed])))
    if zoom.splits:
        tables.append((("Zoom-hard splits (reviewer zoom-split): the mistakes no crop corrects for every run named, "
                        "saved as slices; counts when saved"),
                       pd.DataFrame([_split_row(z) for z in zoom.splits])))
    return tables


def _split_row(split: ZoomHardSlice) -> dict[str, str]:
    counts = split.rule.get("counts", {})
    return {"slice": split.name, "images": str(split.images), "runs": ", ".join(split.runs),
            "labels": str(split.rule.get("labels", "")),
            "corrected by some crop": str(counts.get(CORRECTED, "")),
            "needing a complete probe then": str(counts.get(NEEDS_PROBE, ""))}


def zoom_section(zoom: ZoomReport) -> Section:
    """Per model, the mistakes that some crop of the zoom probe corrects (Taesiri et al. 2023 §3, §4.1)."""
    section = Section("Zoom probe", short="Zoom")
    if zoom.note:
        section.text = zoom.note
        return section
    paper = PAPER_OPTIMAL_ZOOM
    section.text = (
        "The zoom probe (Taesiri et al. 2023, ImageNet-Hard, §3): the model over 36 scales × a 3×3 grid of 224-px "
        "crops, 324 crops; a mistake counts as corrected when the top-1 of at least one crop is among the image's "
        "accepted labels, the paper's 'correctly classified given the optimal zoom', proper framing. Two rules "
        f"for the accepted labels: '{ZOOM_TOOL_COLUMN}': {ACCEPTED_RULE} (before the review), as the review "
        "window draws them; every other count here uses it. "
        f"'{ZOOM_TAESIRI_COLUMN}': {TAESIRI_RULE} ('For each IN image, we use the union of the IN and ReaL "
        f"labels (IN+ReaL)', §3), the rule of their {pct(paper['share'], 2)} ({paper['model']}, Table 1c), which "
        "is over all ImageNet validation images, not over a model's mistakes. Over each model's mistakes with a "
        "complete stored probe; partial probes (stopped) are counted apart, not in the shares. Split by the "
        "panel's final decision ('undecided': none, or reopened); severity and category for the mistakes decided "
        f"wrong. '{UNCLASSIFIABLE_COLUMN}': Taesiri et al.'s unclassifiable mistakes (§4.1, §4.4.1: none of the "
        "324 crops correct), the ImageNet-Hard criterion; 'reviewer zoom PROJECT --run N' probes every mistake of a "
        "run and 'reviewer zoom-split' saves those of one or several runs as a slice"
        + (f" ({', '.join(repr(z.name) for z in zoom.splits)} here)." if zoom.splits else "."))
    if zoom.provenance is not None:
        section.text += f" This section {zoom.provenance.text()}."
    if not zoom.real_labels:
        section.warnings.append("The project has no ReaL labels: both rules go without them (Taesiri et al.'s is "
                                "then the original label alone). Import ReaL (reviewer import-labels) to compare.")
    if zoom.unreadable:
        section.warnings.append(f"{zoom.unreadable} stored zoom result(s) could not be read (a newer probe "
                                "version, or an image without labels) and are left out.")
    section.tables += _zoom_tables(zoom)
    return section
