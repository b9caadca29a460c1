"""Migration 0011: the label set "patchml" (a PatchML set's labels, `reviewer patchml`) is
stored beside "multilabel" and "real"; any other name is still refused by the database,
the kinds' CHECK survives the table's rebuild, and a downgrade that would drop PatchML
labels refuses and changes nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from db import migrate
from reviewer.project import Project

REFUSED = "CHECK constraint failed|violates check constraint"  # SQLite's words, PostgreSQL's
INSERT = "INSERT INTO label (label_set, image_id, class_index, kind, source_id) VALUES ({}, 1, {}, {}, 1)"


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_patchml_labels_are_accepted_and_other_names_still_refused(tmp_path, request, backend):
    url = request.getfixturevalue("postgres_url") if backend == "postgresql" else None
    project = Project.create(tmp_path / "p", db_url=url)
    with project.engine.begin() as conn:
        conn.execute(text("INSERT INTO image (id, file_name, problematic, multilabel) "
                          "VALUES (1, 'a.JPEG', false, false)"))
        conn.execute(text("INSERT INTO label_source (id, kind, path, sha256, imported_at) "
                          "VALUES (1, 'patchml', '', '', '2026-01-01')"))
        for i, name in enumerate(("multilabel", "real", "patchml")):
            conn.execute(text(INSERT.format(f"'{name}'", i, "'correct'")))
    for label_set, kind in (("'PatchML'", "'correct'"), ("'patchml'", "'sure'")):
        with pytest.raises(IntegrityError, match=REFUSED):
            with project.engine.begin() as conn:
                conn.execute(text(INSERT.format(label_set, 9, kind)))
    with pytest.raises(RuntimeError, match="labels of PatchML sets would be lost"):
        migrate.downgrade(project.engine, "0010")
    assert migrate.current_revision(project.engine) == migrate.head_revision()
    with project.engine.begin() as conn:
        conn.execute(text("DELETE FROM label WHERE label_set = 'patchml'"))
    migrate.downgrade(project.engine, "0010")
    with pytest.raises(IntegrityError, match=REFUSED):
        with project.engine.begin() as conn:
            conn.execute(text(INSERT.format("'patchml'", 5, "'correct'")))
    project.close()
