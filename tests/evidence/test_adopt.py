"""Adopting evidence: the one explicit way a source becomes the labels metrics use.
Adopting the stored ReaL and TFDS sources gives exactly what `import-labels` of the
same published files gives; the other sources are refused and nothing changes."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy import text

from reviewer.project import Project

pytestmark = pytest.mark.slow


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reviewer", *args], capture_output=True, text=True, timeout=600)


def labels_of(root) -> tuple[set, set, dict]:
    project = Project.open(root)
    with project.engine.connect() as conn:
        labels = set(conn.execute(text(
            "SELECT i.file_name, l.label_set, l.class_index, l.kind FROM label l JOIN image i ON i.id = l.image_id")))
        flags = set(conn.execute(text("SELECT file_name, multilabel, problematic FROM image")))
        originals = dict(conn.execute(text("SELECT file_name, original_label FROM image")).all())
    project.close()
    return labels, flags, originals


def test_adopting_real_and_tfds_equals_importing_their_files(tmp_path, shared_data):
    published = shared_data / "published"
    index = published / "label-errors" / "imagenet_val_set_index_to_filepath.json"
    real = published / "real" / "real.json"
    tfds = published / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv"
    assert cli("init", str(tmp_path / "imported"), "--labels", str(index), str(tfds), str(real)).returncode == 0
    assert cli("init", str(tmp_path / "adopted"), "--labels", str(index)).returncode == 0
    done = cli("import-evidence", str(tmp_path / "adopted"), str(real), str(tfds),
               str(published / "label-errors" / "imagenet_mturk.json"))
    assert done.returncode == 0, done.stderr
    before = labels_of(tmp_path / "adopted")
    assert not {row for row in before[0] if row[1] in ("multilabel", "real")}  # evidence left the labels alone
    refused = cli("adopt-evidence", str(tmp_path / "adopted"), "cleanlab")
    assert refused.returncode == 2 and "not a label set" in refused.stderr and "Traceback" not in refused.stderr
    assert labels_of(tmp_path / "adopted") == before
    for source in ("tfds_multilabel", "real_labels"):
        adopted = cli("adopt-evidence", str(tmp_path / "adopted"), source)
        assert adopted.returncode == 0, adopted.stderr
    assert labels_of(tmp_path / "adopted") == labels_of(tmp_path / "imported")
    report = cli("report", str(tmp_path / "adopted"))
    assert "20000 in the multi-label set" in report.stdout and "1308 problematic" in report.stdout
