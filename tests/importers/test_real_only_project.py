"""A project made from the published ReaL file alone: all 50,000 validation images,
those ReaL leaves out ([]) included (they once crashed the import: KeyError)."""

from __future__ import annotations

import json
import subprocess
import sys

from sqlalchemy import text

from reviewer.project import Project


def test_a_project_of_the_50000_validation_images_from_real_json_alone(tmp_path, shared_data):
    real = shared_data / "published" / "real" / "real.json"
    made = subprocess.run([sys.executable, "-m", "reviewer", "init", str(tmp_path / "p"), "--labels", str(real)],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    rows = json.loads(real.read_text())
    expected_labels = sum(len(set(row)) for row in rows)
    left_out = sum(1 for row in rows if not row)
    assert left_out > 0
    project = Project.open(tmp_path / "p")
    with project.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM image")).scalar_one() == len(rows) == 50_000
        assert conn.execute(text("SELECT count(*) FROM label WHERE label_set = 'real'")).scalar_one() == expected_labels
        # ILSVRC2012_val_00000293.JPEG is row 292 of the file.
        labels = conn.execute(text(
            "SELECT l.class_index FROM label l JOIN image i ON i.id = l.image_id WHERE l.label_set = 'real' "
            "AND i.file_name = 'ILSVRC2012_val_00000293.JPEG' ORDER BY l.class_index")).scalars().all()
    assert labels == sorted(set(rows[292]))
    project.close()
