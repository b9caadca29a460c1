"""Panelists as PostgreSQL roles (`reviewer panel-setup`): the server decides who acts.

Raw SQL as a panelist's role cannot insert a vote under another panelist, change or
delete any vote, decision or note, make itself chair or lock a decision; the CLI
records an act under the connection's role and refuses another name. Real roles on
the local server, real `reviewer` processes with PGUSER set."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import psycopg  # noqa: E402  (the test extras install it)
import pytest
from sqlalchemy.engine import make_url

from reviewer.project import Project


@pytest.fixture
def panel(migrated_postgres_url, tmp_path, add_mistakes):
    """A PostgreSQL project made by its owner, two mistakes, and a panel of roles
    ann (chair) and bob, set up through the CLI; the roles are dropped afterwards."""
    url = make_url(migrated_postgres_url)
    tag = f"t{uuid.uuid4().hex[:8]}"
    ann, bob = f"{tag}_ann", f"{tag}_bob"
    # The URL in project.json names no user: each process's PGUSER says who connects.
    project = Project.create(tmp_path / "P", db_url=f"postgresql://{url.host}:{url.port or 5432}/{url.database}")
    items = add_mistakes(project, [(5, True), (7, True)])
    project.close()
    owner_env = {**os.environ, "PGUSER": url.username}
    setup = cli("panel-setup", str(tmp_path / "P"), "--chair", ann, "--panelist", bob, env=owner_env)
    assert setup.returncode == 0, setup.stderr
    # Roles live beside the databases: drop the database first (from the server's
    # maintenance database), then the roles that held privileges in it.
    admin = psycopg.connect(url.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False),
                            autocommit=True)
    try:
        yield dict(root=tmp_path / "P", url=url, ann=ann, bob=bob, items=items, owner_env=owner_env,
                   group=f"{url.database}_panel", chair_group=f"{url.database}_chair")
    finally:
        with admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)')
            for role in (ann, bob, f"{url.database}_chair", f"{url.database}_panel"):
                admin.execute(f'DROP ROLE IF EXISTS "{role}"')


def cli(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reviewer", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def as_role(panel, role: str):
    """A raw connection as `role`, autocommit: each statement stands alone."""
    return psycopg.connect(panel["url"].set(drivername="postgresql", username=role, password=None)
                           .render_as_string(hide_password=False), autocommit=True)


def refused(conn, sql: str, *params) -> str:
    with pytest.raises(psycopg.Error) as caught:
        conn.execute(sql, params or None)
    return str(caught.value)


def ids(conn, name: str) -> int:
    return conn.execute("SELECT id FROM panelist WHERE name = %s", (name,)).fetchone()[0]


def test_a_panelist_role_cannot_touch_what_is_not_theirs(panel):
    item = panel["items"][0]
    with as_role(panel, panel["bob"]) as bob, as_role(panel, panel["ann"]) as ann:
        ann_id, bob_id = ids(bob, panel["ann"]), ids(bob, panel["bob"])
        insert = "INSERT INTO vote (image_id, predicted, panelist_id, verdict, problematic, note, retracted, created_at) " \
                 "VALUES (%s, %s, %s, 'wrong', false, '', false, now()) RETURNING id"
        # Own vote: allowed. Another's: refused by the row-level security policy.
        mine = bob.execute(insert, (item.image_id, item.predicted, bob_id)).fetchone()[0]
        theirs = ann.execute(insert, (item.image_id, item.predicted, ann_id)).fetchone()[0]
        assert "row-level security" in refused(bob, insert, item.image_id, item.predicted, ann_id)
        # An undo row may only reverse one's own vote.
        undo = "INSERT INTO vote (image_id, predicted, panelist_id, problematic, note, retracted, undoes, created_at) " \
               "VALUES (%s, %s, %s, false, '', true, %s, now())"
        assert "row-level security" in refused(bob, undo, item.image_id, item.predicted, bob_id, theirs)
        bob.execute(undo, (item.image_id, item.predicted, bob_id, mine))
        # No history row can be changed, deleted or truncated, own or another's.
        for table in ("vote", "decision", "discussion_note"):
            assert refused(bob, f"UPDATE {table} SET created_at = now()")
            assert refused(bob, f"DELETE FROM {table}")
            assert refused(bob, f"TRUNCATE {table}")
        assert refused(bob, "UPDATE vote SET verdict = 'correct' WHERE id = %s", theirs)
        # Not the chair: cannot lock a decision, cannot make itself chair, cannot add panelists.
        lock = "INSERT INTO decision (image_id, predicted, verdict, problematic, method, reason, decided_by, " \
               "created_at) VALUES (%s, %s, 'wrong', false, 'majority', '', %s, now())"
        assert "row-level security" in refused(bob, lock, item.image_id, item.predicted, bob_id)
        assert "row-level security" in refused(bob, lock, item.image_id, item.predicted, ann_id)
        assert "permission denied" in refused(bob, "UPDATE panelist SET is_chair = true WHERE id = %s", bob_id)
        assert "permission denied" in refused(bob, "INSERT INTO panelist (name, is_chair, created_at) "
                                                   "VALUES ('mallory', true, now())")
        assert "permission denied" in refused(bob, "DELETE FROM mistake")
        assert "permission denied" in refused(bob, "UPDATE project_setting SET value = 'trust'")
        # The chair's role locks; the row names the chair.
        ann.execute(lock, (item.image_id, item.predicted, ann_id))
        assert "row-level security" in refused(ann, lock, item.image_id, item.predicted, bob_id)
        # Everyone reads everything (the meeting needs it).
        assert bob.execute("SELECT count(*) FROM vote").fetchone()[0] == 3
        assert bob.execute("SELECT count(*) FROM decision").fetchone()[0] == 1


def test_the_cli_acts_as_the_connections_role(panel):
    root, item = str(panel["root"]), panel["items"][1]
    image = f"ILSVRC2012_val_{item.image_id:08d}.JPEG"
    as_bob = {**os.environ, "PGUSER": panel["bob"]}
    as_ann = {**os.environ, "PGUSER": panel["ann"]}
    vote = cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "wrong",
               "--not-problematic", env=as_bob)
    assert vote.returncode == 0, vote.stderr
    assert panel["bob"] in vote.stdout
    # Claiming to be ann is refused, and says how to act as ann.
    claim = cli("vote", root, "--panelist", panel["ann"], "--image", image, "--predicted", str(item.predicted),
                "--verdict", "correct", env=as_bob)
    assert claim.returncode == 2 and "Traceback" not in claim.stderr
    assert f"PGUSER={panel['ann']}" in claim.stderr
    # bob cannot lock; ann (chair) can, with or without naming herself.
    bob_locks = cli("decide", root, "--image", image, "--predicted", str(item.predicted), env=as_bob)
    assert bob_locks.returncode == 2 and "Traceback" not in bob_locks.stderr and "chair" in bob_locks.stderr
    assert cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "wrong",
               "--not-problematic", env=as_ann).returncode == 0
    ann_locks = cli("decide", root, "--image", image, "--predicted", str(item.predicted), env=as_ann)
    assert ann_locks.returncode == 0, ann_locks.stderr
    # bob cannot change the panel; the owner's panel-setup can, and stays one chair.
    grab = cli("panelist", root, panel["bob"], "--chair", env=as_bob)
    assert grab.returncode == 2 and "panel-setup" in grab.stderr
    again = cli("panel-setup", root, "--chair", panel["bob"], "--panelist", panel["ann"], env=panel["owner_env"])
    assert again.returncode == 0, again.stderr
    with as_role(panel, panel["bob"]) as bob:
        assert bob.execute("SELECT name FROM panelist WHERE is_chair").fetchall() == [(panel["bob"],)]
        assert bob.execute("SELECT pg_has_role(%s, %s, 'MEMBER')", (panel["ann"], panel["chair_group"])
                           ).fetchone()[0] is False
        votes = bob.execute("SELECT r.name, v.verdict FROM vote v JOIN panelist r ON r.id = v.panelist_id "
                            "ORDER BY v.id").fetchall()
    assert votes == [(panel["bob"], "wrong"), (panel["ann"], "wrong")]


def test_panel_setup_is_for_the_owner_and_postgresql(panel, tmp_path):
    as_bob = {**os.environ, "PGUSER": panel["bob"]}
    denied = cli("panel-setup", str(panel["root"]), "--chair", panel["bob"], env=as_bob)
    assert denied.returncode == 2 and "owner" in denied.stderr and "Traceback" not in denied.stderr
    Project.create(tmp_path / "S").close()
    sqlite = cli("panel-setup", str(tmp_path / "S"), "--chair", "ann", env=os.environ.copy())
    assert sqlite.returncode == 2 and "SQLite" in sqlite.stderr
    bad = cli("panel-setup", str(panel["root"]), "--chair", 'x"; DROP TABLE vote; --', env=panel["owner_env"])
    assert bad.returncode == 2 and "cannot be a panelist" in bad.stderr


def test_the_window_acts_as_its_role_and_the_server_backs_it(panel, monkeypatch):
    from reviewer.app import panel as acts
    from reviewer.panel.identity import describe_identity
    from reviewer.project import ProjectError

    monkeypatch.setenv("PGUSER", panel["bob"])
    project = Project.open(panel["root"])
    try:
        # Whatever name the window remembered, it acts as the connection's role.
        me = acts.join_panel(project, "someone else").value
        assert me.name == panel["bob"]
        with project.read() as session:
            assert "database role '%s'" % panel["bob"] in describe_identity(session)
        item = panel["items"][0]
        acts.vote(project, panelist_id=me.id, item=item, verdict="unclear")
        # Code that passes another panelist's id is stopped by the server, with a clear error.
        ann = next(i for i, n in acts.names(project).items() if n == panel["ann"])
        with pytest.raises(ProjectError, match="only their own votes|only as themselves"):
            acts.vote(project, panelist_id=ann, item=item, verdict="correct")
        # The app refuses a lock by a non-chair itself; a client that skips the app is refused by the server.
        from db.tables import Decision

        with pytest.raises(ProjectError, match="chair's database role"):
            project.write(lambda s: s.add(Decision(image_id=item.image_id, predicted=item.predicted,
                                                   verdict="wrong", method="majority", decided_by=me.id)))
    finally:
        project.close()


def test_a_schema_upgrade_waits_for_the_owner_and_a_revoked_panelist_writes_nothing(panel):
    root, item = str(panel["root"]), panel["items"][0]
    image = f"ILSVRC2012_val_{item.image_id:08d}.JPEG"
    as_bob = {**os.environ, "PGUSER": panel["bob"]}
    owner = psycopg.connect(panel["url"].set(drivername="postgresql").render_as_string(hide_password=False),
                            autocommit=True)
    with owner:
        head = owner.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        owner.execute("UPDATE alembic_version SET version_num = '0005'")  # as if made by an older app
        older = cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "wrong",
                    env=as_bob)
        assert older.returncode == 2 and "needs its owner" in older.stderr and "Traceback" not in older.stderr
        owner.execute("UPDATE alembic_version SET version_num = %s", (head,))
    revoke = cli("panel-setup", root, "--chair", panel["ann"], "--revoke", panel["bob"], env=panel["owner_env"])
    assert revoke.returncode == 0, revoke.stderr
    late = cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "wrong", env=as_bob)
    assert late.returncode == 2 and "CONNECT privilege" in late.stderr and "panel-setup" in late.stderr
    assert "Traceback" not in late.stderr
    with as_role(panel, panel["ann"]) as ann:
        assert ann.execute("SELECT count(*) FROM vote").fetchone()[0] == 0


# -- issue 29: what a hostile panelist's role must not do -------------------------------------------
def test_only_the_chairs_role_reopens(panel):
    """Finding 1: bob reopened three locked items and the export lost them."""
    root, item = str(panel["root"]), panel["items"][0]
    image = f"ILSVRC2012_val_{item.image_id:08d}.JPEG"
    as_bob, as_ann = {**os.environ, "PGUSER": panel["bob"]}, {**os.environ, "PGUSER": panel["ann"]}
    for who in (as_ann, as_bob):
        assert cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "wrong",
                   "--not-problematic", env=who).returncode == 0
    assert cli("decide", root, "--image", image, "--predicted", str(item.predicted), env=as_ann).returncode == 0
    reopen = cli("reopen", root, "--image", image, "--predicted", str(item.predicted), "--reason", "x", env=as_bob)
    assert reopen.returncode == 2 and "chair" in reopen.stderr and "Traceback" not in reopen.stderr
    with as_role(panel, panel["bob"]) as bob:
        bob_id = ids(bob, panel["bob"])
        raw = "INSERT INTO decision (image_id, predicted, verdict, problematic, method, reason, decided_by, " \
              "created_at) VALUES (%s, %s, NULL, false, 'reopened', 'x', %s, now())"
        assert "row-level security" in refused(bob, raw, item.image_id, item.predicted, bob_id)
        assert bob.execute("SELECT method FROM decision ORDER BY id").fetchall() == [("majority",)]
    again = cli("reopen", root, "--image", image, "--predicted", str(item.predicted), "--reason", "a second look",
                env=as_ann)
    assert again.returncode == 0, again.stderr


def test_zoom_results_are_insert_only_under_ones_own_name(panel):
    """Finding 2: any panelist could insert or update any zoom result."""
    item = panel["items"][0]
    with as_role(panel, panel["bob"]) as bob:
        ann_id, bob_id = ids(bob, panel["ann"]), ids(bob, panel["bob"])
        run_id = bob.execute("SELECT id FROM run").fetchone()[0]
        insert = "INSERT INTO zoom_probe (run_id, image_id, predicted, probe_version, complete, payload, " \
                 "computed_at, computed_by) VALUES (%s, %s, %s, 1, true, '{}', now(), %s) RETURNING id"
        assert "row-level security" in refused(bob, insert, run_id, item.image_id, item.predicted, ann_id)
        assert "row-level security" in refused(bob, insert, run_id, item.image_id, item.predicted, None)
        own = bob.execute(insert, (run_id, item.image_id, item.predicted, bob_id)).fetchone()[0]
        assert "permission denied" in refused(bob, "UPDATE zoom_probe SET payload = 'x' WHERE id = %s", own)
        assert "permission denied" in refused(bob, "DELETE FROM zoom_probe WHERE id = %s", own)
        assert bob.execute("SELECT count(*) FROM zoom_probe").fetchone()[0] == 1


def test_a_panelist_cannot_hold_the_apps_locks_and_waits_are_bounded(panel):
    """Finding 3: any role could hold the advisory keys and make the chair's acts hang."""
    root, item = str(panel["root"]), panel["items"][1]
    image = f"ILSVRC2012_val_{item.image_id:08d}.JPEG"
    as_ann = {**os.environ, "PGUSER": panel["ann"], "REVIEWER_LOCK_TIMEOUT_S": "3"}
    bob = psycopg.connect(panel["url"].set(drivername="postgresql", username=panel["bob"], password=None)
                          .render_as_string(hide_password=False))  # one open transaction, held below
    try:
        ann_id, bob_id = ids(bob, panel["ann"]), ids(bob, panel["bob"])
        # The keys the app used before: holding them blocks nothing any more.
        bob.execute("SELECT pg_advisory_lock(1, %s), pg_advisory_lock(2, 0), pg_advisory_lock(3, 0)", (ann_id,))
        # The app's lock rows: only bob's own row can be taken by bob's role.
        taken = bob.execute("SELECT scope, key FROM app_lock FOR UPDATE").fetchall()
        assert taken == [(1, bob_id)]
        vote = cli("vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "wrong",
                   "--not-problematic", env=as_ann)
        assert vote.returncode == 0, vote.stderr
        decide = cli("decide", root, env=as_ann)
        assert decide.returncode == 0, decide.stderr
    finally:
        bob.close()
    # A lock really held past the wait (here by the owner) ends in a message, not a hang.
    owner = psycopg.connect(panel["url"].set(drivername="postgresql").render_as_string(hide_password=False))
    try:
        owner.execute("SELECT 1 FROM app_lock WHERE scope = 2 AND key = 0 FOR UPDATE")
        held = cli("decide", root, env=as_ann)
        assert held.returncode == 2 and "held a lock" in held.stderr and "Traceback" not in held.stderr
    finally:
        owner.close()


def test_the_upgrade_closes_a_panel_set_up_before_it(panel):
    """A panel set up by an older app (reopenings open to every panelist, zoom results
    updatable, no lock rows) is closed by migration 0009 itself, before panel-setup runs again."""
    from db import migrate

    project = Project.open(panel["root"])
    owner_url = panel["url"].set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        migrate.downgrade(project.engine, "0008")
        with psycopg.connect(owner_url, autocommit=True) as owner:  # the old panel-setup's rules
            owner.execute("DROP POLICY own_inserts ON decision")
            owner.execute("CREATE POLICY own_inserts ON decision FOR INSERT WITH CHECK (decided_by = (SELECT r.id "
                          "FROM reviewer r WHERE r.name = current_user) AND (pg_has_role(current_user, "
                          f"'{panel['chair_group']}', 'MEMBER') OR (method = 'reopened' AND verdict IS NULL)))")
            owner.execute(f'GRANT INSERT, UPDATE ON zoom_probe TO "{panel["group"]}"')
        migrate.upgrade(project.engine)
    finally:
        project.close()
    item = panel["items"][0]
    with as_role(panel, panel["bob"]) as bob:
        bob_id = ids(bob, panel["bob"])
        raw = "INSERT INTO decision (image_id, predicted, verdict, problematic, method, reason, decided_by, " \
              "created_at) VALUES (%s, %s, NULL, false, 'reopened', 'x', %s, now())"
        assert "row-level security" in refused(bob, raw, item.image_id, item.predicted, bob_id)
        assert "permission denied" in refused(bob, "UPDATE zoom_probe SET payload = 'x'")
        assert bob.execute("SELECT scope, key FROM app_lock FOR UPDATE").fetchall() == [(1, bob_id)]


def test_the_blind_rule_is_the_servers_as_a_panelist_role_reads_votes(panel):
    """Issue 23: on PostgreSQL the database enforces the chair's blind rule: raw SELECT as a
    panelist's role returns no other panelist's vote on an item it has not voted on."""
    root, (first, second) = str(panel["root"]), panel["items"]
    as_bob, as_ann = {**os.environ, "PGUSER": panel["bob"]}, {**os.environ, "PGUSER": panel["ann"]}
    for item in (first, second):
        assert cli("vote", root, "--image", f"ILSVRC2012_val_{item.image_id:08d}.JPEG", "--predicted",
                   str(item.predicted), "--verdict", "wrong", "--not-problematic", env=as_ann).returncode == 0
    denied = cli("panel-rules", root, "--blind", "on", env=as_bob)
    assert denied.returncode == 2 and "chair" in denied.stderr and "Traceback" not in denied.stderr
    with as_role(panel, panel["bob"]) as bob:
        assert "permission denied" in refused(bob, "INSERT INTO project_setting (key, value) VALUES ('blind', 'off')")
        assert bob.execute("SELECT count(*) FROM vote").fetchone()[0] == 0  # a new panel is blind on the server too
    assert cli("panel-rules", root, "--blind", "off", env=as_ann).returncode == 0
    with as_role(panel, panel["bob"]) as bob:
        assert bob.execute("SELECT count(*) FROM vote").fetchone()[0] == 2  # rule off: all readable
    ok = cli("panel-rules", root, "--blind", "on", env=as_ann)
    assert ok.returncode == 0, ok.stderr
    with as_role(panel, panel["bob"]) as bob:
        bob_id = ids(bob, panel["bob"])
        assert bob.execute("SELECT count(*) FROM vote").fetchone()[0] == 0
        bob.execute("INSERT INTO vote (image_id, predicted, panelist_id, verdict, problematic, note, retracted, "
                    "created_at) VALUES (%s, %s, %s, 'correct', false, '', false, now())",
                    (first.image_id, first.predicted, bob_id))
        seen = bob.execute("SELECT image_id, panelist_id FROM vote ORDER BY id").fetchall()
        assert sorted(seen) == sorted([(first.image_id, ids(bob, panel["ann"])), (first.image_id, bob_id)])
        # Setting the rule back is the chair's: bob's role cannot.
        assert "permission denied" in refused(bob, "UPDATE project_setting SET value = 'off' WHERE key = 'blind'")
    with as_role(panel, panel["ann"]) as ann:
        assert ann.execute("SELECT count(*) FROM vote").fetchone()[0] == 3  # the chair reads what the meeting needs
