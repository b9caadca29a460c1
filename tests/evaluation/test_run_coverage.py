"""A run made with --limit N covers its first N images only: every table says so, where it
read "all" and a reader took an MLA over 94 images for the model's."""

from __future__ import annotations

import json

from project_data import new_project
from review_data import add_images, add_run
from sqlalchemy import update

from db.engine import write_session
from db.tables import Run
from reviewer.cli import main


def test_a_limited_run_is_named_first_n_everywhere(tmp_path, capsys):
    project = new_project(tmp_path / "p")
    ids = add_images(project, [0, 1, 2, 3])
    full = add_run(project, "model-full", dict(zip(ids, [0, 1, 2, 9])))
    limited = add_run(project, "model-limited", dict(zip(ids[:2], [0, 5])))
    with write_session(project.engine) as session:  # as `reviewer predict --limit 2` records it
        session.execute(update(Run).where(Run.id == limited).values(report={"limit": 2}))
    project.close()
    root = str(tmp_path / "p")

    assert main(["report", root, "--json"]) == 0
    runs = {r["id"]: r for r in json.loads(capsys.readouterr().out)["runs"]}
    assert (runs[full]["limit"], runs[full]["images_covered"]) == (None, "all")
    assert (runs[limited]["limit"], runs[limited]["images_covered"]) == (2, "first 2")

    assert main(["report", root]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = next(line for line in lines if "model-limited" in line)
    assert row.rstrip().endswith("first 2")
    assert next(line for line in lines if "model-full" in line).rstrip().endswith("all")

    # Which MLA is which: the report's columns are before the review, and it gives the after too.
    assert "MLA-after" in lines[2] and "MLA, MLA-org, MLA-obj: before the panel's review" in lines[3]

    assert main(["leaderboard", root]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "model-limited" in line)
    assert "first 2" in row and " all " not in row
    assert "* MLA after the panel's review" in out

    assert main(["report", root, "--format", "markdown", "--out", str(tmp_path / "md")]) == 0
    capsys.readouterr()
    text = next((tmp_path / "md").glob("*.md")).read_text()
    # Table 1 (MLA) and the leaderboard, the tables with an images column.
    assert text.count(f"| {limited} | model-limited | first 2 |") == 2
    assert f"| {limited} | model-limited | all |" not in text
