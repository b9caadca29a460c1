"""The panel's history is append-only in the database itself: votes, decisions and
discussion notes can be added, never changed or deleted

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24

Until now append-only was the app's habit; any client holding the database could
edit or delete another panelist's vote. Triggers now refuse UPDATE and DELETE on
these tables (and TRUNCATE on PostgreSQL), whoever asks. A later migration that
rebuilds one of these tables on SQLite (Alembic's batch mode copies the table and
drops the old one, triggers included) must create its triggers again.
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

HISTORY = ("vote", "decision", "discussion_note")
MESSAGE = "the panel history is append-only: {table} rows are never changed or deleted"


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"""
            CREATE FUNCTION reviewer_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION '{MESSAGE.format(table="%")}', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
            END $$""")
        for table in HISTORY:
            op.execute(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                       "FOR EACH ROW EXECUTE FUNCTION reviewer_append_only()")
            op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                       "FOR EACH STATEMENT EXECUTE FUNCTION reviewer_append_only()")
        return
    for table in HISTORY:
        for event in ("UPDATE", "DELETE"):
            op.execute(f"CREATE TRIGGER {table}_no_{event.lower()} BEFORE {event} ON {table} "
                       f"BEGIN SELECT RAISE(ABORT, '{MESSAGE.format(table=table)}'); END")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in HISTORY:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
        op.execute("DROP FUNCTION IF EXISTS reviewer_append_only()")
        return
    for table in HISTORY:
        for event in ("update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_{event}")
