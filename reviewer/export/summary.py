"""What an export wrote, in words, for whoever asked for it (the window's summary after
File > Export): the counts, the decisions and how they were made, the items left out
because they have votes but no final decision, each file and the manifest."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reviewer.export.bundle import DEFAULT_SPLIT, MANIFEST, ExportResult
from reviewer.export.suggestions import FOLDER


@dataclass(frozen=True)
class ExportSummary:
    headline: str
    lines: list[str]  # counts, decisions, what was left out, the manifest's path
    files: list[str]  # every file written, relative to the export folder
    manifest: Path


def export_summary(result: ExportResult) -> ExportSummary:
    """The summary of a finished export, read from its manifest."""
    m = result.manifest
    counts, reviews = m["counts"], m["reviews"]
    how = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in reviews["decided_how"].items())
    lines = [f"{counts['annotated_images']} annotated images, {counts['problematic_images']} problematic, "
             f"{split_words(m)}",
             f"The panel's final decisions: {reviews['decided_items']}" + (f" ({how})" if how else "")]
    if reviews.get("voted_not_decided"):
        lines.append(f"{reviews['voted_not_decided_note']} (the meeting, or reviewer panel-status "
                     "PROJECT --items, lists them)")
    kept = [f"{n} {what}" for n, what in ((reviews.get("no_longer_mistakes_with_history", 0),
                                           "no longer mistakes under the current labels"),
                                          (reviews.get("outside_scope_with_history", 0),
                                           "outside the panel's scope (reviewer panel-scope)")) if n]
    if kept:
        lines.append(f"Not exported, their votes and decisions kept: {'; '.join(kept)}")
    for model, info in m["models"].items():
        left = info["left_out_incomplete"] + info["left_out_second_prediction"]
        lines.append(f"{info['file']}: {info['mistakes']} reviewed mistakes of {model}"
                     + (f" ({left} left out: no category or severity, or a second prediction)" if left else ""))
    for split in m.get("zoom_hard_splits", []):
        lines.append(f"{split['file']}: the zoom-hard split '{split['slice']}', {split['images']} images no zoomed "
                     f"crop corrects for {', '.join(split['runs'])}")
    suggested = m.get("suggestions", [])
    if suggested:
        lines.append(f"{FOLDER}/: {sum(s['listed_without_panel_decision'] for s in suggested)} mistakes of "
                     f"{len(suggested)} run{'s' if len(suggested) != 1 else ''} without a panel decision, with the "
                     "categoriser's suggestion (never the panel's)")
    manifest = result.path / MANIFEST
    lines.append(f"Manifest: {manifest}")
    files = [str(p.relative_to(result.path)) for p in result.data_files()] + [MANIFEST]
    return ExportSummary(headline=f"Exported {len(files)} files to {result.path}", lines=lines, files=files,
                         manifest=manifest)


def split_words(manifest: dict, *, requested: str = DEFAULT_SPLIT) -> str:
    """What the export wrote as its ImageNet-M split (`imagenet_m`): which slice and how many
    images, or why it is empty and how to make one ("split of 0" said neither)."""
    split = manifest["split"]
    if split["slice"] is None:
        return (f"no major-error split (imagenet_m written empty): the project has no slice named '{requested}'; "
                f"make one with 'reviewer split PROJECT --runs RUN RUN RUN --save {requested}'")
    return f"the major-error split: slice '{split['slice']}', {split['images']} images (written as imagenet_m)"
