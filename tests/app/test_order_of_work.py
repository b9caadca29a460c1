"""A run's mistakes follow the project's labels as they are now, whatever the order in which
files and runs arrived (issue 34): one project built in every order of (original labels,
multi-labels, runs, ReaL, a published review) gives the same panel, report and export.

All 120 orders are built (sharing their common beginnings: a project folder is copied after
each step, as a template is, instead of being rebuilt) and compared on what the panel works
from: every run's stored mistakes (image, predicted, novelty, WordNet distance), the labels,
and `panel-status --json --items` after the same votes. `report --json` and the export are
compared on the five rotations of the steps, in which every step comes before and after
every other one (the report costs seconds; the rotations cover each pair's two orders).
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
from pathlib import Path

import pytest
from order_data import STEPS, build_inputs
from order_data import cli as _cli
from sqlalchemy import select

from db.tables import Image, Label, Mistake, Run
from reviewer.app import panel as acts
from reviewer.app.imports import import_labels, import_review, init_project
from reviewer.app.runs import import_scores
from reviewer.project import Project

pytestmark = pytest.mark.slow

ROTATIONS = [STEPS[i:] + STEPS[:i] for i in range(len(STEPS))]


def _step(project: Project, step: str, inputs: dict[str, Path]) -> None:
    if step in ("original", "multilabels", "real"):
        import_labels(project, [inputs[step]])
    elif step == "review":
        import_review(project, inputs["review"], model="vit3b")
    else:
        import_scores(project, inputs["run_a"], model="model-a")
        import_scores(project, inputs["run_b"], model="model-b")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[tuple[str, ...], Path]:
    """{order: project folder} for every order of the five steps, then the same votes in each."""
    root = tmp_path_factory.mktemp("orders")
    inputs = build_inputs(root / "inputs")
    base = root / "base"
    init_project(base, images=inputs["images"])[0].close()
    folders: dict[tuple[str, ...], Path] = {(): base}
    for length in range(1, len(STEPS) + 1):
        for order in itertools.permutations(STEPS, length):
            folder = root / "-".join(order)
            shutil.copytree(folders[order[:-1]], folder)
            project = Project.open(folder)
            _step(project, order[-1], inputs)
            project.close()
            folders[order] = folder
    done = {order: folder for order, folder in folders.items() if len(order) == len(STEPS)}
    for folder in done.values():
        _vote(Project.open(folder))
    return done


def _vote(project: Project) -> None:
    """Two panelists vote on the same items by name, as `reviewer vote` does: ann says wrong,
    bob agrees on every other item and says unclear on the rest."""
    acts.add_panelist(project, "ann", chair=True)
    acts.add_panelist(project, "bob")
    status = _cli("panel-status", str(project.root), "--json", "--items")
    items = sorted({(row["image"], row["predicted"]) for row in json.loads(status)["items"] if row["phase"] == 1})
    assert len(items) >= 5, "the scenario must leave the panel novel mistakes to vote on"
    for n, (image, predicted) in enumerate(items):
        item = acts.ItemName(image, str(predicted))
        acts.vote(project, panelist_id=acts.ByName("ann"), item=item, verdict="wrong", severity="major",
                  category="fine_grained")
        if n % 2:
            acts.vote(project, panelist_id=acts.ByName("bob"), item=item, verdict="unclear")
        else:
            acts.vote(project, panelist_id=acts.ByName("bob"), item=item, verdict="wrong", severity="major",
                      category="fine_grained")
    project.close()


def _stored(folder: Path) -> dict:
    """What the panel works from, by image file name (ids are the same in every order, but say nothing)."""
    project = Project.open(folder)
    with project.read() as session:
        names = dict(session.execute(select(Image.id, Image.file_name)).all())
        mistakes = sorted((run, names[image], predicted, bool(novel), distance) for run, image, predicted, novel, distance
                          in session.execute(select(Mistake.run_id, Mistake.image_id, Mistake.predicted, Mistake.novel,
                                                    Mistake.hierarchy_distance)))
        labels = sorted((names[image], cls, kind, label_set) for image, cls, kind, label_set in session.execute(
            select(Label.image_id, Label.class_index, Label.kind, Label.label_set)))
        images = sorted((r.file_name, r.original_label, r.problematic, r.multilabel)
                        for r in session.execute(select(Image)).scalars())
        reported = sorted((r.id, (r.report or {}).get("mistakes")) for r in session.execute(select(Run)).scalars())
    project.close()
    return {"mistakes": mistakes, "labels": labels, "images": images, "run_counts": reported}


def _without_times_and_places(text: str, folder: Path) -> str:
    text = text.replace(str(folder), "PROJECT").replace(folder.name, "NAME")
    return re.sub(r'"(created_at|imported_at|computed_at|finished_at|at)": "[^"]*"', r'"\1": "TIME"', text)


def test_every_order_stores_the_same_mistakes_and_panel_status(built):
    reference_order = STEPS
    reference = _stored(built[reference_order])
    status = _cli("panel-status", str(built[reference_order]), "--json", "--items")
    # The scenario exercises what the labels decide: mistakes outside the multi-label set and on
    # problematic images are not stored, a published review's prediction is not novel.
    assert reference["mistakes"] and any(not novel for *_, novel, _ in reference["mistakes"])
    assert all(count is not None for _, count in reference["run_counts"])
    assert len(built) == 120
    for order, folder in built.items():
        assert _stored(folder) == reference, f"order {order} stores other mistakes or labels"
        assert _cli("panel-status", str(folder), "--json", "--items") == status, f"order {order}"


def test_the_multilabels_take_runs_imported_before_them_to_the_multilabel_set(built):
    """The issue's case: a run imported before the multi-labels kept its mistakes against the
    original labels on every image; now only images of the multi-label set, not problematic, hold
    mistakes, and each stored count is the run's number of mistakes."""
    folder = built[("runs", "original", "multilabels", "real", "review")]
    project = Project.open(folder)
    with project.read() as session:
        outside = session.execute(select(Mistake.id).join(Image, Image.id == Mistake.image_id).where(
            (Image.multilabel.is_(False)) | (Image.problematic.is_(True)))).all()
        counts = {run: n for run, n in _stored(folder)["run_counts"]}
        stored = {run: session.execute(select(Mistake.id).where(Mistake.run_id == run)).all() for run in counts}
    project.close()
    assert outside == []
    assert {run: len(rows) for run, rows in stored.items()} == counts


@pytest.mark.parametrize("order", ROTATIONS, ids=["-".join(o) for o in ROTATIONS])
def test_report_and_export_are_the_same_in_every_rotation(built, order, tmp_path):
    reference = built[STEPS]
    report = _without_times_and_places(_cli("report", str(reference), "--json"), reference)
    assert _without_times_and_places(_cli("report", str(built[order]), "--json"), built[order]) == report
    exported = {}
    for name, folder in (("reference", reference), ("order", built[order])):
        _cli("export", str(folder), str(tmp_path / name))
        out = next((tmp_path / name).iterdir())
        files = {}
        for path in sorted(p for p in out.rglob("*") if p.is_file()):
            text = _without_times_and_places(path.read_text(), folder)
            if path.name == "manifest.json":  # the inputs are listed in the order they were imported: the one difference
                manifest = json.loads(text)
                manifest["inputs"] = sorted(manifest["inputs"], key=json.dumps)
                text = json.dumps(manifest, sort_keys=True)
            files[str(path.relative_to(out))] = text
        exported[name] = files
    assert exported["order"] == exported["reference"]
