"""A panelist's role running an owner's command (issue 29, finding 7): `import-logits`
and `predict` get the clear refusal the other refused commands get, not a traceback
with "permission denied for table model", and write nothing."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from run_data import DEMO_IMAGES
from test_panel_roles import panel  # noqa: F401  (the fixture: a project with roles ann, bob)

from reviewer.cli import main
from reviewer.project import Project

pytestmark = pytest.mark.postgres


def _runs_and_models(panel) -> tuple[int, int]:  # noqa: F811
    project = Project.open(panel["root"])
    try:
        with project.engine.connect() as conn:
            return tuple(conn.exec_driver_sql(f"SELECT count(*) FROM {table}").scalar_one()
                         for table in ("run", "model"))
    finally:
        project.close()


@pytest.mark.parametrize("command", ["import-logits", "predict"])
def test_owner_commands_are_refused_clearly_for_a_panelist(panel, tmp_path, monkeypatch, capsys, command):  # noqa: F811
    if command == "predict":  # an image with a file, so that predict gets as far as writing its run
        folder = tmp_path / "images"
        folder.mkdir()
        shutil.copy(DEMO_IMAGES / "n01443537_goldfish.JPEG", folder)
        assert main(["import-images", str(panel["root"]), str(folder)]) == 0
    before = _runs_and_models(panel)
    np.savez(tmp_path / "logits.npz", logits=np.zeros((2, 1000), np.float32),
             file_names=np.array([f"ILSVRC2012_val_{i:08d}.JPEG" for i in (1, 2)]))
    args = {"import-logits": [str(tmp_path / "logits.npz"), "--model", "mine"],
            "predict": ["--model", "tf_efficientnet_lite0"]}[command]
    monkeypatch.setenv("PGUSER", panel["bob"])
    assert main([command, str(panel["root"]), *args]) == 2
    err = capsys.readouterr().err
    # (predict may say first that it loads torch and timm)
    assert err.splitlines()[-1].startswith("error: the database refused this act (permission denied for table")
    assert "is for the project's owner" in err and "nothing was written" in err and "Traceback" not in err
    monkeypatch.setenv("PGUSER", panel["url"].username)
    assert _runs_and_models(panel) == before
