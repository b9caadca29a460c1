"""Several models in one pass, precision as a recorded choice, and decoding in worker
processes: what a user of `reviewer predict --model A B --precision ...` relies on."""

from __future__ import annotations

import numpy as np
import pytest
from run_data import TINY_MODEL as TINY
from run_data import make_project, sample_files
from sqlalchemy import update

import models.pipeline as pipeline
from db.engine import read_session, write_session
from db.tables import Run
from models import open_probabilities
from reviewer.errors import InputError
from reviewer.project import Project
from reviewer.runs.compute import predict, predict_models
from reviewer.runs.records import run_precision

LITE0 = "tf_efficientnet_lite0"


def get_run(project: Project, run_id: int) -> Run:
    with read_session(project.engine) as session:
        return session.get(Run, run_id)


def probabilities(project: Project, run_id: int) -> np.ndarray:
    return np.asarray(open_probabilities(project.root / get_run(project, run_id).probs_path), dtype=np.float32)


@pytest.fixture
def decode_count(monkeypatch):
    """How many times an image file is decoded (threads decode in this process)."""
    calls = []
    original = pipeline.decode_image

    def counting(path, *args, **kwargs):
        calls.append(str(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(pipeline, "decode_image", counting)
    return calls


def test_models_sharing_a_data_config_decode_each_image_once_and_match_separate_runs(
        tmp_path, decode_count, tiny_checkpoint):
    files = sample_files(7, step=41)
    project = make_project(tmp_path / "together", files)
    together = predict_models(project, [LITE0, LITE0, TINY], names=["lite0-a", "lite0-b", "tiny"],
                              checkpoints=[None, None, tiny_checkpoint], batch_size=3, decoder="threads")
    assert [r.model for r in together] == ["lite0-a", "lite0-b", "tiny"]
    assert all(r.status == "complete" and r.predicted == 7 for r in together)
    assert len({r.run_id for r in together}) == 3
    # Lite0 twice: one decode per image; the tiny model (160 px) is a group of its own.
    assert len(decode_count) == 2 * len(files) and sorted(set(decode_count)) == sorted(map(str, files))

    decode_count.clear()
    alone = make_project(tmp_path / "alone", files)
    lite0 = predict(alone, LITE0, batch_size=3, decoder="threads")
    tiny = predict(alone, TINY, checkpoint=tiny_checkpoint, batch_size=3, decoder="threads")
    assert len(decode_count) == 2 * len(files)
    expected = probabilities(alone, lite0.run_id)
    for result in together[:2]:
        np.testing.assert_array_equal(probabilities(project, result.run_id), expected)
    np.testing.assert_array_equal(probabilities(project, together[2].run_id), probabilities(alone, tiny.run_id))
    assert together[0].mistakes == lite0.mistakes and together[0].mistakes is not None


def test_a_model_list_resumes_each_run_and_skips_the_complete_ones(tmp_path, tiny_checkpoint):
    project = make_project(tmp_path / "p", sample_files(6, step=13))
    first = predict(project, TINY, checkpoint=tiny_checkpoint, name="tiny", batch_size=4)
    both = predict_models(project, [TINY, TINY], checkpoints=[tiny_checkpoint] * 2, names=["tiny", "tiny-2"],
                          batch_size=4)
    assert both[0].already_complete and both[0].run_id == first.run_id
    assert not both[1].already_complete and both[1].predicted == 6
    np.testing.assert_array_equal(probabilities(project, both[1].run_id), probabilities(project, first.run_id))


def test_precision_is_recorded_and_part_of_the_runs_identity(tmp_path, tiny_checkpoint):
    project = make_project(tmp_path / "p", sample_files(4, step=29))
    exact = predict(project, TINY, checkpoint=tiny_checkpoint, batch_size=4)
    assert exact.precision == "fp32" and get_run(project, exact.run_id).report["precision"] == "fp32"
    reduced = predict(project, TINY, checkpoint=tiny_checkpoint, batch_size=4, precision="bf16")
    assert reduced.run_id != exact.run_id and not reduced.already_complete  # not taken for the fp32 run
    run = get_run(project, reduced.run_id)
    assert run_precision(run) == "bf16" and run.preprocessing["precision"] == "bf16"
    assert run.report["precision"] == "bf16"
    diff = np.abs(probabilities(project, reduced.run_id) - probabilities(project, exact.run_id)).max()
    assert 0 < diff < 0.05  # the same model, in another number format
    again = predict(project, TINY, checkpoint=tiny_checkpoint, precision="bf16")
    assert again.already_complete and again.run_id == reduced.run_id


def test_runs_recorded_before_precision_was_a_choice_read_as_fp32(tmp_path, tiny_checkpoint):
    project = make_project(tmp_path / "p", sample_files(3))
    result = predict(project, TINY, checkpoint=tiny_checkpoint)
    run = get_run(project, result.run_id)
    old = {k: v for k, v in run.preprocessing.items() if k != "precision"}
    with write_session(project.engine) as session:
        session.execute(update(Run).where(Run.id == result.run_id).values(preprocessing=old))
    assert run_precision(get_run(project, result.run_id)) == "fp32"
    assert predict(project, TINY, checkpoint=tiny_checkpoint).already_complete  # the same run, as before


def test_unknown_precision_is_refused_before_any_work(tmp_path):
    project = make_project(tmp_path / "p", sample_files(2))
    with pytest.raises(InputError, match="precision"):
        predict(project, LITE0, precision="int8")


def test_worker_processes_give_timms_pixels_like_the_threads(tmp_path):
    files = sample_files(9, step=31)
    threads = make_project(tmp_path / "threads", files)
    processes = make_project(tmp_path / "processes", files)
    a = predict(threads, LITE0, batch_size=4, decoder="threads")
    b = predict(processes, LITE0, batch_size=4, decoder="processes", workers=2)
    assert get_run(processes, b.run_id).report["decoder"] == "processes"
    assert get_run(processes, b.run_id).report["workers"] == 2
    np.testing.assert_array_equal(probabilities(processes, b.run_id), probabilities(threads, a.run_id))
    assert b.startup_seconds > 0 and b.finish_seconds > 0


def test_a_model_named_twice_is_refused_not_locked_against_itself(tmp_path):
    project = make_project(tmp_path / "p", sample_files(2))
    with pytest.raises(InputError, match="more than once"):
        predict_models(project, [LITE0, LITE0])


def test_a_cancelled_run_with_decoding_processes_stops_and_resumes(tmp_path, tiny_checkpoint):
    project = make_project(tmp_path / "p", sample_files(12, step=7))
    first = predict(project, TINY, checkpoint=tiny_checkpoint, batch_size=3, decoder="processes", workers=2,
                    cancel=lambda: True)
    assert first.status == "cancelled" and first.predicted == 3
    second = predict(project, TINY, checkpoint=tiny_checkpoint, batch_size=3, decoder="processes", workers=2)
    assert second.run_id == first.run_id and second.status == "complete" and second.predicted == 12
    assert second.resumed_from == 3


def test_the_precisions_offered_are_the_ones_computed():
    # The command line and the run dialog offer reviewer.terms.Precision; the forward pass
    # knows models.PRECISIONS: a choice offered and not computed would fail mid-run.
    from models import DEFAULT_PRECISION, PRECISIONS
    from reviewer.terms import Precision, values

    assert values(Precision) == list(PRECISIONS) and Precision.FP32 == DEFAULT_PRECISION
    assert all(p.caption and p.explanation for p in Precision)
    assert "tf32 computes exactly as fp32" in Precision.without_gpu("cpu") and not Precision.without_gpu("cuda")
