"""The queue filtered and sorted by what the published relabelings say, on the real
ReaL and cleanlab files: some source accepts the prediction, sources disagree, every
covering source rejects it, no source covers the image. Expected sets are worked out
here from the files themselves."""

from __future__ import annotations

import json

import pytest
from project_data import new_project
from sqlalchemy import insert

from db.engine import write_session
from db.tables import Image, Mistake, Model, Run
from reviewer.app.evidence import import_evidence
from reviewer.items import Item
from reviewer.project import Project
from reviewer.review.queue_filter import QueueFilter
from reviewer.review.queue_load import load_queue


def add_named_mistakes(project: Project, mistakes: dict[str, int], model: str = "m") -> dict[str, Item]:
    """One mistake per (validation file name, predicted class), found by one run of `model`."""
    with write_session(project.engine) as session:
        ids = {}
        for name in mistakes:
            row = Image(file_name=name, original_label=0)
            session.add(row)
            session.flush()
            ids[name] = row.id
        model = Model(name=model, source="hub")
        session.add(model)
        session.flush()
        run = Run(model_id=model.id, status="complete", num_images=len(mistakes))
        session.add(run)
        session.flush()
        session.execute(insert(Mistake), [{"run_id": run.id, "image_id": ids[n], "predicted": p, "probability": 0.5,
                                           "novel": True, "hierarchy_distance": 3} for n, p in mistakes.items()])
        project.run_id = run.id
    return {name: Item(ids[name], p) for name, p in mistakes.items()}


@pytest.fixture
def real_and_cleanlab(shared_data):
    published = shared_data / "published"
    real = json.loads((published / "real" / "real.json").read_text())
    flagged = {row["id"]: row for row in json.loads((published / "label-errors" / "imagenet_mturk.json").read_text())}
    return published, real, flagged


def test_evidence_filters_and_sort_on_the_real_files(tmp_path, real_and_cleanlab):
    published, real, flagged = real_and_cleanlab
    # Images 1-40 that cleanlab did not flag: ReaL alone speaks (accepts: the prediction is one of
    # its labels; rejects: it has labels, not this one; nothing: it left the image out).
    plain = [k for k in range(1, 200) if k not in flagged][:40]
    mistakes = {f"ILSVRC2012_val_{k:08d}.JPEG": (real[k - 1][0] if real[k - 1] and k % 2 else
                                                 (real[k - 1][0] + 1) % 1000 if real[k - 1] else 7)
                for k in plain}
    # An image cleanlab flagged whose guessed label five workers chose and ReaL does not list:
    # predicting the guessed label, the two sources disagree.
    disputed = next(row for k, row in sorted(flagged.items()) if row["mturk"]["guessed"] == 5
                    and real[k - 1] and row["our_guessed_label"] not in real[k - 1])
    disputed_name = f"ILSVRC2012_val_{disputed['id']:08d}.JPEG"
    mistakes[disputed_name] = disputed["our_guessed_label"]
    project = new_project(tmp_path / "p")
    items = add_named_mistakes(project, mistakes)
    # A non-validation image: no source covers it.
    items.update(add_named_mistakes(project, {"my_photo.JPEG": 5}, model="m2"))
    import_evidence(project, [published / "real" / "real.json", published / "label-errors" / "imagenet_mturk.json"])

    def accepted_by_real(name: str) -> bool:
        k = int(name[15:23])
        return mistakes[name] in real[k - 1]

    expected_accepted = {items[n] for n in mistakes if n != disputed_name and accepted_by_real(n)} | {items[disputed_name]}
    expected_rejected = {items[n] for n in mistakes if n != disputed_name and real[int(n[15:23]) - 1]
                         and not accepted_by_real(n)}
    assert expected_accepted and expected_rejected
    with project.read() as session:
        def photo_run_shows(**kw) -> set[Item]:  # my_photo is the second run's one mistake
            queue = load_queue(session=session, run_id=_run(session, items["my_photo.JPEG"]),
                               panelist_id=None, queue_filter=QueueFilter(**kw))
            return {e.item for e in queue.shown()}

        first = _run(session, items[disputed_name])
        queue = load_queue(session=session, run_id=first, panelist_id=None)
        accepted = {e.item for e in queue.entries if QueueFilter(evidence="accepted").accepts(e)}
        rejected = {e.item for e in queue.entries if QueueFilter(evidence="rejected").accepts(e)}
        disputed_items = {e.item for e in queue.entries if QueueFilter(evidence="disputed").accepts(e)}
        assert accepted == expected_accepted
        assert rejected == expected_rejected
        assert disputed_items == {items[disputed_name]}
        queue.apply(QueueFilter(sort="evidence"))
        order = [e.item for e in queue.shown()]
        assert set(order[:len(expected_accepted)]) == expected_accepted  # accepted by some source first
        assert {e.item for e in queue.entries if QueueFilter(evidence="uncovered").accepts(e)} == set()
        assert photo_run_shows(evidence="uncovered") == {items["my_photo.JPEG"]}
        assert photo_run_shows(evidence="accepted") == set()


def _run(session, item: Item) -> int:
    from sqlalchemy import select

    return session.execute(select(Mistake.run_id).where(Mistake.image_id == item.image_id)).scalar_one()


def test_most_informative_next_reads_the_raters_consensus(tmp_path, shared_data):
    """Mistakes predicting a class the crowd raters were asked about carry its stored consensus; the
    informative order puts the one nearest 0.5 first and those not asked (the model's 0.5 here: as near as
    can be) after every consensus equally near. Expected from the stored payloads."""
    import numpy as np

    with np.load(shared_data / "published" / "real" / "raters.npz", allow_pickle=False) as z:
        info = z["info"]
    asked = {}
    for name, cls in info.tolist()[:400]:
        asked.setdefault(name, int(cls))
    mistakes = dict(list(asked.items())[:12]) | {"ILSVRC2012_val_00049999.JPEG": 3}  # the last: not asked
    project = new_project(tmp_path / "p")
    items = add_named_mistakes(project, mistakes)
    import_evidence(project, [shared_data / "published" / "real" / "raters.npz"])
    from sqlalchemy import select

    from db.tables import EvidenceItem
    with project.read() as session:
        stored = {name: {c: p for c, p in json.loads(payload)["consensus"]}
                  for name, payload in session.execute(select(EvidenceItem.image_name, EvidenceItem.payload))}
    queue = project_queue(project, QueueFilter(sort="informative"))
    consensus = {e.file_name: e.consensus for e in queue.shown()}
    assert consensus == {name: stored.get(name, {}).get(cls) for name, cls in mistakes.items()}
    assert consensus["ILSVRC2012_val_00049999.JPEG"] is None and all(
        p is not None for name, p in consensus.items() if name != "ILSVRC2012_val_00049999.JPEG")
    expected = sorted(mistakes, key=lambda n: (round(abs(0.5 - (0.5 if consensus[n] is None else consensus[n])), 9),
                                               consensus[n] is None, items[n].image_id))
    assert [e.file_name for e in queue.shown()] == expected
    project.close()


def project_queue(project, queue_filter):
    with project.read() as session:
        return load_queue(session=session, run_id=project.run_id, panelist_id=None, queue_filter=queue_filter)
