"""Exports of a review project: refreshed multi-labels, reviewed mistakes, manifest.

- `export_project(project, out_dir, session=)`: a new versioned folder (see `bundle`);
- `write_model_mistakes(model, path, session=)`: one model's reviewed mistakes in
  the imagenet-mistakes metadata format;
- `suggestions`: each run's mistakes without a panel decision with the categoriser's
  suggestion, marked as one (`suggestions/run-<id>.json` in the folder);
- `export_probabilities(project, run_id, path, session=)`: a run's softmax as `.npz`
  (`file_names`, `probabilities`), the layout `import-logits` reads.

Each reads through the caller's session; the acts that open it (one read snapshot)
are `reviewer.app.export`'s, which the window and the command line both call.
"""

from __future__ import annotations

from reviewer.export.bundle import ExportError, ExportResult, export_project, parse_formats
from reviewer.export.mistakes import ModelMistakes, model_mistakes, write_model_mistakes
from reviewer.export.probabilities import ProbabilityExport, export_probabilities
from reviewer.export.summary import ExportSummary, export_summary

__all__ = ["ExportError", "ExportResult", "ExportSummary", "ModelMistakes", "ProbabilityExport", "export_probabilities",
           "export_project", "export_summary", "model_mistakes", "parse_formats", "write_model_mistakes"]
