"""Evidence on PostgreSQL (rows go in by COPY there): the same lines as on SQLite, the same
file again changes nothing, a bad file stores nothing, and 0007's downgrade refuses."""

from __future__ import annotations

import json

import pytest
from evidence_data import table_counts

from db import migrate
from reviewer.app.evidence import import_evidence
from reviewer.errors import InputError
from reviewer.evidence import evidence_by_pair, evidence_for
from reviewer.project import Project

pytestmark = pytest.mark.postgres

IMAGES = ["ILSVRC2012_val_00000293.JPEG", "ILSVRC2012_val_00030153.JPEG", "ILSVRC2012_val_00000723.JPEG",
          "ILSVRC2012_val_00047683.JPEG", "not_a_validation_image.JPEG"]


def test_evidence_on_postgresql_reads_as_on_sqlite(postgres_url, published, tmp_path):
    files = [published / "real" / "real.json", published / "real" / "golden.npz",
             published / "label-errors" / "imagenet_mturk.json", published / "flaws-of-imagenet" / "finegrained.csv",
             published / "flaws-of-imagenet" / "problem_groups_clusters.json"]
    pg = Project.create(tmp_path / "pg", db_url=postgres_url)
    lite = Project.create(tmp_path / "lite")
    try:
        assert [r.status for r in import_evidence(pg, files).value] == ["imported"] * len(files)
        import_evidence(lite, files)
        assert table_counts(pg) == table_counts(lite)
        for image in IMAGES:
            for predicted, original in ((48, 0), (385, 101), (357, 356)):
                assert evidence_for(pg, image, predicted, original) == evidence_for(lite, image, predicted, original)
        pairs = [(image, 48) for image in IMAGES] + [("ILSVRC2012_val_00030153.JPEG", 385)]
        assert evidence_by_pair(pg, pairs) == evidence_by_pair(lite, pairs)

        counts = table_counts(pg)
        assert [r.status for r in import_evidence(pg, files).value] == ["unchanged"] * len(files)
        (tmp_path / "bad.json").write_text(json.dumps([{"category": [2], "classes": {"1": "goldfish", "x": "?"}}]))
        with pytest.raises(InputError, match="bad.json"):
            import_evidence(pg, [published / "real" / "raters_golden.npz", tmp_path / "bad.json"])
        assert table_counts(pg) == counts
        with pytest.raises(RuntimeError, match="refusing to downgrade below revision 0007"):
            migrate.downgrade(pg.engine, "0006")
        assert migrate.current_revision(pg.engine) == migrate.head_revision() and table_counts(pg) == counts
    finally:
        pg.close()
        lite.close()
