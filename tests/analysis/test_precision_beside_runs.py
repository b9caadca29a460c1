"""The precision a run computed in, beside the run wherever the analysis report lists runs
(Table 1 and the leaderboard, in the Markdown/HTML report and the analysis window's tabs):
a bf16 run's figures are not an fp32 run's (issue 27)."""

from __future__ import annotations

from project_data import new_project
from review_data import add_images, add_run
from sqlalchemy import update

from db.engine import write_session
from db.tables import Run
from reviewer.analysis.render import write_report
from reviewer.app.report import build_report
from reviewer.evaluation.slices import save_slice


def test_table_1_and_the_leaderboard_say_what_each_run_computed_in(tmp_path):
    project = new_project(tmp_path / "p")
    ids = add_images(project, [1, 2, 3, 4, 5, 6])
    exact = add_run(project, "model-A", dict(zip(ids, [1, 2, 3, 40, 50, 60])))
    reduced = add_run(project, "model-B", dict(zip(ids, [1, 2, 30, 4, 50, 6])))
    add_run(project, "model-C", dict(zip(ids, [1, 2, 3, 4, 5, 60])))  # recorded before precision was a choice
    project.write(lambda session: save_slice(session=session, name="imagenet_m", image_ids=ids[2:]))
    with write_session(project.engine) as session:
        for run_id, precision in ((exact, "fp32"), (reduced, "bf16")):
            session.execute(update(Run).where(Run.id == run_id).values(preprocessing={"precision": precision}))
    report = build_report(project)
    text = write_report(report, tmp_path / "md", fmt="markdown").read_text()
    table_1 = text[text.index("Table 1"):text.index("\n## ", text.index("Table 1"))]
    board = text[text.index("Leaderboard on"):]
    board = board[:board.index("\n## ")] if "\n## " in board else board
    for section in (table_1, board):
        assert "computed in |" in section
        rows = {line.split("|")[2].strip(): line for line in section.splitlines() if line.startswith("| ")}
        assert rows["model-A"].rstrip().endswith("| fp32 |")
        assert rows["model-B"].rstrip().endswith("| bf16 |")
        assert rows["model-C"].rstrip().endswith("| fp32 |")  # older runs computed in fp32
    project.close()
