"""The panel's scope and the labels' word on what is a mistake (issue 34): the chair chooses
which runs the panel reviews, the counts cover that scope only, an item several runs made is
one item; an item the labels no longer call a mistake keeps its history and counts nowhere.

Reference values are read straight from the Mistake table and the stored votes, not through
the code under test."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from order_data import build_inputs
from order_data import cli as _cli
from sqlalchemy import func, select

from db.tables import Image, Mistake, Vote
from reviewer.app import panel as acts
from reviewer.app.imports import import_labels, init_project
from reviewer.app.runs import import_scores
from reviewer.app.scope import set_panel_scope
from reviewer.errors import UserError
from reviewer.panel.lookup import NO_LONGER_A_MISTAKE
from reviewer.project import Project


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("scope")
    inputs = build_inputs(root / "inputs")
    project, _ = init_project(root / "template", images=inputs["images"])
    import_labels(project, [inputs["original"], inputs["multilabels"]])
    import_scores(project, inputs["run_a"], model="model-a")
    import_scores(project, inputs["run_b"], model="model-b")
    acts.add_panelist(project, "ann", chair=True)
    acts.add_panelist(project, "bob")
    project.close()
    return root / "template", inputs


@pytest.fixture
def project(template, tmp_path) -> Project:
    shutil.copytree(template[0], tmp_path / "p")
    project = Project.open(tmp_path / "p")
    yield project
    project.close()


def _status(project: Project) -> dict:
    return json.loads(_cli("panel-status", str(project.root), "--json", "--items"))


def _items_of(project: Project, runs: tuple[int, ...]) -> set[tuple[str, int]]:
    with project.read() as session:
        return set(session.execute(select(Image.file_name, Mistake.predicted).join(Image, Image.id == Mistake.image_id)
                                   .where(Mistake.run_id.in_(runs))).all())


def _listed(status: dict) -> set[tuple[str, int]]:
    return {(row["image"], row["predicted"]) for row in status["items"]}


def test_every_run_by_default_and_one_item_per_mistake_however_many_runs_made_it(project):
    status = _status(project)
    both = _items_of(project, (1,)) & _items_of(project, (2,))
    assert both, "the scenario has a mistake both runs made"
    assert status["scope"]["runs"] is None
    assert status["scope"]["items"] == len(_items_of(project, (1, 2)))
    assert _listed(status) <= _items_of(project, (1, 2))
    rows = [row for row in status["items"] if (row["image"], row["predicted"]) in both]
    assert rows and all(row["models"] == ["model-a", "model-b"] and row["runs"] == [1, 2] for row in rows)


def test_the_chair_narrows_the_scope_and_the_counts_follow(project):
    with pytest.raises(UserError, match="only the chair"):
        set_panel_scope(project, chair_id=acts.ByName("bob"), runs=[1])
    change = set_panel_scope(project, chair_id=acts.ByName("ann"), runs=[1]).value
    only_b = _items_of(project, (2,)) - _items_of(project, (1,))
    assert change.added == 0 and change.removed == len(only_b)
    status = _status(project)
    assert status["scope"] == {"runs": [1], "slice": None, "items": len(_items_of(project, (1,))),
                               "no_longer_mistakes_with_history": 0, "outside_scope_with_history": 0}
    assert _listed(status) <= _items_of(project, (1,))
    # A vote on a mistake only the other run made is refused, saying why and what to do.
    image, predicted = sorted(only_b)[0]
    with pytest.raises(UserError, match="outside the panel's scope.*panel-scope"):
        acts.vote(project, panelist_id=acts.ByName("bob"), item=acts.ItemName(image, str(predicted)), verdict="wrong")
    # Adding the second model adds only its new items, and says how many.
    change = set_panel_scope(project, chair_id=acts.ByName("ann"), add=[2]).value
    assert change.added == len(only_b) and change.removed == 0
    assert "+%d item" % len(only_b) in "\n".join(change.lines())
    assert _status(project)["scope"]["items"] == len(_items_of(project, (1, 2)))


def test_a_panelist_who_voted_every_item_of_the_scope_has_nothing_left_to_do(project):
    set_panel_scope(project, chair_id=acts.ByName("ann"), runs=[2])
    for row in _status(project)["items"]:
        item = acts.ItemName(row["image"], str(row["predicted"]))
        if row["phase"] == 1:
            acts.vote(project, panelist_id=acts.ByName("bob"), item=item, verdict="correct")
        else:
            acts.vote(project, panelist_id=acts.ByName("bob"), item=item, severity="minor", category="fine_grained")
    status = _status(project)
    bob = [p for phase in status["phases"] for p in phase["panelists"] if p["name"] == "bob"]
    assert [p["to_do"] for p in bob] == [0, 0]
    assert sum(p["done"] for p in bob) == len(status["items"]) > 0
    ann = [p for phase in status["phases"] for p in phase["panelists"] if p["name"] == "ann"]
    assert sum(p["to_do"] for p in ann) == len(status["items"])


def _accepting_row(inputs: dict, image: str, predicted: int) -> Path:
    """The multi-label CSV's row of `image`, with the predicted class added to its correct labels."""
    with open(inputs["multilabels"], newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = reader.fieldnames, [r for r in reader if r["id"] == image]
    row = rows[0]
    row["proposed_labels"] = ", ".join([c.strip() for c in row["proposed_labels"].split(",") if c.strip()]
                                       + [str(predicted)])
    path = inputs["multilabels"].with_name(f"relabel_{image}.csv")
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerow(row)
    return path


def test_an_item_the_labels_now_accept_keeps_its_history_and_counts_nowhere(project, template):
    status = _status(project)
    row = next(r for r in status["items"] if r["phase"] == 1 and r["image"] in _multilabel_images(project))
    image, predicted = row["image"], row["predicted"]
    item = acts.ItemName(image, str(predicted))
    for name in ("ann", "bob"):
        acts.vote(project, panelist_id=acts.ByName(name), item=item, verdict="wrong", severity="major",
                  category="fine_grained")
    acts.note(project, panelist_id=acts.ByName("ann"), item=item, text="a second object, surely")
    before = _status(project)
    assert before["phases"][0]["decided"] >= 1

    summaries = import_labels(project, [_accepting_row(template[1], image, predicted)]).value
    notes = "\n".join(n for s in summaries for n in s.notes)
    assert "no longer mistakes under the current labels" in notes

    after = _status(project)
    assert (image, predicted) not in _listed(after)
    assert after["scope"]["no_longer_mistakes_with_history"] == 1
    assert after["phases"][0]["decided"] == before["phases"][0]["decided"] - 1
    assert after["phases"][0]["items"] == before["phases"][0]["items"] - 1
    with project.read() as session:  # the history is kept
        assert session.execute(select(func.count(Vote.id))).scalar_one() == 2
    shown = _cli("show", str(project.root), "--image", image, "--predicted", str(predicted))
    assert NO_LONGER_A_MISTAKE in shown and "a second object, surely" in shown
    assert json.loads(_cli("show", str(project.root), "--image", image, "--predicted", str(predicted),
                           "--json"))["panel"]["standing"] == NO_LONGER_A_MISTAKE
    with pytest.raises(UserError, match=NO_LONGER_A_MISTAKE):
        acts.vote(project, panelist_id=acts.ByName("bob"), item=item, verdict="unclear")
    status = json.loads(_cli("report", str(project.root), "--json"))["analysis"]["decision_status"]
    assert status["no_longer_mistakes_with_history"] == 1 and NO_LONGER_A_MISTAKE in status["note"]
    out = _cli("export", str(project.root), str(project.root.parent / "out"))
    assert "votes and decisions kept: 1 no longer mistakes under the current labels" in out  # as the window says
    manifest = json.loads(next((project.root.parent / "out").glob("*/manifest.json")).read_text())
    assert manifest["reviews"]["no_longer_mistakes_with_history"] == 1
    assert image not in {d["image"] for d in manifest["reviews"]["decisions"]}


def _multilabel_images(project: Project) -> set[str]:
    with project.read() as session:
        return set(session.execute(select(Image.file_name).where(Image.multilabel.is_(True))).scalars())
