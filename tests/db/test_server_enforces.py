"""What the server enforces whatever the client (issue 36, H1, H2, H3 and H5), tried as a
hostile panelist would: raw SQL connected as the panelist's own role on PostgreSQL.

- H1: the history's ids are bigint and drawn by the server: a panelist's `nextval` is refused,
  an id the client gives is replaced; migration 0013 carries a project over and back.
- H2: free text is bounded in the database itself (both databases); no temporary tables, no
  large objects for a panel role.
- H3: a vote that holds only the problematic flag unlocks no other vote (the verdict does).
- H5: the server's clock on every history row: a backdated (or future) time never stands.
"""

from __future__ import annotations

import importlib.util

import pytest
import test_panel_roles
from sqlalchemy import text
from test_panel_roles import as_role, cli, ids, refused

from db import migrate
from db.engine import create_engine
from reviewer.project import Project

HISTORY = ("vote", "decision", "discussion_note", "zoom_probe")
panel = test_panel_roles.panel  # the fixture: a project with the roles ann (chair) and bob


def revision_0013():
    path = migrate.MIGRATIONS_DIR / "versions" / "0013_server_ids_times_and_bounds.py"
    spec = importlib.util.spec_from_file_location("m0013", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bounds_are_the_apps_limits():
    """0013 writes its limits out; they are the ones the command line and the window check."""
    from reviewer.panel import discussion, votes
    from reviewer.runs.zoom import store

    m = revision_0013()
    assert m.NOTE_MAX == votes.NOTE_MAX_CHARS == 131_072
    assert m.OOV_NAME_MAX == votes.OOV_NAME_MAX_CHARS
    assert m.DISCUSSION_MAX == discussion.NOTE_MAX_CHARS
    assert m.PAYLOAD_MAX == store.PAYLOAD_MAX_CHARS


def _planted(conn, *, note: str = "", text_: str = "a note", reason: str = "", payload: str = "{}") -> None:
    conn.execute(text("INSERT INTO vote (image_id, predicted, panelist_id, verdict, problematic, note, retracted, "
                      "created_at) VALUES (1, 5, 1, 'wrong', false, :n, false, '2026-01-01')"), {"n": note})
    conn.execute(text("INSERT INTO discussion_note (image_id, predicted, panelist_id, text, created_at) "
                      "VALUES (1, 5, 1, :t, '2026-01-01')"), {"t": text_})
    conn.execute(text("INSERT INTO decision (image_id, predicted, verdict, problematic, method, reason, decided_by, "
                      "created_at) VALUES (1, 5, 'wrong', false, 'override', :r, 1, '2026-01-01')"), {"r": reason})


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_text_past_the_bounds_is_refused_by_the_database(tmp_path, request, backend):
    url = request.getfixturevalue("postgres_url") if backend == "postgresql" else None
    project = Project.create(tmp_path / "p", db_url=url)
    try:
        with project.engine.begin() as conn:
            conn.execute(text("INSERT INTO image (id, file_name, problematic, multilabel) VALUES (1, 'a.JPEG', "
                              "false, false)"))
            conn.execute(text("INSERT INTO panelist (id, name, is_chair, created_at) VALUES (1, 'ann', true, "
                              "'2026-01-01')"))
            _planted(conn, note="n" * 131_072, text_="t" * 20_000, reason="r" * 131_072)  # at the limits: stored
        for too_long in (dict(note="n" * 131_073), dict(text_="t" * 20_001), dict(reason="r" * 131_073)):
            with pytest.raises(Exception, match="bounded|at most"):
                with project.engine.begin() as conn:
                    _planted(conn, **too_long)
        with project.engine.connect() as conn:
            assert [conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()
                    for t in ("vote", "discussion_note", "decision")] == [1, 1, 1]
    finally:
        project.close()


@pytest.mark.postgres
def test_0013_carries_a_project_over_and_back_on_postgresql(postgres_url):
    engine = create_engine(postgres_url)
    try:
        migrate.upgrade(engine, "0012")
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO image (id, file_name, problematic, multilabel) VALUES (1, 'a.JPEG', "
                              "false, false)"))
            conn.execute(text("INSERT INTO panelist (id, name, is_chair, created_at) VALUES (1, 'ann', true, now())"))
            first = conn.execute(text(
                "INSERT INTO vote (image_id, predicted, panelist_id, verdict, problematic, note, retracted, "
                "created_at) VALUES (1, 5, 1, 'wrong', false, :n, false, '2026-01-01') RETURNING id"),
                {"n": "x" * 200_000}).scalar_one()  # an older row past today's bound: kept
            conn.execute(text("INSERT INTO vote (image_id, predicted, panelist_id, problematic, note, retracted, "
                              "undoes, created_at) VALUES (1, 5, 1, false, '', true, :u, '2026-01-01')"), {"u": first})
        for _ in range(2):  # up, down, up again
            migrate.upgrade(engine)
            with engine.begin() as conn:
                types = dict(conn.execute(text(
                    "SELECT table_name || '.' || column_name, data_type FROM information_schema.columns "
                    "WHERE column_name IN ('id', 'undoes') AND table_name = ANY(:t)"), {"t": list(HISTORY)}).all())
                assert set(types.values()) == {"bigint"} and len(types) == 5
                rows = conn.execute(text("SELECT id, undoes, length(note), created_at < '2026-02-01' FROM vote "
                                         "WHERE id <= :last ORDER BY id"), {"last": first + 1}).all()
                assert [tuple(r) for r in rows] == [(first, None, 200_000, True), (first + 1, first, 0, True)]
                # New rows continue the sequence; the owner's own clock value is replaced too.
                new = conn.execute(text(
                    "INSERT INTO vote (id, image_id, predicted, panelist_id, verdict, problematic, note, retracted, "
                    "created_at) VALUES (999999999999, 1, 5, 1, 'correct', false, '', false, '2001-01-01') "
                    "RETURNING id, created_at > '2026-01-02'")).one()
                assert first + 1 < new[0] < 1000 and new[1] is True
            migrate.downgrade(engine, "0012")
            with engine.begin() as conn:
                assert conn.execute(text("SELECT data_type FROM information_schema.columns WHERE table_name = "
                                         "'vote' AND column_name = 'id'")).scalar_one() == "integer"
                # The older app's inserts take the column's default again.
                conn.execute(text("INSERT INTO vote (image_id, predicted, panelist_id, verdict, problematic, note, "
                                  "retracted, created_at) VALUES (1, 5, 1, 'unclear', false, '', false, now())"))
        migrate.upgrade(engine)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM vote")).scalar_one() == 6
    finally:
        engine.dispose()


def test_0013_up_and_down_on_sqlite_keeps_the_append_only_triggers(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'p.db'}")
    try:
        migrate.upgrade(engine, "0012")
        for _ in range(2):
            migrate.upgrade(engine)
            migrate.downgrade(engine, "0012")
        migrate.upgrade(engine)
        with engine.connect() as conn:
            triggers = set(conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'")).scalars())
        assert {"vote_no_update", "vote_no_delete", "vote_bounded", "discussion_note_bounded", "decision_bounded",
                "zoom_probe_bounded"} <= triggers
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_a_panelist_role_cannot_draw_ids_backdate_or_store_unbounded(panel):
    item = panel["items"][0]
    with as_role(panel, panel["bob"]) as bob:
        bob_id = ids(bob, panel["bob"])
        # H1: no sequence of the history can be drawn or set by a panelist.
        for table in HISTORY:
            assert "permission denied" in refused(bob, f"SELECT nextval('{table}_id_seq')")
            assert "permission denied" in refused(bob, f"SELECT setval('{table}_id_seq', 2147483647)")
        # H1 + H5: the client's id and time never stand; the server's do.
        row = bob.execute(
            "INSERT INTO vote (id, image_id, predicted, panelist_id, verdict, problematic, note, retracted, "
            "created_at) VALUES (2147483647, %s, %s, %s, 'wrong', false, '', false, '2001-01-01') "
            "RETURNING id, created_at", (item.image_id, item.predicted, bob_id)).fetchone()
        assert row[0] < 1000 and row[1].year >= 2026
        note = bob.execute("INSERT INTO discussion_note (image_id, predicted, panelist_id, text, created_at) "
                           "VALUES (%s, %s, %s, 'x', '2001-01-01') RETURNING created_at",
                           (item.image_id, item.predicted, bob_id)).fetchone()
        assert note[0].year >= 2026
        run_id = bob.execute("SELECT id FROM run").fetchone()[0]
        zoom = bob.execute("INSERT INTO zoom_probe (run_id, image_id, predicted, probe_version, complete, payload, "
                           "computed_at, computed_by) VALUES (%s, %s, %s, 1, true, '{}', '2099-01-01', %s) "
                           "RETURNING computed_at", (run_id, item.image_id, item.predicted, bob_id)).fetchone()
        assert zoom[0].year < 2099
        stored = bob.execute("SELECT min(created_at) FROM vote WHERE panelist_id = %s", (bob_id,)).fetchone()[0]
        assert stored.year >= 2026
        # H2: bounded text, no large objects, no temporary tables.
        assert "ck_vote_bounded" in refused(
            bob, "INSERT INTO vote (image_id, predicted, panelist_id, problematic, note, retracted, created_at) "
                 "VALUES (%s, %s, %s, false, %s, false, now())", item.image_id, item.predicted, bob_id, "x" * 131_073)
        assert "ck_zoom_probe_bounded" in refused(
            bob, "INSERT INTO zoom_probe (run_id, image_id, predicted, probe_version, complete, payload, computed_at, "
                 "computed_by) VALUES (%s, %s, %s, 1, true, %s, now(), %s)", run_id, item.image_id, item.predicted,
            "x" * 1_000_001, bob_id)
        assert "permission denied" in refused(bob, "SELECT lo_from_bytea(0, 'abc'::bytea)")
        assert "permission denied" in refused(bob, "SELECT lo_create(0)")
        assert "permission denied" in refused(bob, "CREATE TEMP TABLE big (x text)")
    # panel-setup (as a superuser here) left nothing open, and says so.
    from reviewer.panel.roles import plan, storage_left_open

    project = Project.open(panel["root"])
    try:
        roles = plan(panel["url"].database, [panel["bob"]], panel["ann"])
        assert storage_left_open(project.engine, roles) == []
        # Where something is open again (an owner who is no superuser cannot revoke the large-object
        # functions), panel-setup's check names it with the SQL that closes it.
        with project.engine.begin() as conn:
            conn.exec_driver_sql(f'GRANT TEMPORARY ON DATABASE "{roles.database}" TO "{roles.panel_group}"')
            conn.exec_driver_sql(f'GRANT EXECUTE ON FUNCTION lo_from_bytea(oid, bytea) TO "{roles.panel_group}"')
        gaps = storage_left_open(project.engine, roles)
        assert len(gaps) == 2 and "REVOKE TEMPORARY ON DATABASE" in gaps[0]
        assert "lo_from_bytea" in gaps[1] and "REVOKE EXECUTE ON FUNCTION lo_from_bytea(oid, bytea)" in gaps[1]
    finally:
        project.close()


@pytest.mark.postgres
def test_only_ones_own_verdict_unlocks_the_others_votes(panel):
    """H3: bob's vote holding only the problematic flag (exit 0 from the command line, no
    verdict cast) showed ann's verdict, severity, category and note to raw SQL."""
    import os

    root, item = str(panel["root"]), panel["items"][0]
    image = f"ILSVRC2012_val_{item.image_id:08d}.JPEG"
    as_bob, as_ann = {**os.environ, "PGUSER": panel["bob"]}, {**os.environ, "PGUSER": panel["ann"]}
    assert cli("panel-rules", root, "--blind", "on", env=as_ann).returncode == 0
    assert cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "wrong",
               "--severity", "major", "--category", "fine_grained", "--note", "a beak", env=as_ann).returncode == 0
    sneak = cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--problematic", env=as_bob)
    assert sneak.returncode == 0, sneak.stderr
    with as_role(panel, panel["bob"]) as bob:
        ann_id = ids(bob, panel["ann"])
        assert bob.execute("SELECT count(*) FROM vote WHERE panelist_id = %s", (ann_id,)).fetchone()[0] == 0
    assert cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "correct",
               env=as_bob).returncode == 0
    with as_role(panel, panel["bob"]) as bob:
        assert bob.execute("SELECT verdict FROM vote WHERE panelist_id = %s", (ann_id,)).fetchall() == [("wrong",)]


@pytest.mark.postgres
def test_the_server_masks_the_others_votes_field_by_field(panel):
    """H3, per field: bob's verdict shows him ann's verdict and note, not her severity, category
    or out-of-vocabulary name, until he has rated them too; the vote table itself is closed to
    raw SQL on those fields, and the app's own reads and writes (votes, a batch, an undo, show,
    panel-status) go through the masking view."""
    import json
    import os

    root, item = str(panel["root"]), panel["items"][0]
    image = f"ILSVRC2012_val_{item.image_id:08d}.JPEG"
    as_bob, as_ann = {**os.environ, "PGUSER": panel["bob"]}, {**os.environ, "PGUSER": panel["ann"]}
    assert cli("panel-rules", root, "--blind", "on", env=as_ann).returncode == 0
    assert cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "wrong",
               "--severity", "major", "--category", "fine_grained_oov", "--oov-name", "a crumpet", "--note", "a beak",
               env=as_ann).returncode == 0
    fields = "SELECT verdict, problematic, severity, category, oov_name, note FROM vote WHERE panelist_id = %s"
    said = cli("note", root, "--image", image, "--predicted", str(item.predicted), "the beak says finch", env=as_ann)
    assert said.returncode == 0, said.stderr
    notes = "SELECT text FROM discussion_note WHERE image_id = %s"
    with as_role(panel, panel["bob"]) as bob:  # the meeting's notes are blind as the votes are
        assert bob.execute(notes, (item.image_id,)).fetchall() == []
    voted = cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "wrong", env=as_bob)
    assert voted.returncode == 0, voted.stderr
    with as_role(panel, panel["bob"]) as bob:
        ann_id = ids(bob, panel["ann"])
        assert bob.execute(fields, (ann_id,)).fetchall() == [("wrong", False, None, None, None, "a beak")]
        assert bob.execute(notes, (item.image_id,)).fetchall() == [("the beak says finch",)]
        for column in ("severity", "category", "oov_name", "note", "verdict", "*"):
            assert "permission denied" in refused(bob, f"SELECT {column} FROM public.vote")
        assert bob.execute("SELECT count(*) FROM public.vote WHERE panelist_id = %s", (ann_id,)).fetchone()[0] == 1
        # The view's insert runs as bob: a vote under ann's name is refused as on the table.
        assert "row-level security" in refused(
            bob, "INSERT INTO vote (image_id, predicted, panelist_id, verdict, problematic, note, retracted, "
                 "created_at) VALUES (%s, %s, %s, 'correct', false, '', false, now())",
            item.image_id, item.predicted, ann_id)
    shown = cli("show", root, "--image", image, "--predicted", str(item.predicted), "--json", env=as_bob)
    assert shown.returncode == 0, shown.stderr
    ann_vote = next(v for v in json.loads(shown.stdout)["panel"]["votes"] if v["panelist"] == panel["ann"])
    assert ann_vote["verdict"] == "wrong" and ann_vote["severity"] == ann_vote["category"] == "hidden until you vote"
    rated = cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "wrong",
                "--severity", "minor", "--category", "fine_grained", env=as_bob)
    assert rated.returncode == 0, rated.stderr
    with as_role(panel, panel["bob"]) as bob:
        assert bob.execute(fields, (ann_id,)).fetchall() == [("wrong", False, "major", "fine_grained_oov", "a crumpet", "a beak")]
    assert cli("vote", root, "--undo", env=as_bob).returncode == 0  # back to the verdict alone: masked again
    with as_role(panel, panel["bob"]) as bob:
        assert bob.execute(fields, (ann_id,)).fetchall() == [("wrong", False, None, None, None, "a beak")]
    batch = panel["root"].parent / "bob.csv"
    other = panel["items"][1]
    batch.write_text("image,predicted,verdict,problematic,severity,category,oov_name,note\n"
                     f"ILSVRC2012_val_{other.image_id:08d}.JPEG,{other.predicted},correct,,,,,\n")
    for _ in range(2):  # sent twice: recorded once (the batch key's uniqueness holds through the view)
        sent = cli("vote", root, "--batch", str(batch), env=as_bob)
        assert sent.returncode == 0, sent.stderr
    status = cli("panel-status", root, "--json", env=as_bob)
    assert status.returncode == 0, status.stderr
    with as_role(panel, panel["ann"]) as ann:  # the chair reads every field of every vote
        bob_id = ids(ann, panel["bob"])
        assert ann.execute("SELECT count(*) FROM vote WHERE panelist_id = %s AND image_id = %s",
                           (bob_id, other.image_id)).fetchone()[0] == 1
        assert ("wrong", False, "minor", "fine_grained", None, "") in ann.execute(fields, (bob_id,)).fetchall()
