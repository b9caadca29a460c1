"""The server gives every history row its id and its time, and bounds what a panelist writes

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28

Issue 36 (a hostile panelist's role, raw SQL on PostgreSQL):

- Ids a panelist cannot exhaust or draw (H1). On PostgreSQL the ids of vote, decision,
  discussion_note and zoom_probe (and vote.undoes, which names a vote) become bigint, their
  sequences too, and a BEFORE INSERT trigger (`reviewer_server_fields`, SECURITY DEFINER: it
  draws as the owner) gives each new row its id from the table's sequence, whatever the
  client sent. The columns lose their `nextval` default, so a panelist's role needs no USAGE
  on the sequences, and panel-setup (db.panel_policies) takes it away: `nextval('vote_id_seq')`
  as a panelist is refused. A bigint sequence drawn at two million a second lasts 146,000 years.
  SQLite's INTEGER PRIMARY KEY is already 64-bit and has no sequence to draw.
- The server's time on every history row (H5). The same trigger sets created_at (zoom_probe:
  computed_at) to clock_timestamp(): a client's value, backdated or in 2099, never stands.
  SQLite has no server: whoever can write project.db owns everything in it, triggers included;
  the app writes the time itself there.
- Bounded text (H2): CHECK constraints (PostgreSQL; NOT VALID where older rows exceed them,
  so the history is kept and new rows are checked) and BEFORE INSERT triggers (SQLite: no
  table rebuild, so the append-only triggers of 0005 stay) hold every free text a panelist
  writes to the command line's limits: a vote's note and a decision's reason 131,072
  characters (a batch cell's cap), a discussion note 20,000, an object's name 255, a batch
  key 200, a queue order 32, a zoom result's payload 1,000,000 (a full probe is ~20,000).

The limits are written out here as they were at this revision; tests/db/test_server_enforces.py
checks they are the app's (reviewer.panel.votes, reviewer.panel.discussion, reviewer.runs.zoom.store).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

# table -> its time column (the tables a panelist's role inserts into, all append-only)
SERVER_ROWS = {"vote": "created_at", "decision": "created_at", "discussion_note": "created_at",
               "zoom_probe": "computed_at"}
NOTE_MAX = 131_072  # reviewer.panel.votes.NOTE_MAX_CHARS (a batch cell's cap)
DISCUSSION_MAX = 20_000  # reviewer.panel.discussion.NOTE_MAX_CHARS
OOV_NAME_MAX = 255  # reviewer.panel.votes.OOV_NAME_MAX_CHARS
BATCH_KEY_MAX = 200
QUEUE_ORDER_MAX = 32
PAYLOAD_MAX = 1_000_000  # reviewer.runs.zoom.store.PAYLOAD_MAX_CHARS
LIMITS = {
    "vote": {"note": NOTE_MAX, "oov_name": OOV_NAME_MAX, "batch_key": BATCH_KEY_MAX, "queue_order": QUEUE_ORDER_MAX},
    "decision": {"reason": NOTE_MAX, "oov_name": OOV_NAME_MAX},
    "discussion_note": {"text": DISCUSSION_MAX},
    "zoom_probe": {"payload": PAYLOAD_MAX},
}
INT_MAX = 2 ** 31 - 1


def _bounds(table: str) -> str:
    return " AND ".join(f"({column} IS NULL OR char_length({column}) <= {limit})"
                        for column, limit in LIMITS[table].items())


def _policies(bind, table: str) -> list[str]:
    """CREATE POLICY statements that make the table's policies again (a column's type cannot
    change while a policy names it)."""
    rows = bind.execute(sa.text(
        "SELECT policyname, permissive, cmd, roles, qual, with_check FROM pg_policies "
        "WHERE schemaname = current_schema() AND tablename = :t"), {"t": table}).all()
    out = []
    for name, permissive, cmd, roles, qual, check in rows:
        to = ", ".join('"' + r.replace('"', '""') + '"' if r != "public" else "PUBLIC" for r in roles)
        out.append(f'CREATE POLICY "{name}" ON {table} AS {permissive} FOR {cmd} TO {to}'
                   + (f" USING ({qual})" if qual is not None else "")
                   + (f" WITH CHECK ({check})" if check is not None else ""))
    return out


def _retype(bind, table: str, columns: tuple[str, ...], sql_type: str) -> None:
    again = _policies(bind, table)
    for name in bind.execute(sa.text("SELECT policyname FROM pg_policies WHERE schemaname = current_schema() "
                                     "AND tablename = :t"), {"t": table}).scalars():
        op.execute(f'DROP POLICY "{name}" ON {table}')
    op.execute(f"ALTER TABLE {table} " + ", ".join(f"ALTER COLUMN {c} TYPE {sql_type}" for c in columns))
    for statement in again:
        op.execute(statement)


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        for table in LIMITS:
            checks = " OR ".join(f"length(NEW.{c}) > {n}" for c, n in LIMITS[table].items())
            said = ", ".join(f"{c} {n:,}" for c, n in LIMITS[table].items())
            op.execute(f"CREATE TRIGGER {table}_bounded BEFORE INSERT ON {table} WHEN {checks} "
                       f"BEGIN SELECT RAISE(ABORT, 'a {table} row holds at most (characters): {said}'); END")
        return
    op.execute("""
        CREATE FUNCTION reviewer_server_fields() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = public, pg_temp AS $$
        BEGIN
            -- The id from the table's own sequence and the server's clock, whatever the client sent.
            NEW.id := nextval(TG_ARGV[0]::regclass);
            IF TG_TABLE_NAME = 'zoom_probe' THEN
                NEW.computed_at := clock_timestamp();
            ELSE
                NEW.created_at := clock_timestamp();
            END IF;
            RETURN NEW;
        END $$""")
    op.execute("REVOKE ALL ON FUNCTION reviewer_server_fields() FROM PUBLIC")
    for table in SERVER_ROWS:
        _retype(bind, table, ("id", "undoes") if table == "vote" else ("id",), "bigint")
        op.execute(f"ALTER TABLE {table} ALTER COLUMN id DROP DEFAULT")
        op.execute(f"ALTER SEQUENCE {table}_id_seq AS bigint")
        op.execute(f"CREATE TRIGGER {table}_server_fields BEFORE INSERT ON {table} FOR EACH ROW "
                   f"EXECUTE FUNCTION reviewer_server_fields('{table}_id_seq')")
        op.execute(f"ALTER TABLE {table} ADD CONSTRAINT ck_{table}_bounded CHECK ({_bounds(table)}) NOT VALID")
        over = bind.execute(sa.text(f"SELECT count(*) FROM {table} WHERE NOT ({_bounds(table)})")).scalar_one()
        if not over:  # else older rows beyond the bounds stay (history), and only new rows are checked
            op.execute(f"ALTER TABLE {table} VALIDATE CONSTRAINT ck_{table}_bounded")
    _panel_rules(bind, server_ids=True)


def _panel_rules(bind, *, server_ids: bool) -> None:
    """Where panel-setup ran: its rules of this revision (no USAGE on the history's sequences,
    the blind rule's function), so an upgraded panel is as closed as a new one; going down, the
    USAGE the older app's inserts need."""
    from db.panel_policies import installed_groups, policy_statements, quoted

    groups = installed_groups(bind)
    if groups is None:
        return
    for statement in policy_statements(*groups, server_ids=server_ids):
        op.execute(statement)
    if not server_ids:
        op.execute(f"GRANT USAGE ON SEQUENCE {', '.join(t + '_id_seq' for t in SERVER_ROWS)} TO {quoted(groups[0])}")


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        for table in LIMITS:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_bounded")
        return
    for table in SERVER_ROWS:
        top = bind.execute(sa.text(f"SELECT greatest((SELECT coalesce(max(id), 0) FROM {table}), "
                                   f"(SELECT last_value FROM {table}_id_seq))")).scalar_one()
        if top > INT_MAX:
            raise RuntimeError(f"refusing to downgrade below revision 0013: {table} ids have reached {top:,}, "
                               f"beyond the integer ids of older revisions")
    for table in SERVER_ROWS:
        op.execute(f"DROP TRIGGER IF EXISTS {table}_server_fields ON {table}")
        op.execute(f"ALTER TABLE {table} DROP CONSTRAINT IF EXISTS ck_{table}_bounded")
        op.execute(f"ALTER SEQUENCE {table}_id_seq AS integer")
        op.execute(f"ALTER TABLE {table} ALTER COLUMN id SET DEFAULT nextval('{table}_id_seq'::regclass)")
        _retype(bind, table, ("id", "undoes") if table == "vote" else ("id",), "integer")
    op.execute("DROP FUNCTION IF EXISTS reviewer_server_fields()")
    _panel_rules(bind, server_ids=False)  # the older app inserts through the columns' defaults
