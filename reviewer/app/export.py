"""What the review produces, for any front end: the export folder, one model's reviewed
mistakes, a run's probabilities. Each act reads one snapshot of the project (its unit
of work) and writes files; none changes the project, so each returns an empty change
record. The window and `reviewer export` run the same act."""

from __future__ import annotations

from pathlib import Path

from reviewer.app.changes import Changes, Done
from reviewer.export import bundle, mistakes, probabilities
from reviewer.export.bundle import DEFAULT_SPLIT, ExportResult
from reviewer.export.mistakes import ModelMistakes
from reviewer.export.probabilities import ProbabilityExport
from reviewer.project import Project


def export_project(project: Project, out_dir: str | Path, *, formats=("json", "csv"),
                   split: str | None = DEFAULT_SPLIT) -> Done[ExportResult]:
    """The labels after review in a new versioned folder under `out_dir` (`reviewer.export.bundle`)."""
    with project.read() as session:
        return Done(bundle.export_project(project, out_dir, session=session, formats=formats, split=split),
                    Changes())


def export_reviews(project: Project, model: str, path: str | Path) -> Done[ModelMistakes]:
    """`model`'s reviewed mistakes in the imagenet-mistakes format, written to `path`."""
    with project.read() as session:
        return Done(mistakes.write_model_mistakes(model, path, session=session), Changes())


def export_probabilities(project: Project, run_id: int, path: str | Path) -> Done[ProbabilityExport]:
    """Run `run_id`'s softmax as an .npz (`file_names`, `probabilities`), the layout import-logits reads."""
    with project.read() as session:
        return Done(probabilities.export_probabilities(project, run_id, path, session=session), Changes())
