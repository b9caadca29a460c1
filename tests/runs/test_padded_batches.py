"""A run's smaller batches padded to the batch shape (on an accelerator: a run's last
batch, a batch with an image that failed to decode, a resumed run's remnants): the blank
rows never reach the stored results. Padding is forced here on the CPU, where runs do not
pad (`models.inference.padded_batch_size`), and every stored top-5 and probability row is
compared with timm's reference computed one image at a time."""

from __future__ import annotations

import numpy as np
import torch
from PIL import Image as PILImage
from run_data import make_project, sample_files
from sqlalchemy import select
from timm.data import create_transform, resolve_data_config

import reviewer.runs.compute as compute
from db.engine import read_session
from db.tables import Image, Prediction, Run
from models import load_model, open_probabilities
from models.inference import padded_batch_size

LITE0 = "tf_efficientnet_lite0"


def test_cpu_runs_do_not_pad_and_accelerators_pad_to_the_batch_size():
    assert padded_batch_size(torch.device("cpu"), 16) is None
    assert padded_batch_size(torch.device("cuda"), 128) == 128


def test_padded_rows_never_reach_the_stored_top5_or_probabilities(tmp_path, monkeypatch):
    # 8 real images and one that cannot be decoded, batches of 4: the first batch holds 3
    # images (one failed), the second 4, the last 1; each is padded to 4.
    files = sample_files(8, step=37)
    broken = tmp_path / "broken.JPEG"
    broken.write_bytes(b"not a jpeg")
    project = make_project(tmp_path / "p", files[:1] + [broken] + files[1:])
    monkeypatch.setattr(compute, "padded_batch_size", lambda device, batch_size: batch_size)
    shapes = []
    load = compute.load_model

    def load_watched(*args, **kwargs):
        loaded = load(*args, **kwargs)
        loaded.model.register_forward_pre_hook(lambda _module, inputs: shapes.append(len(inputs[0])))
        return loaded

    monkeypatch.setattr(compute, "load_model", load_watched)
    result = compute.predict(project, LITE0, batch_size=4, device="cpu", decoder="threads")
    assert result.status == "complete" and result.predicted == 8 and len(result.skipped) == 1
    assert shapes == [4, 4, 4]  # every forward pass saw the padded shape

    with read_session(project.engine) as session:
        run = session.get(Run, result.run_id)
        stored = {p.image_id: p for p in session.execute(select(Prediction).where(Prediction.run_id == run.id))
                  .scalars()}
    probs = np.asarray(open_probabilities(project.root / run.probs_path), dtype=np.float32)
    ids = np.load(project.runs_dir / f"run_{run.id}.images.npy").tolist()
    assert len(stored) == 8 and len(ids) == 9

    # timm's reference, one image at a time (no batch to pad, nothing beside it).
    model = load_model(LITE0, device="cpu").model.eval()
    transform = create_transform(**resolve_data_config({}, model=model))
    by_name = {f.name: f for f in files}
    with read_session(project.engine) as session:
        file_of = {image_id: by_name.get(name) for image_id, name in session.execute(select(Image.id, Image.file_name))}
    for row, image_id in enumerate(ids):
        path = file_of[image_id]
        if path is None:  # the broken file: skipped, no prediction, its row never written
            assert image_id not in stored and not probs[row].any()
            continue
        with torch.inference_mode():
            reference = model(transform(PILImage.open(path).convert("RGB"))[None]).softmax(-1)[0].numpy()
        prediction = stored[image_id]
        assert prediction.row == row
        top5 = np.argsort(-reference, kind="stable")[:5]
        assert [getattr(prediction, f"pred_{k + 1}") for k in range(5)] == top5.tolist()
        np.testing.assert_allclose([getattr(prediction, f"prob_{k + 1}") for k in range(5)], reference[top5],
                                   atol=2e-5)
        # float16 storage: within its rounding of values up to 1
        np.testing.assert_allclose(probs[row], reference, atol=5e-4)
