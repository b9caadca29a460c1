"""What the review produces, for any front end: the export folder, one model's reviewed
mistakes, a run's probabilities. Each act reads one snapshot of the project (its unit
of work) and writes files; none changes the project, so each returns an empty change
record. The window and `reviewer export` run the same act."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from reviewer.app.changes import Changes, Done
from reviewer.export import bundle, mistakes, probabilities
from reviewer.export.bundle import DEFAULT_SPLIT, ExportResult
from reviewer.export.mistakes import ModelMistakes
from reviewer.export.probabilities import ProbabilityExport
from reviewer.export.summary import ExportSummary
from reviewer.project import Project


def export_project(project: Project, out_dir: str | Path, *, formats=("json", "csv"),
                   split: str | None = DEFAULT_SPLIT) -> Done[ExportResult]:
    """The labels after review in a new versioned folder under `out_dir` (`reviewer.export.bundle`)."""
    with project.read() as session:
        return Done(bundle.export_project(project, out_dir, session=session, formats=formats, split=split),
                    Changes())


def export_summary(result: ExportResult, *, split: str | None = DEFAULT_SPLIT,
                   split_option: str | None = None) -> ExportSummary:
    """What an export wrote and left out, in the words both front ends print: `reviewer export`
    its headline and lines, File > Export its headline in the status bar and the rest in its
    summary box. The headline says the panel's decisions and what was left out ("Exported to
    PATH: 10 decisions of the panel (8 unanimous, 2 majority); 2 items with votes but no
    decision left out"). `split`: the slice asked for as the major-error split; `split_option`:
    the option that names another (the command line's "--split"), offered where none was found."""
    from reviewer.export.summary import export_summary as summarise
    from reviewer.export.summary import split_words

    base = summarise(result)
    m = result.manifest
    counts, reviews = m["counts"], m["reviews"]
    how = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in reviews["decided_how"].items())
    decided = reviews["decided_items"]
    headline = (f"Exported to {result.path}: {decided} decision{'' if decided == 1 else 's'} of the panel"
                + (f" ({how})" if how else ""))
    left = reviews.get("voted_not_decided", 0)
    if left:
        headline += f"; {left} item{'s' if left != 1 else ''} with votes but no decision left out"
    words = split_words(m, requested=split or DEFAULT_SPLIT)
    if m["split"]["slice"] is None and split_option:
        words += f" (or name another slice with {split_option})"
    # The first line of the export's own summary is its counts and split, read again for the slice asked for.
    first = f"{counts['annotated_images']} annotated images, {counts['problematic_images']} problematic; {words}"
    return replace(base, headline=headline, lines=[first, *base.lines[1:]])


def export_reviews(project: Project, model: str, path: str | Path) -> Done[ModelMistakes]:
    """`model`'s reviewed mistakes in the imagenet-mistakes format, written to `path`."""
    with project.read() as session:
        return Done(mistakes.write_model_mistakes(model, path, session=session), Changes())


def export_probabilities(project: Project, run_id: int, path: str | Path) -> Done[ProbabilityExport]:
    """Run `run_id`'s softmax as an .npz (`file_names`, `probabilities`), the layout import-logits reads."""
    with project.read() as session:
        return Done(probabilities.export_probabilities(project, run_id, path, session=session), Changes())
