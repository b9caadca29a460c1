"""Every place that counts the panel's decisions says the same number (issue 23), in one
scenario: a chair and two panelists; items decided unanimously (no meeting), a dispute
locked by the majority, a three-way tie locked as "unclear", an override with a reason,
and an item voted by two of the three (not decided). panel-status, the report, the
export (its decided items, its annotated images and its major-error split), the
window's progress strip, the analysis window's Project tab and its Categories tab
(the reviewed mistakes: the items decided "wrong") agree.

tests/panel/test_one_meaning_of_decided.py checks the command line's counts after an
amended vote and with unanimity left to the chair; this one adds the window."""

from __future__ import annotations

import json

from project_data import new_project
from PySide6.QtWidgets import QLabel, QTableWidget
from review_data import add_images, add_run

from reviewer.cli import main
from reviewer.items import Item


def run(capsys, *args) -> str:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def name(item) -> str:
    return f"ILSVRC2012_val_{item.image_id:08d}.JPEG"


def test_every_count_of_decided_items_agrees_in_the_cli_the_export_and_the_window(qtbot, tmp_path, capsys):
    project = new_project(tmp_path / "p")
    # Six images with an original label only (no multi-label set), each a mistake of model-A.
    ids = add_images(project, [1, 2, 3, 4, 5, 6], multilabel=False)
    add_run(project, "model-A", {image_id: 10 + i for i, image_id in enumerate(ids)})
    a, b, c, d, e, f = (Item(image_id, 10 + i) for i, image_id in enumerate(ids))
    project.close()
    root = tmp_path / "p"
    run(capsys, "panelist", root, "ann", "--chair")
    run(capsys, "panelist", root, "bob")
    run(capsys, "panelist", root, "cy")

    def vote(who, item, verdict, *rating):
        run(capsys, "vote", root, "--panelist", who, "--image", name(item), "--predicted", item.predicted,
            "--verdict", verdict, "--not-problematic", *rating)

    major = ("--severity", "major", "--category", "fine_grained")
    for who in ("ann", "bob", "cy"):
        vote(who, a, "wrong", *major)  # unanimous: decided without a meeting
        vote(who, b, "correct")  # unanimous
    vote("ann", c, "wrong", *major)  # a dispute: the majority says wrong, major
    vote("bob", c, "wrong", *major)
    vote("cy", c, "correct")
    vote("ann", d, "wrong", *major)  # a three-way tie: unclear
    vote("bob", d, "correct")
    vote("cy", d, "unclear")
    vote("ann", e, "correct")  # the chair overrides the majority's "wrong"
    vote("bob", e, "wrong", *major)
    vote("cy", e, "wrong", *major)
    vote("ann", f, "correct")  # cy has not voted: not decided
    vote("bob", f, "correct")
    for item in (c, d):
        run(capsys, "decide", root, "--chair", "ann", "--image", name(item), "--predicted", item.predicted)
    run(capsys, "decide", root, "--chair", "ann", "--image", name(e), "--predicted", e.predicted, "--override",
        "--verdict", "unclear", "--reason", "the object is cut off")
    # Phase 2: c stands wrong, so cy (who voted correct) rates it too; then its severity is settled.
    run(capsys, "vote", root, "--panelist", "cy", "--image", name(c), "--predicted", c.predicted, *major)
    decided, wrong_major = 5, 2  # a b c d e; a and c are decided wrong, major

    # The command line.
    status = json.loads(run(capsys, "panel-status", root, "--json"))
    assert next(p for p in status["phases"] if p["phase"] == 1)["decided"] == decided
    report = json.loads(run(capsys, "report", root, "--json"))["analysis"]["decision_status"]
    assert (report["locked"], report["voted_not_locked"]) == (decided, 1)
    out = run(capsys, "split", root, "--runs", "model-A", "--k", "1", "--save", "imagenet_m")
    assert f": {wrong_major} selected," in out and f"saved {wrong_major} images as slice 'imagenet_m'" in out, out
    out = run(capsys, "export", root, tmp_path / "out")
    manifest = json.loads(next((tmp_path / "out").rglob("manifest.json")).read_text())
    reviews, counts = manifest["reviews"], manifest["counts"]
    assert reviews["decided_items"] == decided and reviews["voted_not_decided"] == 1
    assert reviews["decided_how"] == {"unanimous": 2, "majority": 1, "tie_unclear": 1, "override": 1}
    # Each item is on an image of its own: every decided item annotates its image, no other does.
    assert counts["annotated_images"] == decided and f"{decided} annotated images" in out
    assert counts["split_images"] == manifest["split"]["images"] == wrong_major
    assert manifest["models"]["model-A"]["mistakes"] == wrong_major

    # The window, as the chair.
    from reviewer.app.preferences import Preferences
    from reviewer.ui.app import create_app
    from reviewer.ui.qt_main_window import QtMainWindow
    from reviewer.ui.review.qt_progress_strip import QtProgressStrip

    create_app()
    window = QtMainWindow(preferences=Preferences(panelist_name="ann"))
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    with qtbot.waitSignal(window.page.mistake_shown, timeout=20_000):
        window.open_project(str(root))
    strip = window.page.findChild(QtProgressStrip)
    qtbot.waitUntil(lambda: bool(strip.text_lines()), timeout=10_000)
    assert strip.text_lines()[0] == f"Phase 1: me 6/6 · panel {decided}/6"

    analysis = window.open_analysis_view()
    qtbot.waitUntil(lambda: analysis.tabs.count() > 0, timeout=60_000)  # the report, computed on a worker

    def tab(title: str):
        index = next(i for i in range(analysis.tabs.count()) if analysis.tabs.tabText(i) == title)
        analysis.tabs.setCurrentIndex(index)
        return analysis.tabs.currentWidget().widget()

    texts = " ".join(label.text() for label in tab("Project").findChildren(QLabel))
    assert f"The panel: {decided} of 6 items with a final decision" in texts
    assert f"{decided} final decisions; 1 item has votes but no final decision" in texts
    categories = tab("Categories").findChildren(QTableWidget)[0]
    headers = [categories.horizontalHeaderItem(i).text() for i in range(categories.columnCount())]
    row = {headers[i]: categories.item(0, i).text() for i in range(categories.columnCount())}
    assert row["reviewed"] == str(wrong_major)
    analysis.shutdown()
    window.close()
