"""Zoom results a panelist could forge (issue 29, finding 2): each result names who
computed it, a reader takes its own first, then the owner's or the chair's, and a
stored payload is validated before anything is allocated for it (a grid of 1500 once
asked every reader for petabytes) and must be the run's model's."""

from __future__ import annotations

import json

from sqlalchemy import select
from test_zoom_store import mistake_project, result_of

from db.tables import Panelist, ZoomProbe, utcnow
from reviewer.runs.zoom import load_zoom, save_zoom, to_json
from reviewer.runs.zoom.result import ZoomFormatError, from_json


def panelists(project, *names_and_chair):
    def add(session):
        rows = [Panelist(name=n, is_chair=chair) for n, chair in names_and_chair]
        session.add_all(rows)
        session.flush()
        return [r.id for r in rows]
    return project.write(add)


def store(project, run_id, item, result, by):
    return project.write(lambda s: save_zoom(session=s, run_id=run_id, image=item.image_id, predicted=42,
                                             result=result, computed_by=by))


def read(project, run_id, item, reader):
    with project.read() as session:
        return load_zoom(session=session, run_id=run_id, image=item.image_id, reader_id=reader)


def test_a_reader_takes_its_own_result_then_the_chairs_then_anothers(tmp_path, add_mistakes):
    project, run_id, item = mistake_project(tmp_path / "p", add_mistakes)
    ann, bob, cy = panelists(project, ("ann", True), ("bob", False), ("cy", False))
    forged = result_of("demo-model", done=27, first_class=500)
    store(project, run_id, item, forged, bob)
    # Only bob's result exists: cy sees it, named as bob's.
    seen = read(project, run_id, item, cy)
    assert seen.computed_by == "bob" and seen.result.equals(forged, atol=5.1e-5)
    honest = result_of("demo-model", done=27, first_class=100)
    store(project, run_id, item, honest, ann)
    # The chair's result comes before another panelist's, even one stored earlier or later.
    assert read(project, run_id, item, cy).computed_by == "ann"
    store(project, run_id, item, result_of("demo-model", done=27, first_class=600), bob)
    assert read(project, run_id, item, cy).computed_by == "ann"
    # One's own comes first, even partial: bob reads his, cy her own once she has one.
    assert read(project, run_id, item, bob).computed_by == "bob"
    mine = result_of("demo-model", done=9, first_class=300)
    store(project, run_id, item, mine, cy)
    seen = read(project, run_id, item, cy)
    assert seen.computed_by == "cy" and not seen.complete and seen.result.equals(mine, atol=5.1e-5)
    # The owner (no reviewer id) reads the chair's before a panelist's.
    assert read(project, run_id, item, None).computed_by == "ann"
    project.close()


def planted(project, run_id, item, payload: str, by=None):
    """A row written as raw SQL would write it, bypassing save_zoom's checks."""
    project.write(lambda s: s.add(ZoomProbe(run_id=run_id, image_id=item.image_id, predicted=42, probe_version=1,
                                            complete=True, payload=payload, computed_at=utcnow(),
                                            computed_by=by)))


def test_an_oversized_or_foreign_payload_is_passed_over_not_allocated(tmp_path, add_mistakes):
    project, run_id, item = mistake_project(tmp_path / "p", add_mistakes)
    (bob,) = panelists(project, ("bob", False))
    honest = result_of("demo-model", done=27)
    store(project, run_id, item, honest, None)
    data = json.loads(to_json(result_of("demo-model", done=27, first_class=900)))
    huge = {**data, "params": {**data["params"], "grid": 1500}}
    try:
        from_json(json.dumps(huge))
        raise AssertionError("a grid of 1500 was read")
    except ZoomFormatError as exc:
        assert "grid 1500" in str(exc)
    many = {**data, "params": {**data["params"], "scales": list(range(1, 200))}}
    wide = {**data, "image_size": [10 ** 9, 10]}
    other = {**data, "model": "resnet50"}
    markup = {**data, "model": "<img src='/etc/passwd'>"}
    for bad in (huge, many, wide, other, markup):
        planted(project, run_id, item, json.dumps(bad), by=bob)
    # Every planted row is newer and bob's: each is passed over, the owner's honest one read.
    seen = read(project, run_id, item, None)
    assert seen.computed_by is None and seen.result.equals(honest, atol=5.1e-5)
    # Even bob, reading his own rows first, never gets one of them.
    assert read(project, run_id, item, bob).result.equals(honest, atol=5.1e-5)
    with project.read() as session:
        assert len(session.execute(select(ZoomProbe.id)).all()) == 6
    project.close()


def test_only_the_owners_and_the_chairs_results_count_and_the_count_says_so(tmp_path, add_mistakes):
    """Issue 36, H4: a well-formed result inserted under a panelist's own id was counted by the
    report and the zoom-hard split, unnamed. It still serves its maker's window; it counts nowhere."""
    from reviewer.runs.zoom.store import run_zooms, zoom_provenance

    project, run_id, item = mistake_project(tmp_path / "p", add_mistakes)
    ann, bob = panelists(project, ("ann", True), ("bob", False))
    store(project, run_id, item, result_of("demo-model", done=27, first_class=42), bob)
    with project.read() as session:
        assert run_zooms(session=session, run_id=run_id, counted_only=True) == {}
        assert run_zooms(session=session, run_id=run_id, reader_id=bob)[(item.image_id, 42)].computed_by == bob
        whose = zoom_provenance(session=session)
    assert whose.counted == () and whose.left_out == 1 and whose.left_out_by == ("bob",)
    assert "1 result(s) computed by bob are not counted" in whose.text()
    store(project, run_id, item, result_of("demo-model", done=27, first_class=100), ann)
    store(project, run_id, item, result_of("demo-model", done=27, first_class=200), None)
    with project.read() as session:
        counted = run_zooms(session=session, run_id=run_id, counted_only=True)[(item.image_id, 42)]
        whose = zoom_provenance(session=session, run_ids=[run_id])
    assert counted.computed_by in (None, ann)
    assert whose.counted == ("the project's owner", "the chair ann") and whose.left_out == 1
    assert whose.text().startswith("counts the zoom results computed by the project's owner and the chair ann")
    project.close()
