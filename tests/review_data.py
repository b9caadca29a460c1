"""Building blocks for tests of exports, the split, reruns and the report:
images, runs with stored predictions, and final decisions, written as the app
writes them (real tables, a real SQLite file).

Importable from any test as `from review_data import ...`: pytest puts the
folder of tests/conftest.py on sys.path.
"""

from __future__ import annotations

from sqlalchemy import func, insert, select

from db.engine import write_session
from db.tables import Decision, Image, Label, LabelSource, Model, Panelist, Prediction, Run
from reviewer.project import Project
from reviewer.runs.mistakes import store_mistakes


def val_name(index: int) -> str:
    return f"ILSVRC2012_val_{index:08d}.JPEG"


def add_images(project: Project, originals: list[int], *, labels: dict[int, dict[str, list[int]]] | None = None,
               start: int | None = None, multilabel: bool = True) -> list[int]:
    """Images with these original labels, named val_name(start), val_name(start + 1), ...
    (start: one past the image count). With `multilabel` (the default) they are images
    of the multi-label set, as a TFDS file makes them: `labels` maps a position (0-based)
    to its {kind: [classes]}, and an image not in it has its original label as its one
    correct label. Without, they are images with an original label only. Returns their ids."""
    labels = dict(labels or {})
    if multilabel:
        for pos, cls in enumerate(originals):
            labels.setdefault(pos, {"correct": [cls]})
    with write_session(project.engine) as session:
        first = start or session.execute(select(func.count(Image.id))).scalar_one() + 1
        images = [Image(file_name=val_name(first + i), original_label=c, val_index=first + i - 1,
                        multilabel=multilabel) for i, c in enumerate(originals)]
        session.add_all(images)
        session.flush()
        if labels:
            source = LabelSource(kind="test", path="review_data.py")
            session.add(source)
            session.flush()
            session.execute(insert(Label), [
                {"label_set": "multilabel", "image_id": images[pos].id, "class_index": cls, "kind": kind,
                 "source_id": source.id}
                for pos, kinds in labels.items() for kind, classes in kinds.items() for cls in classes])
        return [image.id for image in images]


def add_run(project: Project, model: str, top1: dict[int, int], *, probs: dict[int, float] | None = None,
            image_slice: str | None = None, source: str = "bundled") -> int:
    """A complete run of `model` predicting `top1[image_id]` (top-5 filled with the
    next classes); its mistakes are stored as the app does. Returns the run id."""
    probs = probs or {}
    with write_session(project.engine) as session:
        row = session.execute(select(Model).where(Model.name == model)).scalar_one_or_none()
        if row is None:
            row = Model(name=model, source=source)
            session.add(row)
            session.flush()
        run = Run(model_id=row.id, status="complete", image_slice=image_slice, num_images=len(top1), device="cpu")
        session.add(run)
        session.flush()
        rows = []
        for n, (image_id, cls) in enumerate(sorted(top1.items())):
            p = probs.get(image_id, 0.6)
            top = [(cls + j) % 1000 for j in range(5)]
            rest = (1 - p) / 4
            rows.append({"run_id": run.id, "image_id": image_id, "row": n,
                         **{f"pred_{j + 1}": c for j, c in enumerate(top)},
                         "prob_1": p, **{f"prob_{j}": rest for j in range(2, 6)}})
        session.execute(insert(Prediction), rows)
        run_id = run.id
    project.write(lambda session: store_mistakes(session=session, run_id=run_id))
    return run_id


def decide(project: Project, image_id: int, predicted: int, verdict: str | None, *, severity: str | None = None,
           category: str | None = None, problematic: bool = False, chair: str = "chair", reason: str = "",
           method: str = "majority") -> int:
    """Append a final decision row (as reviewer.panel.decisions does); returns its id."""
    with write_session(project.engine) as session:
        reviewer = session.execute(select(Panelist).where(Panelist.name == chair)).scalar_one_or_none()
        if reviewer is None:
            reviewer = Panelist(name=chair, is_chair=True)
            session.add(reviewer)
            session.flush()
        row = Decision(image_id=image_id, predicted=predicted, verdict=verdict, severity=severity, category=category,
                       problematic=problematic, method=method, reason=reason, decided_by=reviewer.id)
        session.add(row)
        session.flush()
        return row.id


def snapshot_of(project: Project):
    """The panel's state as one read sees it (`reviewer.panel.snapshot`)."""
    from reviewer.panel.snapshot import load_snapshot

    with project.read() as session:
        return load_snapshot(session=session)


def standing_decisions_of(project: Project) -> dict:
    """{item: its standing final decision} (`reviewer.panel.state.standing_decisions`)."""
    from reviewer.panel.state import standing_decisions

    with project.read() as session:
        return standing_decisions(session=session)


def decisions_table_of(project: Project):
    """The standing decisions as the analysis and export read them."""
    from reviewer.panel.final import decisions_table

    with project.read() as session:
        return decisions_table(session=session)


def read_with(project: Project, function, **arguments):
    """`function(session=..., **arguments)` in one read of the project: a domain query
    called the way the app layer calls it."""
    with project.read() as session:
        return function(session=session, **arguments)
