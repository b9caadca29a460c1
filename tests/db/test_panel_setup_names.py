"""`panel-setup` given names PostgreSQL reads otherwise, and `--revoke` (issue 29,
findings 7 and 8): a reserved name (`none`, `current_user`), a name with a newline or
another control character, a group role's name, and a database name whose group roles
cut to one name are refused or handled, never a traceback or a phantom panelist; a
revoked panelist no longer counts among those who must vote."""

from __future__ import annotations

import psycopg
import pytest
from test_panel_roles import as_role, panel  # noqa: F401  (the fixture: roles ann (chair), bob)

from reviewer.cli import main
from reviewer.panel.roles import plan
from reviewer.project import Project

pytestmark = pytest.mark.postgres


def admin(panel):  # noqa: F811
    return psycopg.connect(panel["url"].set(drivername="postgresql", database="postgres")
                           .render_as_string(hide_password=False), autocommit=True)


def roles_named(panel, names) -> list[str]:  # noqa: F811
    with admin(panel) as conn:
        return [r for (r,) in conn.execute("SELECT rolname FROM pg_roles WHERE rolname = ANY(%s)", (list(names),))]


@pytest.mark.parametrize("name, message", [
    ("none", "is reserved by PostgreSQL"), ("current_user", "is reserved by PostgreSQL"),
    ("session_user", "is reserved by PostgreSQL"), ("public", "is reserved by PostgreSQL"),
    ("eve\n", "no spaces, newlines or other control characters"), ("e\tve", "control characters"),
    ("GROUP", "is a group role of this project's panel"), ("CHAIR", "is a group role of this project's panel")])
def test_names_that_are_not_a_panelists_role_are_refused(panel, monkeypatch, capsys, name, message):  # noqa: F811
    name = {"GROUP": panel["group"], "CHAIR": panel["chair_group"]}.get(name, name)
    monkeypatch.setenv("PGUSER", panel["url"].username)
    assert main(["panel-setup", str(panel["root"]), "--chair", panel["ann"], "--panelist", name]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err
    if name.strip() == name and name not in (panel["group"], panel["chair_group"], "public"):
        assert roles_named(panel, [name]) == []  # no role made


def test_another_projects_group_role_is_no_panelist(panel, monkeypatch, capsys):  # noqa: F811
    group = f"{panel['ann']}_other_panel"
    with admin(panel) as conn:
        conn.execute(f'CREATE ROLE "{group}" NOLOGIN')
    try:
        monkeypatch.setenv("PGUSER", panel["url"].username)
        assert main(["panel-setup", str(panel["root"]), "--chair", panel["ann"], "--panelist", group]) == 2
        err = capsys.readouterr().err
        assert "cannot log in (a group role)" in err and "Traceback" not in err
    finally:
        with admin(panel) as conn:
            conn.execute(f'DROP ROLE IF EXISTS "{group}"')


@pytest.mark.parametrize("length", [62, 63])
def test_group_roles_of_a_long_database_name_stay_two(length):
    roles = plan("d" * length, ["bob"], "ann")
    assert roles.panel_group != roles.chair_group
    assert len(roles.panel_group) <= 63 and len(roles.chair_group) <= 63
    assert plan("short_db", ["bob"], "ann").panel_group == "short_db_panel"  # unchanged where they fit


def test_a_database_name_of_63_characters_keeps_the_chair_apart(panel, tmp_path, monkeypatch, capsys):  # noqa: F811
    url, tag = panel["url"], panel["ann"].split("_")[0]
    name = (f"{tag}_" + "x" * 63)[:63]
    with admin(panel) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    roles = plan(name, [panel["bob"]], panel["ann"])
    try:
        project = Project.create(tmp_path / "long", db_url=f"postgresql://{url.host}:{url.port or 5432}/{name}")
        project.close()
        monkeypatch.setenv("PGUSER", url.username)
        assert main(["panel-setup", str(tmp_path / "long"), "--chair", panel["ann"], "--panelist", panel["bob"]]) == 0
        with admin(panel) as conn:
            member = conn.execute("SELECT pg_has_role(%s, %s, 'MEMBER'), pg_has_role(%s, %s, 'MEMBER')",
                                  (panel["bob"], roles.chair_group, panel["ann"], roles.chair_group)).fetchone()
        assert member == (False, True)  # bob is no chair (one role for both groups made him one)
    finally:
        with admin(panel) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            for role in (roles.panel_group, roles.chair_group):
                conn.execute(f'REVOKE "{role}" FROM "{panel["ann"]}", "{panel["bob"]}"') if roles_named(
                    panel, [role]) else None
                conn.execute(f'DROP ROLE IF EXISTS "{role}"')
    capsys.readouterr()


def test_a_revoked_panelist_no_longer_counts(panel, monkeypatch, capsys):  # noqa: F811
    cy = panel["ann"].replace("_ann", "_cy")
    root, item = str(panel["root"]), panel["items"][0]
    image = f"ILSVRC2012_val_{item.image_id:08d}.JPEG"
    owner = panel["url"].username
    monkeypatch.setenv("PGUSER", owner)
    try:
        assert main(["panel-setup", root, "--chair", panel["ann"], "--panelist", cy]) == 0
        assert main(["panel-setup", root, "--chair", panel["ann"], "--revoke", cy]) == 0
        for who in (panel["ann"], panel["bob"]):
            monkeypatch.setenv("PGUSER", who)
            assert main(["vote", root, "--image", image, "--predicted", str(item.predicted), "--verdict", "wrong",
                         "--not-problematic"]) == 0
        capsys.readouterr()
        monkeypatch.setenv("PGUSER", panel["ann"])
        assert main(["decide", root, "--image", image, "--predicted", str(item.predicted)]) == 0, \
            capsys.readouterr().err  # cy, revoked, no longer holds the majority lock back
        # Added again: counted again.
        monkeypatch.setenv("PGUSER", owner)
        assert main(["panel-setup", root, "--chair", panel["ann"], "--panelist", cy]) == 0
        from reviewer.panel.votes import panelists

        project = Project.open(root)
        with project.read() as session:
            assert cy in [r.name for r in panelists(session=session)]
        project.close()
    finally:
        with admin(panel) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{panel["url"].database}" WITH (FORCE)')
            conn.execute(f'DROP ROLE IF EXISTS "{cy}"')
    capsys.readouterr()
