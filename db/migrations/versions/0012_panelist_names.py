"""The people of the panel are panelists: table reviewer -> panelist, vote.reviewer_id and
discussion_note.reviewer_id -> panelist_id

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26

"Reviewer" is the tool (the package, the command); a person on the panel is a panelist,
in the code as in the schema. Renames only: every row, key, foreign key, grant and
row-level security policy carries over (both databases follow a table or column rename
into their constraints, indexes, triggers and policies). What names the old ones by
text is made again: the indexes and trigger named after the table, on PostgreSQL the
serial sequence (panel-setup grants it by name) and, where panel-setup ran, the blind
rule's SQL function (db.panel_policies, run again with the names of each side).
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

NEW = {"people": "panelist", "person_id": "panelist_id"}
OLD = {"people": "reviewer", "person_id": "reviewer_id"}


def _rename(source: dict[str, str], target: dict[str, str]) -> None:
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    groups = None
    if postgres:
        from db.panel_policies import installed_groups

        groups = installed_groups(bind)
    old_table, new_table = source["people"], target["people"]
    old_column, new_column = source["person_id"], target["person_id"]
    old_batch, new_batch = f"uq_vote_{old_table}_batch_key", f"uq_vote_{new_table}_batch_key"
    op.execute(f"ALTER TABLE {old_table} RENAME TO {new_table}")
    op.execute(f"ALTER TABLE vote RENAME COLUMN {old_column} TO {new_column}")
    op.execute(f"ALTER TABLE discussion_note RENAME COLUMN {old_column} TO {new_column}")
    if postgres:
        op.execute(f"ALTER INDEX ix_vote_{old_column} RENAME TO ix_vote_{new_column}")
        op.execute(f"ALTER INDEX {old_batch} RENAME TO {new_batch}")
        op.execute(f"ALTER SEQUENCE {old_table}_id_seq RENAME TO {new_table}_id_seq")
        op.execute(f"ALTER TABLE {new_table} RENAME CONSTRAINT {old_table}_pkey TO {new_table}_pkey")
        op.execute(f"ALTER TABLE {new_table} RENAME CONSTRAINT {old_table}_name_key TO {new_table}_name_key")
        op.execute(f"ALTER TRIGGER {old_table}_lock_row ON {new_table} RENAME TO {new_table}_lock_row")
        op.execute(f"ALTER FUNCTION {old_table}_lock_row() RENAME TO {new_table}_lock_row")
        if groups is not None:
            from db.panel_policies import policy_statements

            for statement in policy_statements(*groups, **target, server_ids=False):  # 0013 takes them
                op.execute(statement)
    else:
        op.execute(f"DROP INDEX ix_vote_{old_column}")
        op.execute(f"CREATE INDEX ix_vote_{new_column} ON vote ({new_column})")
        op.execute(f"DROP INDEX {old_batch}")
        op.execute(f"CREATE UNIQUE INDEX {new_batch} ON vote ({new_column}, batch_key)")
        op.execute(f"DROP TRIGGER {old_table}_lock_row")
        op.execute(f"CREATE TRIGGER {new_table}_lock_row AFTER INSERT ON {new_table} "
                   "BEGIN INSERT OR IGNORE INTO app_lock (scope, key) VALUES (1, NEW.id); END")


def upgrade() -> None:
    _rename(OLD, NEW)


def downgrade() -> None:
    _rename(NEW, OLD)
