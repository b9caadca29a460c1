"""vote.batch_key: a batch row's key, so that re-sending a batch records nothing twice

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24

A plain ADD COLUMN and a unique index (no table rebuild: the append-only triggers
of 0005 stay). Unique per panelist: the same key from two panelists is two votes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("vote", sa.Column("batch_key", sa.String(length=200), nullable=True))
    op.create_index("uq_vote_reviewer_batch_key", "vote", ["reviewer_id", "batch_key"], unique=True)


def downgrade() -> None:
    keyed = op.get_bind().execute(sa.text("SELECT count(*) FROM vote WHERE batch_key IS NOT NULL")).scalar_one()
    if keyed:
        raise RuntimeError(f"refusing to downgrade below revision 0006: {keyed} votes carry batch keys that "
                           "would be lost (a re-sent batch would then record them twice)")
    op.drop_index("uq_vote_reviewer_batch_key", table_name="vote")
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE vote DROP COLUMN batch_key")  # SQLite 3.35+: no rebuild, the triggers stay
    else:
        op.drop_column("vote", "batch_key")
