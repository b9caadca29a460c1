"""A second model rerun on a slice: only its unreviewed predictions are queued;
the leaderboard lists every run with its slice score and interval."""

from __future__ import annotations

import json

import pytest
from project_data import new_project
from review_data import add_images, add_run, decide, read_with, val_name
from scipy.stats import beta

from reviewer.analysis.plots import plot_trend
from reviewer.app.imports import import_review
from reviewer.cli import main
from reviewer.evaluation.leaderboard import leaderboard, off_trend
from reviewer.evaluation.slices import save_slice
from reviewer.review.pending import pending_items, rerun_summary


@pytest.fixture
def reruns(templates, tmp_path):
    """Six images (original labels 1-6). Run A over all of them; the panel decides
    (img4, 40) correct and (img6, 60) wrong; a published review judged (img5, 55).
    Model B is rerun on the slice imagenet_m = images 3-6 only."""
    def build(tmp_path):
        project = new_project(tmp_path / "p")
        ids = add_images(project, [1, 2, 3, 4, 5, 6])
        img = dict(zip(range(1, 7), ids))
        review = tmp_path / "earlier_mistakes.json"
        review.write_text(json.dumps({val_name(5): {"top_prediction": 55, "failure category": "Fine-grained error",
                                                    "failure severity": "Major"}}))
        import_review(project, review, model="earlier-model")
        run_a = add_run(project, "model-A", {img[1]: 1, img[2]: 2, img[3]: 3, img[4]: 40, img[5]: 50, img[6]: 60})
        decide(project, img[4], 40, "correct")
        decide(project, img[6], 60, "wrong", severity="major", category="spurious_correlation")
        project.write(lambda session: save_slice(session=session, name="imagenet_m",
                                                 image_ids=[img[3], img[4], img[5], img[6]]))
        run_b = add_run(project, "model-B", {img[3]: 30, img[4]: 40, img[5]: 55, img[6]: 6}, image_slice="imagenet_m")
        project.case = img, run_a, run_b
        return project

    project = templates.copy(build, tmp_path)  # made once, copied per test
    return project, *project.case


def test_rerun_queues_only_unreviewed_predictions(reruns):
    project, img, run_a, run_b = reruns
    queue = read_with(project, pending_items, run_id=run_b)
    # (img3, 30) is new; (img4, 40) was decided; (img5, 55) is a published wrong label.
    assert [m.item for m in queue] == [(img[3], 30)]
    assert read_with(project, rerun_summary, run_id=run_b) == {"mistakes": 3, "known_wrong_label": 1, "decided": 1,
                                                               "queued": 1}
    # Run A still has its own open question (img5, 50); the queue over all runs adds B's.
    everything = read_with(project, pending_items)
    assert sorted(m.item for m in everything) == [(img[3], 30), (img[5], 50)]
    decide(project, img[3], 30, "wrong", severity="minor", category="fine_grained")
    assert read_with(project, pending_items, run_id=run_b) == []


def test_leaderboard_and_trend_plot(reruns, tmp_path):
    project, img, run_a, run_b = reruns
    board = read_with(project, leaderboard).set_index("run_id")
    a, b = board.loc[run_a], board.loc[run_b]
    assert (a["top1_correct"], a["top1_total"]) == (3, 6)
    assert a["top1_scope"] == "6 images"  # not the full validation set: the trend plot says so
    assert a["mla"] == pytest.approx(4 / 6)  # after the review (img4, 40) counts as correct
    assert (a["slice_correct"], a["slice_total"]) == (2, 4)  # 3 and 40 right, 50 and 60 wrong
    assert (b["slice_correct"], b["slice_total"]) == (2, 4)  # 40 and 6 right
    assert b["top1"] != b["top1"]  # a slice-only run has no full-set top-1 (NaN)
    assert a["slice_low"] == pytest.approx(beta.ppf(0.025, 2, 3))
    assert a["slice_high"] == pytest.approx(beta.ppf(0.975, 3, 2))
    assert plot_trend(read_with(project, leaderboard), tmp_path / "trend.png")
    assert (tmp_path / "trend.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not plot_trend(read_with(project, leaderboard, slice_name=None), tmp_path / "none.png")


def test_leaderboard_command(reruns, tmp_path, capsys):
    project, img, run_a, run_b = reruns
    assert main(["leaderboard", str(project.root), "--plot", str(tmp_path / "t.png")]) == 0
    out = capsys.readouterr().out
    assert "2 of 4 (50.0%, 95% CI 6.8-93.2%)" in out
    assert "model-B" in out and "imagenet_m" in out and (tmp_path / "t.png").exists()
    # Model B ran over the slice only: it has no full-set top-1 to be placed by, and says so.
    assert f"not on the plot (run over imagenet_m only, no full-set top-1 of the model): model-B (#{run_b})" in out


def test_a_slice_run_of_a_model_with_a_full_set_run_is_not_called_missing(reruns):
    project, img, run_a, run_b = reruns
    add_run(project, "model-B", {i: 1 for i in img.values()})  # B over every image too
    assert off_trend(read_with(project, leaderboard)) == []
