"""Write the analysis report as Markdown or HTML, with its plots as PNG files.

    OUT/report.md (or report.html), shares.png (shares_provisional.png), error_types.png, distance_<model>.png,
    confusions_<model>.png, reliability_run<id>.png, source_reliability.png (source_reliability_provisional.png), topk.png, trend.png,
    confused_pairs.csv (every pair of every model)

Both formats are rendered from the same list of sections (`reviewer.analysis.sections`),
so they say the same.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd

from reviewer._files import atomic_write_text
from reviewer.analysis.report import AnalysisReport
from reviewer.analysis.sections import Section, report_sections
from reviewer.errors import UserError

FORMATS = ("markdown", "html")
# The names of the plots a report writes: a reused folder loses those the new report does not show.
OWN_PLOTS = re.compile(r"^(shares|shares_provisional|error_types|distance|distance_.+|topk|trend|confusions_.+|"
                       r"reliability_run\d+|source_reliability|source_reliability_provisional)\.png$")


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
        parts += [f"> **Warning:** {warning}" for warning in section.warnings]
        if section.text:
            parts.append(section.text)
        if section.empty:
            parts.append(f"**{section.empty}**")
        for caption, frame in section.tables:
            if caption:
                parts.append(f"**{caption}**")
            parts.append(_markdown_table(frame))
        parts += [f"![{name}]({name})" for name in section.images]
    return "\n\n".join(parts) + "\n"


def to_html(sections: list[Section], title: str) -> str:
    style = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
             "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;"
             "font-size:14px}th{background:#f3f3f3}img{max-width:100%;margin:.5em 0}"
             ".warning{background:#fff4d6;border-left:4px solid #e3b341;padding:.4em .8em}")
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
             f"<style>{style}</style></head><body><h1>{html.escape(title)}</h1>"]
    for section in sections:
        parts.append(f"<h2>{html.escape(section.title)}</h2>")
        parts += [f"<p class='warning'><b>Warning:</b> {html.escape(warning)}</p>" for warning in section.warnings]
        if section.text:
            parts.append(f"<p>{html.escape(section.text)}</p>")
        if section.empty:
            parts.append(f"<p><b>{html.escape(section.empty)}</b></p>")
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
        title = f"Review analysis: {report.summary.project.name}"
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
