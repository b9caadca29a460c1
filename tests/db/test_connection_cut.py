"""The PostgreSQL connection cut in the middle of an act (issue 29, finding 7): the
server ends the session (pg_terminate_backend from another connection, as an
administrator or a restart does) while `vote --batch` casts its votes or while
`import-evidence` copies its rows. A clear error, nothing written (the transaction
is whole or nothing), and the same command afterwards does it all."""

from __future__ import annotations

import psycopg
import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from db.engine import read_session
from db.tables import EvidenceItem, EvidenceSource, Vote
from reviewer.app import panel as acts
from reviewer.cli import main
from reviewer.project import Project

pytestmark = pytest.mark.postgres


def _cut(postgres_url, session) -> None:
    """End `session`'s server process from another connection, as an administrator would."""
    pid = session.connection().exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
    admin_url = make_url(postgres_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))


def _count(project, table) -> int:
    with read_session(project.engine) as session:
        return session.execute(select(func.count()).select_from(table)).scalar_one()


def test_a_cut_during_a_vote_batch_records_nothing_and_the_retry_all(postgres_url, tmp_path, add_mistakes,
                                                                     monkeypatch, capsys):
    project = Project.create(tmp_path / "p", db_url=postgres_url)
    items = add_mistakes(project, [(10 + i, True) for i in range(3)])
    acts.add_panelist(project, "bob")
    batch = tmp_path / "votes.csv"
    batch.write_text("image,predicted,verdict\n" + "".join(
        f"ILSVRC2012_val_{item.image_id:08d}.JPEG,{item.predicted},wrong\n" for item in items))
    cast, calls = acts.cast_vote, []  # as the vote act (reviewer.app.panel) calls it

    def cut_at_the_second(*, session, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            _cut(postgres_url, session)
        return cast(session=session, **kwargs)

    monkeypatch.setattr(acts, "cast_vote", cut_at_the_second)
    assert main(["vote", str(project.root), "--panelist", "bob", "--batch", str(batch)]) == 2
    err = capsys.readouterr().err
    assert "error: the connection to the database was lost (" in err and "nothing of it was written" in err
    assert "Traceback" not in err and _count(project, Vote) == 0
    monkeypatch.setattr(acts, "cast_vote", cast)
    assert main(["vote", str(project.root), "--panelist", "bob", "--batch", str(batch)]) == 0
    assert _count(project, Vote) == 3
    capsys.readouterr()
    project.close()


def test_a_cut_during_import_evidence_stores_nothing(postgres_url, tmp_path, shared_data, monkeypatch, capsys):
    from reviewer.evidence import store

    project = Project.create(tmp_path / "p", db_url=postgres_url)
    files = [shared_data / "published" / "label-errors" / "imagenet_mturk.json",
             shared_data / "published" / "flaws-of-imagenet" / "finegrained.csv"]
    insert, calls = store._insert, []

    def cut_at_the_second(connection, table, rows):
        calls.append(1)
        if len(calls) == 2:
            pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
            admin_url = make_url(postgres_url).set(drivername="postgresql").render_as_string(hide_password=False)
            with psycopg.connect(admin_url, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        return insert(connection, table, rows)

    monkeypatch.setattr(store, "_insert", cut_at_the_second)
    assert main(["import-evidence", str(project.root), *map(str, files)]) == 2
    err = capsys.readouterr().err
    assert "error: the connection to the database was lost (" in err and "Traceback" not in err
    assert _count(project, EvidenceSource) == 0 and _count(project, EvidenceItem) == 0
    monkeypatch.setattr(store, "_insert", insert)
    assert main(["import-evidence", str(project.root), *map(str, files)]) == 0
    assert _count(project, EvidenceSource) == 2
    capsys.readouterr()
    project.close()
