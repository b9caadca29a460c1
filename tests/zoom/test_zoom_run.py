"""`reviewer zoom` over a run's mistakes and `reviewer zoom-split` end to end, on real images
(the demo's) with the tiny model: a probe killed after k mistakes resumes without computing
them again, a stopped one is completed from its partial result, and the split's members are
the images whose 324 crops, computed the paper's way apart from the app (tests/zoom_data.py),
hold no correct top-1 (Taesiri et al. 2023, §4.1, §4.4.1)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import timm
from project_data import new_project
from run_data import DEMO_IMAGES, TINY_MODEL
from sqlalchemy import func, select
from timm.data import resolve_data_config
from zoom_data import paper_logits, top1_and_margin

import reviewer.runs.zoom.batched as batched
from db.engine import write_session
from db.tables import Image, ZoomProbe
from reviewer.app.runs import run_model
from reviewer.app.zoom import probe_run, zoom_hard_split
from reviewer.cli import main
from reviewer.evaluation.slices import save_slice
from reviewer.project import Project
from reviewer.runs.zoom import load_zoom, save_zoom

NAMES = ["n01443537_goldfish.JPEG", "n01494475_hammerhead.JPEG", "n01534433_junco.JPEG", "n01560419_bulbul.JPEG",
         "n01582220_magpie.JPEG"]
CORRECTED = {0, 2}  # labelled with a class one of their crops answers; the others with one no crop answers


@pytest.fixture(scope="module")
def net(tiny_state_dict):
    network = timm.create_model(TINY_MODEL, pretrained=False)
    network.load_state_dict(tiny_state_dict)
    return network.eval()


def standard_top5(net, name: str) -> set[int]:
    """The network's top-5 for the image at its standard view (timm's eval transform), apart from the app."""
    import torch
    from PIL import Image as PILImage
    from timm.data import create_transform

    transform = create_transform(**resolve_data_config({}, model=net))
    with torch.inference_mode():
        logits = net(transform(PILImage.open(DEMO_IMAGES / name).convert("RGB"))[None])[0].numpy()
    return set(np.argsort(-logits)[:5].tolist())


def paper_labels(net) -> dict[str, int]:
    """Each image's label chosen from its 324 crops computed the paper's way apart from the app: for
    images 0 and 2 a class that is the clear top-1 of one crop, for the others the lowest class in no
    crop's top-5; never one of the standard view's top-5, so each image is a mistake of the run."""
    config = resolve_data_config({}, model=net)
    out = {}
    for i, name in enumerate(NAMES):
        taken = standard_top5(net, name)
        crops = paper_logits(net, config, DEMO_IMAGES / name)
        if i in CORRECTED:
            out[name] = sorted({top for top, lead in map(top1_and_margin, crops.values()) if lead >= 1e-6} - taken)[0]
        else:
            answered = set().union(*(np.argsort(-logits)[:5].tolist() for logits in crops.values()))
            out[name] = min(set(range(1000)) - answered - taken)
    return out


def make_project(root: Path, labels: dict[str, int], checkpoint) -> Project:
    """The five images with these labels and a complete run of the tiny model: five mistakes."""
    project = new_project(root)
    with write_session(project.engine) as session:
        session.add_all([Image(file_name=name, path=str(DEMO_IMAGES / name), original_label=labels[name])
                         for name in NAMES])
    result = run_model(project, TINY_MODEL, checkpoint=checkpoint, device="cpu").value
    assert result.run_id == 1 and result.mistakes == 5
    return project


@pytest.fixture
def project(tmp_path, net, tiny_checkpoint):
    """Labels no standard view answers (whatever the crops say): five mistakes to probe."""
    labels = {name: min(set(range(1000)) - standard_top5(net, name)) for name in NAMES}
    project = make_project(tmp_path / "p", labels, tiny_checkpoint)
    yield project
    project.close()


def stored_rows(project) -> dict[str, list[bool]]:
    """{file name: [complete, ...]} of the zoom rows stored, in the order stored."""
    with project.read() as session:
        rows = session.execute(select(Image.file_name, ZoomProbe.complete).join(Image, Image.id == ZoomProbe.image_id)
                               .order_by(ZoomProbe.id)).all()
    out: dict[str, list[bool]] = {}
    for name, complete in rows:
        out.setdefault(name, []).append(bool(complete))
    return out


@pytest.fixture
def spied(monkeypatch):
    """The file names of the jobs each call of probe_images is given, and the crops it computes."""
    calls = []
    real = batched.probe_images

    def spy(classifier, jobs, **options):
        jobs = list(jobs)
        calls.append([job.key.file_name for job in jobs])
        yield from real(classifier, jobs, **options)
    monkeypatch.setattr(batched, "probe_images", spy)
    return calls


class Killed(Exception):
    """Stands for the process dying between two mistakes."""


def test_killed_after_k_mistakes_the_next_call_does_not_redo_them(project, spied):
    seen = []

    def die_after_two(progress):
        seen.append(progress)
        if progress.done == 2:
            raise Killed
    with pytest.raises(Killed):
        probe_run(project, run_id=1, device="cpu", batch_size=9, progress=die_after_two)
    assert stored_rows(project) == {NAMES[0]: [True], NAMES[1]: [True]}  # by file name, each complete
    again = probe_run(project, run_id=1, device="cpu", batch_size=9).value
    assert spied == [NAMES, NAMES[2:]]
    assert (again.already, again.probed, again.crops, again.complete) == (2, 3, 3 * 324, 3)
    assert stored_rows(project) == {name: [True] for name in NAMES}
    assert probe_run(project, run_id=1).value.already == 5 and len(spied) == 2  # nothing left: no model run


def test_a_stopped_probe_is_completed_from_its_partial_result(project, spied):
    calls = []
    first = probe_run(project, run_id=1, device="cpu", batch_size=9, limit=2,
                      should_stop=lambda: calls.append(1) or len(calls) > 40).value  # stops inside image 1 or 2
    assert first.stopped and first.total == 2
    rows = stored_rows(project)
    partial = [name for name, kinds in rows.items() if kinds == [False]]
    assert len(partial) == 1
    with project.read() as session:
        done = sum(_done(row.payload) for row in session.execute(select(ZoomProbe).where(~ZoomProbe.complete))
                   .scalars())
    rest = probe_run(project, run_id=1, device="cpu", batch_size=9, limit=2).value
    assert rest.crops == 324 * (rest.probed - 1) + (324 - done) and not rest.stopped
    assert stored_rows(project)[partial[0]] == [False, True]
    assert spied[-1] == [name for name in NAMES[:2] if rows.get(name) != [True]]


def test_nothing_left_to_probe_loads_no_torch(project):
    """Every mistake stored: `reviewer zoom` says so without importing torch or loading the model."""
    probe_run(project, run_id=1, device="cpu", first_pass=True)
    code = ("import sys; from reviewer.cli import main; rc = main(['zoom', sys.argv[1], '--run', '1', '--first-pass']); "
            "print('torch' in sys.modules, rc)")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-c", code, str(project.root)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.strip().splitlines()[-1] == "False 0", done.stderr
    assert "loading torch" not in done.stderr and "5 already probed before" in done.stdout


def test_a_stop_between_two_mistakes_is_a_stop(project, spied):
    """Batches of one mistake's 324 crops: a stop always falls between two mistakes (none half
    done, the rest not started). The run says it was stopped (the command exits 130), not complete."""
    seen = []
    result = probe_run(project, run_id=1, device="cpu", batch_size=324, progress=seen.append,
                       should_stop=lambda: bool(seen)).value
    assert result.stopped and 1 <= result.probed < result.total == 5
    assert stored_rows(project) == {name: [True] for name in NAMES[:result.probed]}


def _done(payload: str) -> int:
    from reviewer.runs.zoom import from_json

    return from_json(payload).done


def test_a_first_pass_then_the_rest(project):
    first = probe_run(project, run_id=1, device="cpu", first_pass=True, limit=3).value
    assert (first.probed, first.crops, first.complete) == (3, 3 * 54, 0)
    again = probe_run(project, run_id=1, device="cpu", first_pass=True, limit=3).value
    assert (again.already, again.probed) == (3, 0)  # the first pass is there: nothing to compute
    # A first-pass crop of the second mistake answers its label (stored as a newer result):
    # --skip-corrected leaves it out, and the split already counts it corrected.
    with project.read() as session:
        image = session.execute(select(Image).where(Image.file_name == NAMES[1])).scalar_one()
        stored = load_zoom(session=session, run_id=1, image=image.id)
    hit = stored.result.copy()
    hit.set_cell(128, 1, 1, np.array([image.original_label, 1, 2, 3, 4]), np.full(5, 0.2, np.float32))
    project.write(lambda s: save_zoom(session=s, run_id=1, image=image.id, predicted=stored.predicted, result=hit))
    full = probe_run(project, run_id=1, device="cpu", limit=3, skip_corrected=True).value
    assert (full.already, full.skipped_corrected, full.probed, full.crops, full.complete) == (0, 1, 2, 2 * 270, 2)
    table = zoom_hard_split(project, runs=["1"]).value.result.table
    statuses = dict(zip(table["file_name"], table["status"]))
    assert statuses[NAMES[1]] == "corrected by some crop" and statuses[NAMES[3]] == "needs a complete probe"
    rest = probe_run(project, run_id=1, device="cpu", limit=3).value  # without: the corrected one completed too
    assert (rest.already, rest.probed, rest.crops) == (2, 1, 270)


def test_only_the_mistakes_on_a_slice(project):
    with project.read() as session:
        image_id = session.execute(select(Image.id).where(Image.file_name == NAMES[4])).scalar_one()
    project.write(lambda s: save_slice(session=s, name="one", image_ids=[image_id]))
    result = probe_run(project, run_id=1, device="cpu", first_pass=True, image_slice="one").value
    assert (result.total, result.probed, result.crops) == (1, 1, 54)
    assert stored_rows(project) == {NAMES[4]: [False]}


@pytest.mark.slow
def test_end_to_end_the_split_is_the_images_no_crop_corrects(net, tmp_path, tiny_checkpoint, capsys):
    project = make_project(tmp_path / "p", paper_labels(net), tiny_checkpoint)
    root = str(project.root)
    assert main(["zoom", root, "--run", "1", "--limit", "3", "--batch-size", "9"]) == 0
    captured = capsys.readouterr()
    assert "zoom run #1: 1 of 3 mistakes probed (1 now); 324 crops" in captured.err  # progress, not a terminal
    assert f"run #1 ({TINY_MODEL}:tiny), the first 3 of its mistakes" in captured.out
    assert main(["zoom-split", root, "--runs", "1"]) == 0
    assert "3 unclassifiable" not in capsys.readouterr().out  # two images wait for their probe
    assert main(["zoom", root, "--run", "1"]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert "3 already probed before: not computed again" in out and "probed 2 in" in out
    assert "2 mistakes to probe; loading torch" in captured.err
    assert main(["zoom", root, "--run", "1"]) == 0  # all stored: nothing to load, and it says none
    captured = capsys.readouterr()
    assert "loading torch" not in captured.err and "5 already probed before" in captured.out
    assert "of these 2: 0 corrected by some crop" in out  # images 3 and 4 have labels no crop answers

    assert main(["zoom-split", root, "--runs", f"{TINY_MODEL}:tiny", "--save", "zoom_hard", "--export",
                 str(tmp_path / "split.json")]) == 0
    assert "of 5 candidate images (a mistake of some run): 3 unclassifiable, 2 corrected by some crop, 0 need" \
        in capsys.readouterr().out
    unclassifiable = sorted(name for i, name in enumerate(NAMES) if i not in CORRECTED)
    assert json.loads((tmp_path / "split.json").read_text())["images"] == unclassifiable

    # A model rerun on the split, and the export with its manifest.
    assert main(["predict", root, "--model", TINY_MODEL, "--checkpoint", str(tiny_checkpoint), "--images",
                 "zoom_hard", "--device", "cpu"]) == 0
    with project.read() as session:
        from reviewer.runs.predictions import load_predictions

        assert len(load_predictions(session=session, run_id=2)) == 3
    assert main(["export", root, str(tmp_path / "out")]) == 0
    manifest = json.loads((tmp_path / "out" / "export-0001" / "manifest.json").read_text())
    (entry,) = manifest["zoom_hard_splits"]
    assert (entry["slice"], entry["images"], entry["labels"]) == ("zoom_hard", 3, "in-real")
    assert json.loads((tmp_path / "out" / "export-0001" / "splits" / "zoom_hard.json").read_text())["images"] \
        == unclassifiable
    project.close()


@pytest.mark.slow
def test_a_process_killed_with_sigkill_resumes(project, tmp_path):
    """The command as a background process: SIGKILL once a mistake is stored; the next command
    computes only the mistakes without a stored result."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    command = [sys.executable, "-m", "reviewer", "zoom", str(project.root), "--run", "1", "--batch-size", "9",
               "--device", "cpu"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    try:
        while not stored_rows(project) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    assert process.returncode == -signal.SIGKILL, process.stderr.read().decode()
    before = stored_rows(project)
    assert 1 <= len(before) < 5 and all(kinds == [True] for kinds in before.values())
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"{len(before)} already probed before: not computed again" in again.stdout
    assert f"probed {5 - len(before)} in" in again.stdout
    assert stored_rows(project) == {name: [True] for name in NAMES}
    with project.read() as session:
        assert session.execute(select(func.count(ZoomProbe.id))).scalar_one() == 5


@pytest.mark.slow
def test_sigterm_stops_after_the_batches_in_flight_and_keeps_them(project):
    """SIGTERM (a background job's kill) stops the command cleanly: the mistake under way is stored
    as a partial result, it exits 130 saying how to resume, and the next command completes it."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    # Batches of one crop: each mistake takes long enough (324 forward calls) that the signal sent
    # once the first one is stored finds the others still to do (with batches of 9 an idle machine
    # finished all five before the signal arrived, and the command rightly exited 0).
    command = [sys.executable, "-m", "reviewer", "zoom", str(project.root), "--run", "1", "--batch-size", "1",
               "--device", "cpu"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not stored_rows(project) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert process.poll() is None, "the run ended before the signal: nothing left to stop"
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 130, err
    assert "SIGTERM: stopping after the batches in flight" in err
    assert "mistakes left; run the same command again to resume" in out
    rows = stored_rows(project)
    complete = [name for name, kinds in rows.items() if kinds == [True]]
    partial = [name for name, kinds in rows.items() if kinds == [False]]
    # The one under way is kept partial (unless the signal fell between two mistakes: none under way).
    assert 1 <= len(complete) < 5 and len(partial) <= 1, rows
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert all(kinds[-1] for kinds in stored_rows(project).values()) and len(stored_rows(project)) == 5
