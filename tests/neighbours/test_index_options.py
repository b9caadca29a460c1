"""`reviewer index` with options it cannot use (issue 36): a model timm does not know, a
checkpoint that is not one, a GPU the machine does not have, K above the training set's
size. Each is one clear error naming the option, exit 2, no traceback, and nothing built
(K is refused before the model loads: 10^8 neighbours per mistake once asked for 291 GiB)."""

from __future__ import annotations

import shutil

import pytest
from run_data import make_project, sample_files

from reviewer.cli import main
from reviewer.neighbours.store import INDEX_FOLDER


@pytest.fixture
def case(tmp_path):
    files = sample_files(3)
    project = make_project(tmp_path / "project", files[:1])
    train = tmp_path / "train"
    for f in files:
        folder = train / f.name.split("_")[0]
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, folder / f.name)
    return project.root, train


def _index(case, capsys, *options: str) -> str:
    root, train = case
    capsys.readouterr()
    assert main(["index", str(root), "--images", str(train), *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    assert not (root / INDEX_FOLDER).exists()  # nothing started
    return err


def test_a_model_timm_does_not_know(case, capsys):
    err = _index(case, capsys, "--model", "no_such_network")
    assert "--model no_such_network: is not a timm architecture" in err


def test_a_checkpoint_that_is_not_one_or_not_there(case, capsys, tmp_path):
    bad = tmp_path / "weights.pth"
    bad.write_bytes(b"these are not weights")
    err = _index(case, capsys, "--checkpoint", str(bad))
    assert str(bad) in err and "is not a PyTorch checkpoint or is damaged" in err
    err = _index(case, capsys, "--checkpoint", str(tmp_path / "absent.pth"))
    assert "absent.pth" in err and "no such checkpoint file" in err


def test_a_gpu_the_machine_does_not_have(case, capsys, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    err = _index(case, capsys, "--device", "cuda:7")
    assert "--device cuda:7: CUDA is not available on this machine" in err
    # A machine with one GPU: torch takes "cuda:7" until the model moves there; refused first.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    err = _index(case, capsys, "--device", "cuda:7")
    assert "--device cuda:7: this machine has 1 CUDA device (cuda:0)" in err


def test_k_above_the_training_set_is_refused_with_its_size_before_the_model_loads(case, capsys, monkeypatch):
    import models.sources

    def no_model(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(models.sources, "load_model", no_model)
    err = _index(case, capsys, "--k", "100000000")
    assert f"--k 100000000: is more than the 3 training images under {case[1]} (K is at most 3)" in err
    err = _index(case, capsys, "--k", "0")
    assert "--k must be at least 1" in err


def test_the_default_k_on_a_smaller_training_set_is_its_size(case, tiny_checkpoint, capsys):
    from run_data import TINY_MODEL

    from reviewer.neighbours.store import IndexFiles

    root, train = case
    assert main(["index", str(root), "--images", str(train), "--model", TINY_MODEL,
                 "--checkpoint", str(tiny_checkpoint)]) == 0
    assert IndexFiles.of(root, TINY_MODEL).read_manifest()["k"] == 3
