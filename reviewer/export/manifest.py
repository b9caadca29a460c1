"""The manifest of an export: what it was made from and what it holds."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlmodel import Session

from db.tables import (
    Image,
    ImportedReview,
    ImportedReviewItem,
    LabelSource,
    Model,
    Panelist,
    Prediction,
    ProjectSetting,
    Run,
    Vote,
)
from reviewer import __version__
from reviewer._files import sha256_file
from reviewer.evaluation.slices import slice_names, slice_rule
from reviewer.panel.final import decisions_table, undecided_with_votes
from reviewer.panel.snapshot import load_snapshot
from reviewer.project import Project

FORMAT_NAME = "imagenet-mistake-reviewer export"
FORMAT_VERSION = 2  # 2: reviews.reviewers is reviews.panelists (the count of the panel)


def _runs(project: Project, session) -> list[dict]:
    counts = dict(session.execute(select(Prediction.run_id, func.count()).group_by(Prediction.run_id)).all())
    out = []
    for run, model in session.execute(select(Run, Model).join(Model, Model.id == Run.model_id).order_by(Run.id)):
        probs = project.root / run.probs_path if run.probs_path else None
        out.append({"id": run.id, "model": model.name, "source": model.source, "checkpoint": model.checkpoint,
                    "weights_sha256": model.weights_sha256, "status": run.status, "image_slice": run.image_slice,
                    "predictions": int(counts.get(run.id, 0)), "device": run.device,
                    "created_at": run.created_at.isoformat() if run.created_at else None,
                    "probabilities": run.probs_path,
                    "probabilities_sha256": sha256_file(probs) if probs and probs.is_file() else None})
    return out


def _inputs(session) -> list[dict]:
    """Files the project's labels and reviews came from, with the hash taken at import."""
    inputs = [{"kind": s.kind, "path": s.path, "sha256": s.sha256, "imported_at": s.imported_at.isoformat()}
              for s in session.execute(select(LabelSource).order_by(LabelSource.id)).scalars()]
    for review, model in session.execute(select(ImportedReview, Model).join(Model, Model.id == ImportedReview.model_id)
                                         .order_by(ImportedReview.id)):
        inputs.append({"kind": "review", "model": model.name, "path": review.path, "sha256": review.sha256,
                       "imported_at": review.imported_at.isoformat()})
    return inputs


def review_counts(*, session: Session) -> dict:
    """Final decisions (reviewer.panel.final: locked, or unanimous) by verdict and by how
    they were decided, each item's decision and how, the items with votes but no final
    decision (left out of the export), problematic flags, votes, panelists, imported items."""
    snapshot = load_snapshot(session=session)
    decisions = decisions_table(session=session, snapshot=snapshot)
    names = dict(session.execute(select(Image.id, Image.file_name)).all())
    verdicts = decisions["verdict"].fillna("none").value_counts().to_dict()
    methods = decisions["decided_how"].value_counts().to_dict()
    votes = session.execute(select(func.count(Vote.id))).scalar_one()
    panelists = session.execute(select(func.count(Panelist.id))).scalar_one()
    imported = session.execute(select(func.count(ImportedReviewItem.id))).scalar_one()
    left_out = undecided_with_votes(snapshot)
    return {"decided_items": int(len(decisions)), "verdicts": {k: int(v) for k, v in sorted(verdicts.items())},
            "decided_how": {k: int(v) for k, v in sorted(methods.items())},
            "unanimous_is_final": snapshot.unanimous_final,
            "voted_not_decided": len(left_out),
            "voted_not_decided_note": (f"{len(left_out)} item{'s have' if len(left_out) != 1 else ' has'} votes but no "
                                       "final decision: not in this export" if left_out else ""),
            # The panel's scope (reviewer.panel.scope): the counts above cover its items only. Items with
            # votes or decisions outside it, or no longer mistakes under the current labels, are not exported.
            "scope": {"runs": None if snapshot.scope.runs is None else list(snapshot.scope.runs),
                      "slice": snapshot.scope.image_slice, "items": len(snapshot.facts)},
            "outside_scope_with_history": len(snapshot.outside_scope),
            "no_longer_mistakes_with_history": len(snapshot.retired),
            "decisions": [{"image": names.get(int(r.image_id)), "predicted": int(r.predicted), "verdict": r.verdict,
                           "decided_how": r.decided_how,
                           # null, never NaN (not JSON), for a unanimous decision: no chair decided it
                           "decided_by": r.chair if isinstance(r.chair, str) else None}
                          for r in decisions.itertuples()],
            "problematic_flags": int(decisions["problematic"].sum()), "vote_rows": int(votes),
            "panelists": int(panelists), "imported_review_items": int(imported)}


def build(project: Project, *, session: Session, created: datetime, version: int, formats: tuple[str, ...],
          split: str | None, notes: dict, outputs: dict[str, dict]) -> dict:
    """The manifest dict (written as manifest.json)."""
    runs = _runs(project, session)
    inputs = _inputs(session)
    for run in runs:
        if run["probabilities_sha256"]:
            inputs.append({"kind": "probabilities", "run": run["id"], "path": run["probabilities"],
                           "sha256": run["probabilities_sha256"]})
    has_split = bool(split) and split in slice_names(session=session)
    name = session.get(ProjectSetting, "name")
    images = session.execute(select(func.count(Image.id))).scalar_one()
    return {
        "format": FORMAT_NAME, "format_version": FORMAT_VERSION, "export_version": version,
        "app_version": __version__, "created_at": created.isoformat(),
        "project": {"name": name.value if name and name.value else project.root.name, "root": str(project.root),
                    "images": int(images)},
        "formats": list(formats),
        "models": notes.get("models", {}),
        "runs": runs,
        "reviews": review_counts(session=session),
        "split": {"slice": split if has_split else None, "images": notes["counts"]["split_images"],
                  "rule": slice_rule(session=session, name=split) if has_split else None},
        # The zoom-hard splits written as splits/<slice>.json (none unless saved by `reviewer zoom-split`).
        "zoom_hard_splits": notes.get("zoom_hard_splits", []),
        # Each complete run's mistakes without a panel decision, with the categoriser's suggestion: never the
        # panel's (suggestions/run-<id>.json; none without the json format).
        "suggestions": notes.get("suggestions", []),
        "counts": notes["counts"],
        "inputs": inputs,
        "outputs": outputs,
    }
