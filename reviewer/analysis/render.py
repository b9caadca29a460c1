"""Write the analysis report as Markdown or HTML, with its plots as PNG files.

    OUT/report.md (or report.html), shares.png, distance.png, confusions_<model>.png,
    reliability_run<id>.png, topk.png, trend.png, confused_pairs.csv (every pair of every model)

Both formats are rendered from the same list of sections, so they say the same.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from reviewer._files import atomic_write_text
from reviewer.analysis import plots
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.tables import shares
from reviewer.errors import UserError
from reviewer.leaderboard import off_trend, plot_trend
from reviewer.terms import CATEGORY_TITLES, SEVERITY_TITLES

FORMATS = ("markdown", "html")
# The names of the plots a report writes: a reused folder loses those the new report does not show.
OWN_PLOTS = re.compile(r"^(shares|distance|topk|trend|confusions_.+|reliability_run\d+)\.png$")


@dataclass
class Section:
    title: str
    text: str = ""
    tables: list[tuple[str, pd.DataFrame]] = field(default_factory=list)  # (caption, cells as strings)
    images: list[str] = field(default_factory=list)  # PNG names in the report folder
    short: str = ""  # a tab's title in the GUI

    def __post_init__(self) -> None:
        self.short = self.short or self.title


def pct(value, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * value:.{digits}f}%"


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"


def _count_share_table(counts: pd.DataFrame, titles: dict[str, str]) -> pd.DataFrame:
    share = shares(counts)
    out = pd.DataFrame(index=counts.index)
    for column in counts.columns:
        out[titles.get(column, column)] = [f"{n} ({pct(s)})" for n, s in zip(counts[column], share[column])]
    out["reviewed"] = counts.sum(axis=1).astype(str)
    return out.reset_index()


def _chi_table(tests: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"model A": tests["model_a"], "model B": tests["model_b"],
                         "n A": tests["n_a"].astype(str), "n B": tests["n_b"].astype(str),
                         "chi²": [f"{v:.3f}" if pd.notna(v) else "–" for v in tests["chi2"]],
                         "dof": tests["dof"].astype(str),
                         "p": [f"{v:.4f}" if pd.notna(v) else "–" for v in tests["p_value"]]})


def _plot(path: Path | None) -> list[str]:
    return [path.name] if path is not None else []


def report_sections(report: AnalysisReport, out_dir: Path) -> list[Section]:
    """The report's sections; writes their PNG files into `out_dir`."""
    o = report.options
    p = report.summary["project"]
    sections = [Section("Project", f"{p['name']}: {p['images']} images, {p['evaluable']} evaluable, "
                                   f"{p['problematic']} problematic; app version {report.summary['app_version']}.")]

    mla = report.mla
    # A run on a slice is scored on that slice only: say so beside its MLA.
    table = pd.DataFrame({"run": mla["run_id"].astype(str), "model": mla["model"],
                          "images": mla["image_slice"].fillna("all").astype(str) if len(mla) else []})
    for group in ("all", "organisms", "objects"):
        table[f"{group} before → after"] = [f"{pct(b)} → {pct(a)}" for b, a in zip(mla[f"{group}_before"],
                                                                                 mla[f"{group}_after"])]
    text = ("MLA: mean per-class accuracy, a prediction counting when it is among the image's correct or unclear "
            "labels; problematic images skipped. A run on a slice (images other than 'all') is scored on that "
            "slice's images only." if len(mla) else "No complete run yet.")
    sections.append(Section("Multi-label accuracy before and after the review (Table 1)", text, short="MLA",
                            tables=[("", table)] if len(mla) else []))

    severity_note = "Borderline kept apart." if o.keep_borderline else "Borderline counted as Minor (as the paper)."
    unrated = {m: u for m, u in report.unrated.items() if u["category"] or u["severity"]}
    text = (f"Reviewed mistakes of each model: imported published reviews and the panel's final decisions. "
            f"{severity_note}")
    if unrated:
        text += " Left out where the panel set no value: " + "; ".join(
            f"{m}: {u['category']} without category, {u['severity']} without severity" for m, u in unrated.items())
    sections.append(Section(
        "Failure categories and severities (Table 2)", text, short="Categories",
        tables=[("Categories", _count_share_table(report.categories, CATEGORY_TITLES)),
                ("Severities", _count_share_table(report.severities, SEVERITY_TITLES))],
        images=_plot(plots.plot_shares(report.categories, report.severities, out_dir / "shares.png"))))

    text = ("Pearson's chi-square test on each pair of models' counts (levels neither model has left out)"
            + (", Yates-corrected on 2 × 2 tables." if o.yates else ", no continuity correction."))
    sections.append(Section("Chi-square tests of independence between models", text, short="Chi-square",
                            tables=[("Categories", _chi_table(report.chi_categories)),
                                    ("Severities", _chi_table(report.chi_severities))]))

    report.confusions.to_csv(out_dir / "confused_pairs.csv", index=False, lineterminator="\n")
    pairs_section = Section("Confused class pairs", "Each reviewed mistake pairs its prediction with every correct "
                            "label of its image (after the review); unordered pairs, the smaller wnid first. Top 20 "
                            "per model; the full long-tailed list is in confused_pairs.csv.", short="Confusions")
    for model, group in report.confusions.groupby("model"):
        top = group.head(20)
        pairs_section.tables.append((f"{model}: {len(group)} pairs over {int(group['frequency'].sum())} "
                                     "prediction-label links", pd.DataFrame({
                                         "class A": [f"{n} ({w})" for n, w in zip(top["name_a"], top["wnid_a"])],
                                         "class B": [f"{n} ({w})" for n, w in zip(top["name_b"], top["wnid_b"])],
                                         "frequency": top["frequency"].astype(str)})))
        pairs_section.images += _plot(plots.plot_confusions(report.confusions, out_dir / f"confusions_{_safe(model)}"
                                                            f".png", model=str(model)))
    sections.append(pairs_section)

    distance = report.by_distance
    table = pd.DataFrame({"distance": distance.index.astype(str)})
    for column, title in CATEGORY_TITLES.items():
        table[title] = [pct(v) for v in distance[column]] if column in distance else []
    table["mistakes"] = distance["mistakes"].astype(str).to_numpy()
    sections.append(Section("Categories by WordNet distance", short="Distance",
                            text="Distance from the prediction to the nearest correct label of the image "
                            "(levels up to the nearest common ancestor).", tables=[("", table)],
                            images=_plot(plots.plot_category_by_distance(distance, out_dir / "distance.png"))))

    topk = report.topk
    table = pd.DataFrame({"run": topk["run_id"].astype(str), "model": topk["model"],
                          "labels (k)": topk["labels"].astype(str), "images": topk["images"].astype(str),
                          "found in top-k": [pct(v) for v in topk["mean_hit_rate"]],
                          "all in top-k": [pct(v) for v in topk["all_in_topk"]],
                          "ASMA": [pct(v) for v in topk["asma"]]})
    sections.append(Section("Variable top-k by label count (ASMA)", short="Top-k",
                            text="For an image with k correct labels, the share of them in the top-k predictions; "
                            "ASMA is the mean over label-count subgroups.", tables=[("", table)] if len(topk) else [],
                            images=_plot(plots.plot_topk(topk, out_dir / "topk.png"))))

    calibration = Section("Calibration", f"Expected calibration error with {o.ece_bins} equal-width bins of the "
                                         "top-1 probability; correct = accepted by the multi-labels after review.")
    names = dict(zip(mla["run_id"], mla["model"]))
    rows = []
    for run_id, result in report.calibration.items():
        rows.append({"run": str(run_id), "model": names.get(run_id, ""), "ECE": pct(result.ece, 2),
                     "images": str(result.images)})
        calibration.images += _plot(plots.plot_reliability(result, out_dir / f"reliability_run{run_id}.png",
                                                           title=f"{names.get(run_id, '')} (run {run_id})"))
    if rows:
        calibration.tables.append(("", pd.DataFrame(rows)))
    sections.append(calibration)

    board = report.leaderboard
    table = pd.DataFrame({
        "run": board["run_id"].astype(str), "model": board["model"],
        "images": board["image_slice"].fillna("all").astype(str), "top-1": [pct(v) for v in board["top1"]],
        "MLA": [pct(v) for v in board["mla"]],
        o.slice_name: ["–" if pd.isna(s) else f"{int(c)} of {int(t)} ({pct(s)}, CI {pct(lo)}–{pct(hi)})"
                       for c, t, s, lo, hi in zip(board["slice_correct"], board["slice_total"], board["slice_score"],
                                                  board["slice_low"], board["slice_high"])]})
    trend = plot_trend(board, out_dir / "trend.png", slice_name=o.slice_name)
    unplaced = off_trend(board)
    sections.append(Section(f"Leaderboard on {o.slice_name}", short="Leaderboard",
                            text="Slice score: predictions among the image's correct or unclear labels, with a "
                            "Clopper-Pearson 95% interval." + (
                                f" No run has a score on {o.slice_name!r} (no such slice, or no run predicted its "
                                "images); choose another slice." if len(board) and board["slice_total"].isna().all()
                                else "") + (
                                " Not on the trend plot (run over the slice only, no full-set top-1 of the model): "
                                + ", ".join(unplaced) + "." if unplaced else ""),
                            tables=[("", table)] if len(board) else [],
                            images=["trend.png"] if trend else []))
    return sections


def _markdown_table(frame: pd.DataFrame) -> str:
    def cell(value) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(c) for c in frame.columns) + " |",
             "|" + "|".join("---" for _ in frame.columns) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def to_markdown(sections: list[Section], title: str) -> str:
    parts = [f"# {title}"]
    for section in sections:
        parts.append(f"## {section.title}")
        if section.text:
            parts.append(section.text)
        for caption, frame in section.tables:
            if caption:
                parts.append(f"**{caption}**")
            parts.append(_markdown_table(frame))
        parts += [f"![{name}]({name})" for name in section.images]
    return "\n\n".join(parts) + "\n"


def to_html(sections: list[Section], title: str) -> str:
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;"
             "font-size:14px}th{background:#f3f3f3}img{max-width:100%;margin:.5em 0}")
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
             f"<style>{style}</style></head><body><h1>{html.escape(title)}</h1>"]
    for section in sections:
        parts.append(f"<h2>{html.escape(section.title)}</h2>")
        if section.text:
            parts.append(f"<p>{html.escape(section.text)}</p>")
        for caption, frame in section.tables:
            if caption:
                parts.append(f"<h4>{html.escape(caption)}</h4>")
            parts.append(frame.to_html(index=False, escape=True, border=0))
        parts += [f"<img src='{html.escape(name)}' alt='{html.escape(name)}'>" for name in section.images]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _remove_stale_plots(out_dir: Path, sections: list[Section]) -> None:
    """Delete plots an earlier report wrote here (a deleted run's, say) that this one does not show."""
    shown = {name for section in sections for name in section.images}
    for path in out_dir.iterdir():
        if OWN_PLOTS.match(path.name) and path.name not in shown and path.is_file():
            path.unlink(missing_ok=True)


def write_report(report: AnalysisReport, out_dir: str | Path, *, fmt: str = "markdown") -> Path:
    """Write the report and its plots into `out_dir`; returns the report file."""
    if fmt not in FORMATS:
        raise ValueError(f"report format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        sections = report_sections(report, out_dir)
        title = f"Review analysis: {report.summary['project']['name']}"
        if fmt == "markdown":
            path, text = out_dir / "report.md", to_markdown(sections, title)
        else:
            path, text = out_dir / "report.html", to_html(sections, title)
        atomic_write_text(path, text)
        path.chmod(0o644)  # the atomic write's temporary file is private; a report is for sharing
        _remove_stale_plots(out_dir, sections)
    except OSError as exc:
        raise UserError(f"could not write the report into {out_dir}: {exc.strerror or exc}"
                        + (f" ({exc.filename})" if exc.filename else "")) from exc
    return path
