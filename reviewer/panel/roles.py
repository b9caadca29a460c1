"""Panelists as PostgreSQL roles: the server, not the app, decides who may write what.

`setup_statements` is the exact SQL `reviewer panel-setup` runs (and prints with
--print-sql; the README shows it). Run by the database's owner (who made the
project and owns its tables), it makes:

- two group roles per database, `<db>_panel` (every panelist) and `<db>_chair`
  (the chair, also a member of `<db>_panel`), neither able to log in;
- a login role per panelist (no password is set here: the owner sets one with
  `ALTER ROLE ... PASSWORD` or `\\password`, or the server trusts its network);
- privileges: panelists read every table and insert only votes and discussion
  notes, and decisions under the policy below; nobody but the owner updates,
  deletes or truncates anything, or adds panelists, runs and labels;
- row-level security (db.panel_policies for the rules of later revisions): a vote
  or note goes in only under
  the panelist row named like the inserting role (`current_user`), an undo only
  reverses the role's own vote; a decision (a lock, an override or a reopening)
  goes in only under the inserting role and only from a member of `<db>_chair`.
  Reading: every table but vote is open to the panel; another's vote only as the
  chair's blind rule allows (db.panel_policies); a zoom result goes in only under
  the inserting role and is never updated; the app's locks (rows of app_lock) are
  taken only on one's own row, and on the decisions' by the chair, so no panelist can make another's acts wait;
- no temporary tables and no large objects for the panel (the latter only where
  panel-setup runs as a superuser: `storage_left_open` says what is left to the
  server's administrator), and no USAGE on the history's sequences (the server
  draws the ids: migration 0013);
- the panelist rows (one chair) and the project setting
  `identity = database-roles`, from which the app takes the acting panelist from
  the connection (`reviewer.panel.identity`).

The owner keeps full rights (table owners bypass row-level security) and the
append-only triggers of migration 0005 still refuse UPDATE/DELETE/TRUNCATE of the
history to everyone. Default privileges make tables of later migrations readable.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from db.panel_policies import masking_statements, own_id, policy_statements
from reviewer.errors import UserError

ROLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")  # whole name (fullmatch): `$` let a trailing newline in
# Names PostgreSQL reserves or reads as something else than a role (`current_user` is the
# acting role wherever the policies compare names), and the server's own superuser.
RESERVED_ROLES = frozenset({"none", "public", "current_user", "current_role", "session_user", "user",
                            "system_user", "all", "default", "postgres"})
# The project setting listing the panelists taken off the panel (a JSON list of role names).
REVOKED_SETTING = "panel_revoked"
# Tables a panelist writes (their ids come from the server: migration 0013).
# (Decisions, reopenings included, only from the chair's group: the row-level security policy below.)
PANEL_INSERTS = ("vote", "discussion_note", "decision")
# The server's functions that make a large object (lo_import's are a superuser's already).
LARGE_OBJECT_MAKERS = ("lo_creat(integer)", "lo_create(oid)", "lo_from_bytea(oid, bytea)", "lo_import(text)",
                       "lo_import(text, oid)")


class PanelSetupError(UserError):
    """panel-setup cannot run: not PostgreSQL, a bad role name, not the owner, ..."""


@dataclass(frozen=True)
class PanelRoles:
    database: str
    panelists: tuple[str, ...]  # every panelist, the chair included
    chair: str

    @property
    def panel_group(self) -> str:
        return group_role(self.database, "panel")

    @property
    def chair_group(self) -> str:
        return group_role(self.database, "chair")


def group_role(database: str, suffix: str) -> str:
    """The database's group role `<db>_panel` / `<db>_chair`, cut to PostgreSQL's 63
    characters; a database name of 62-63 characters would cut both to one name, so
    there a digest of the name keeps them two."""
    if len(database) < 62:
        return f"{database}_{suffix}"[:63]
    digest = hashlib.sha256(database.encode("utf-8")).hexdigest()[:8]
    return f"{database[:63 - len(suffix) - 10]}_{digest}_{suffix}"


def q(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def check_role_name(name: str) -> str:
    if not ROLE_NAME.fullmatch(name):
        raise PanelSetupError(
            f"{name!r} cannot be a panelist's database role: use lower-case letters, digits and _ "
            "(starting with a letter or _; no spaces, newlines or other control characters), at most 63 "
            "characters, e.g. ada_lovelace")
    if name.startswith("pg_") or name in RESERVED_ROLES:
        raise PanelSetupError(f"{name!r} is reserved by PostgreSQL (or means another role there); choose another "
                              "role name")
    return name


def plan(database: str, panelists: list[str], chair: str) -> PanelRoles:
    names = [check_role_name(n) for n in dict.fromkeys([chair, *panelists])]
    roles = PanelRoles(database=database, panelists=tuple(names), chair=chair)
    groups = {roles.panel_group, roles.chair_group}
    if groups & set(names):
        raise PanelSetupError(f"{', '.join(sorted(groups & set(names)))} is a group role of this project's panel, "
                              "which no one logs in as: name the panelist's own role")
    return roles


def check_login_roles(engine: Engine, names: list[str]) -> None:
    """Refuse an existing role that cannot log in (another project's group role, say): a
    panelist of that name could never act."""
    with engine.connect() as conn:
        groups = [name for name, login in conn.exec_driver_sql(
            "SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname = ANY(%(names)s)", {"names": list(names)})
            if not login]
    if groups:
        raise PanelSetupError(f"{', '.join(sorted(groups))} is a role that cannot log in (a group role): no one "
                              "could act as that panelist; name each panelist's own login role")


def lit(value: str) -> str:
    """A quoted SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def _create_role(name: str, options: str) -> str:
    # CREATE ROLE has no IF NOT EXISTS: a DO block keeps the setup re-runnable.
    literal = lit(name)
    return (f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {literal}) THEN "
            f"CREATE ROLE {q(name)} {options}; END IF; END $$")


def setup_statements(roles: PanelRoles) -> list[str]:
    """The SQL of the setup, in order; every statement may run again (idempotent)."""
    panel, chair, db = q(roles.panel_group), q(roles.chair_group), q(roles.database)
    me = own_id()
    sql = [
        _create_role(roles.panel_group, "NOLOGIN"),
        _create_role(roles.chair_group, "NOLOGIN"),
        f"GRANT {panel} TO {chair}",
        f"REVOKE ALL ON DATABASE {db} FROM PUBLIC",
        # CONNECT only: no temporary tables (a role could fill the disk with them while connected).
        f"GRANT CONNECT ON DATABASE {db} TO {panel}",
        f"REVOKE TEMPORARY ON DATABASE {db} FROM {panel}",
        # Large objects outlive the session and their maker's membership: nobody here makes them.
        # Only a superuser may revoke EXECUTE on the server's own functions; otherwise panel-setup
        # says what is still open and docs/panel.md what the server's administrator runs.
        f"DO $$ BEGIN IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN "
        f"REVOKE EXECUTE ON FUNCTION {', '.join(LARGE_OBJECT_MAKERS)} FROM PUBLIC; END IF; END $$",
        "REVOKE ALL ON SCHEMA public FROM PUBLIC",
        f"GRANT USAGE ON SCHEMA public TO {panel}",
        "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC",
        f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {panel}, {chair}",
        f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {panel}",
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {panel}",
        f"GRANT INSERT ON {', '.join(PANEL_INSERTS)} TO {panel}",
        # (no USAGE on the history's sequences: the server draws the ids, db.panel_policies)
    ]
    # Row-level security on the history: anyone may read, an insert must be the role's own.
    policies = {
        "vote": f"panelist_id = {me} AND (undoes IS NULL OR undoes IN "
                f"(SELECT v.id FROM vote v WHERE v.panelist_id = {me}))",
        "discussion_note": f"panelist_id = {me}",
    }
    for table in ("vote", "discussion_note", "decision"):
        sql += [
            f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
            f"DROP POLICY IF EXISTS panel_reads ON {table}",
            f"CREATE POLICY panel_reads ON {table} FOR SELECT USING (true)",
        ]
    for table, check in policies.items():
        sql += [
            f"DROP POLICY IF EXISTS own_inserts ON {table}",
            f"CREATE POLICY own_inserts ON {table} FOR INSERT WITH CHECK ({check})",
        ]
    # Decisions (chair only), zoom results (insert-only, one's own) and the app's locks (one's own row).
    sql += policy_statements(roles.panel_group, roles.chair_group)
    for name in roles.panelists:
        sql += [_create_role(name, "LOGIN"), f"GRANT {panel} TO {q(name)}",
                # back on the panel if revoked before
                f"UPDATE project_setting SET value = (value::jsonb - {lit(name)})::text WHERE key = '{REVOKED_SETTING}'"]
        if name != roles.chair:
            sql.append(f"REVOKE {chair} FROM {q(name)}")
    sql.append(f"GRANT {chair} TO {q(roles.chair)}")
    # Blind review field by field: each member reads votes through a masking view (db.panel_policies).
    sql += masking_statements(roles.panel_group, roles.chair_group, list(roles.panelists), roles.database)
    # The panel in the panelist table: one row per role, exactly one chair.
    values = ", ".join(f"('{n}', {'true' if n == roles.chair else 'false'}, now())" for n in roles.panelists)
    sql += [
        f"INSERT INTO panelist (name, is_chair, created_at) VALUES {values} "
        "ON CONFLICT (name) DO UPDATE SET is_chair = EXCLUDED.is_chair",
        f"UPDATE panelist SET is_chair = false WHERE is_chair AND name <> '{roles.chair}'",
        "INSERT INTO project_setting (key, value) VALUES ('identity', 'database-roles') "
        "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
    ]
    return sql


def revoke_statements(roles: PanelRoles, names: list[str]) -> list[str]:
    """Take panelists off the panel: they keep their history but can no longer write
    (their login role stays; drop it yourself if it serves nothing else)."""
    out = []
    for name in (check_role_name(n) for n in names):
        out += [f"REVOKE {q(roles.chair_group)} FROM {q(name)}", f"REVOKE {q(roles.panel_group)} FROM {q(name)}",
                f"UPDATE panelist SET is_chair = false WHERE name = '{name}'",
                # off the panel: no longer counted among those who must vote (reviewer.panel.votes.panelists)
                f"INSERT INTO project_setting (key, value) VALUES ('{REVOKED_SETTING}', '[]') "
                "ON CONFLICT (key) DO NOTHING",
                f"UPDATE project_setting SET value = ((value::jsonb - {lit(name)}) || jsonb_build_array({lit(name)}))"
                f"::text WHERE key = '{REVOKED_SETTING}'"]
    return out


def storage_left_open(engine: Engine, roles: PanelRoles) -> list[str]:
    """What the panel's group role may still do to store data outside its own bounded rows
    (empty when nothing): each a sentence naming the SQL that closes it, for the server's
    administrator where only a superuser may run it."""
    open_ = []
    with engine.connect() as conn:
        group, db = roles.panel_group, roles.database
        if conn.exec_driver_sql("SELECT has_database_privilege(%(g)s, %(d)s, 'TEMPORARY')",
                                {"g": group, "d": db}).scalar():
            open_.append(f"the panel may create temporary tables: run REVOKE TEMPORARY ON DATABASE {q(db)} FROM "
                         f"PUBLIC, {q(group)}")
        able = [f for f in LARGE_OBJECT_MAKERS if conn.exec_driver_sql(
            "SELECT has_function_privilege(%(g)s, %(f)s, 'EXECUTE')", {"g": group, "f": f}).scalar()]
        if able:
            open_.append(f"the panel may create large objects ({', '.join(a.split('(')[0] for a in able)}); only a "
                         f"superuser can refuse it: have the server's administrator run, connected to {db}, "
                         f"REVOKE EXECUTE ON FUNCTION {', '.join(able)} FROM PUBLIC, {q(group)}")
    return open_


def apply(engine: Engine, statements: list[str]) -> None:
    """Run the statements in one transaction (all or nothing), as the connection's role."""
    if engine.dialect.name != "postgresql":
        raise PanelSetupError("panelists as database roles need PostgreSQL; a SQLite project trusts whoever "
                              "can write its file (see the README, 'Who may act')")
    with engine.begin() as conn:
        owner = conn.exec_driver_sql("SELECT tableowner FROM pg_tables WHERE tablename = 'vote'").scalar_one()
        me, superuser = conn.exec_driver_sql(
            "SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user").one()
        if me != owner and not superuser:
            raise PanelSetupError(f"panel-setup must run as the owner of the project's tables ({owner!r}), "
                                  f"not as {me!r}: connect as the owner (PGUSER={owner})")
        for statement in statements:
            try:
                conn.exec_driver_sql(statement.replace("%", "%%"))
            except DBAPIError as exc:  # rolled back whole: say what the server refused
                detail = " ".join(str(exc.orig).split()) if exc.orig is not None else str(exc)
                raise PanelSetupError(f"the server refused the panel setup ({detail}); nothing was changed") from None
