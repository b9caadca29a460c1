"""Zoom results stored with the run (table zoom_probe, migration 0008) on SQLite and PostgreSQL."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import func, inspect, select

from db import migrate
from db.tables import Image, Model, Prediction, Run, ZoomProbe
from reviewer.project import Project
from reviewer.runs.zoom import ZoomParams, ZoomResult, load_zoom, save_zoom


def result_of(model: str, *, done: int, sha: str | None = None, first_class: int = 7) -> ZoomResult:
    """A result over 3 scales with its first `done` cells computed."""
    result = ZoomResult.empty(ZoomParams(scales=(128, 224, 448), top_k=2), model=model, weights_sha256=sha,
                              image_size=(500, 375))
    for i in range(done):
        scale = result.params.scales[i // 9]
        result.set_cell(scale, (i % 9) // 3, i % 3, np.array([first_class + i, 3]), np.array([0.6, 0.1], np.float32))
    return result


def mistake_project(root, add_mistakes, url=None):
    """A project with one run that predicted class 42 for its one image."""
    project = Project.create(root, db_url=url)
    item = add_mistakes(project, [(42, True)])[0]
    with project.read() as session:
        run_id = session.execute(select(Run.id)).scalar_one()
    return project, run_id, item


def save(project, run_id, image, predicted, result) -> bool:
    return project.write(lambda s: save_zoom(session=s, run_id=run_id, image=image, predicted=predicted,
                                             result=result))


def check_round_trip(project, run_id, item):
    partial = result_of("demo-model", done=10)
    assert save(project, run_id, item.image_id, 42, partial)
    with project.read() as session:
        stored = load_zoom(session=session, run_id=run_id, image=item.image_id)
    assert stored.result.equals(partial, atol=5.1e-5) and not stored.complete and stored.predicted == 42
    assert stored.computed_at.tzinfo is not None

    full = result_of("demo-model", done=27, first_class=100)
    assert save(project, run_id, item.image_id, 42, full)  # a complete result is read before the partial one
    assert not save(project, run_id, item.image_id, 42, partial)  # a partial one is not even stored after it
    with project.read() as session:
        rows = session.execute(select(func.count(ZoomProbe.id))).scalar_one()
        stored = load_zoom(session=session, run_id=run_id, image=item.image_id)
    # Appended, never updated (a panelist's role may only insert: reviewer.panel.roles).
    assert rows == 2 and stored.complete and stored.result.equals(full, atol=5.1e-5)


def test_a_result_is_stored_with_the_run_and_read_back(tmp_path, add_mistakes):
    project, run_id, item = mistake_project(tmp_path / "p", add_mistakes)
    check_round_trip(project, run_id, item)
    with project.read() as session:
        file_name = session.get(Image, item.image_id).file_name
        assert load_zoom(session=session, run_id=run_id, image=file_name).complete  # by file name too
        assert load_zoom(session=session, run_id=run_id + 1, image=item.image_id) is None
        assert load_zoom(session=session, run_id=run_id, image=item.image_id, version=2) is None
        with pytest.raises(KeyError, match="no image named"):
            load_zoom(session=session, run_id=run_id, image="missing.JPEG")
    project.close()


def test_a_result_of_other_weights_or_another_class_is_refused(tmp_path, add_mistakes):
    project, run_id, item = mistake_project(tmp_path / "p", add_mistakes)
    with pytest.raises(ValueError, match="computed by resnet50"):
        save(project, run_id, item.image_id, 42, result_of("resnet50", done=27))

    def give_weights_and_prediction(session):
        model = session.execute(select(Model)).scalar_one()
        model.weights_sha256 = "a" * 64
        session.add(Prediction(run_id=run_id, image_id=item.image_id, pred_1=42, pred_2=1, pred_3=2, pred_4=3,
                               pred_5=4, prob_1=0.5, prob_2=0.1, prob_3=0.1, prob_4=0.1, prob_5=0.1))
    project.write(give_weights_and_prediction)
    with pytest.raises(ValueError, match="other weights"):
        save(project, run_id, item.image_id, 42, result_of("demo-model", done=27, sha="b" * 64))
    with pytest.raises(ValueError, match="predicted class 42"):
        save(project, run_id, item.image_id, 41, result_of("demo-model", done=27, sha="a" * 64))
    with project.read() as session:
        assert session.execute(select(func.count(ZoomProbe.id))).scalar_one() == 0
    assert save(project, run_id, item.image_id, 42, result_of("demo-model", done=27, sha="a" * 64))
    project.close()


def test_migration_0008_adds_and_drops_the_table(tmp_path):
    project = Project.create(tmp_path / "p")
    assert migrate.current_revision(project.engine) == migrate.head_revision()
    migrate.downgrade(project.engine, "0007")
    assert "zoom_probe" not in inspect(project.engine).get_table_names()
    migrate.upgrade(project.engine)
    assert "zoom_probe" in inspect(project.engine).get_table_names()
    project.close()


@pytest.mark.postgres
def test_results_are_stored_on_postgresql(tmp_path, add_mistakes, postgres_url):
    project, run_id, item = mistake_project(tmp_path / "p", add_mistakes, url=postgres_url)
    check_round_trip(project, run_id, item)
    # Panelists saving the same probe at once: no unique-key error, a row each, the newest read.
    from concurrent.futures import ThreadPoolExecutor

    results = [result_of("demo-model", done=27, first_class=200 + i) for i in range(6)]
    with ThreadPoolExecutor(6) as pool:
        saved = list(pool.map(lambda r: save(project, run_id, item.image_id, 42, r), results))
    assert all(saved)
    with project.read() as session:
        assert session.execute(select(func.count(ZoomProbe.id))).scalar_one() == 2 + 6
        stored = load_zoom(session=session, run_id=run_id, image=item.image_id)
    assert any(stored.result.equals(r, atol=5.1e-5) for r in results)
    project.close()
