"""vote.queue_order: the review queue's order a vote was cast in

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26

The review page records with each vote the queue's sort in effect (a QueueSort value
such as "image" or "informative"), so an analysis can tell which decisions an order
that picks items ("most informative next") brought first. A plain nullable ADD COLUMN
(no table rebuild: the append-only triggers of 0005 stay); rows from before, and votes
cast elsewhere (the command line, a batch, the group view, an undo), hold NULL. No
CHECK: the orders are the app's vocabulary and may grow.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("vote", sa.Column("queue_order", sa.String(length=32), nullable=True))


def downgrade() -> None:
    recorded = op.get_bind().execute(sa.text("SELECT count(*) FROM vote WHERE queue_order IS NOT NULL")).scalar_one()
    if recorded:
        raise RuntimeError(f"refusing to downgrade below revision 0010: {recorded} votes record the queue order "
                           "they were cast in, which would be lost")
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE vote DROP COLUMN queue_order")  # SQLite 3.35+: no rebuild, the triggers stay
    else:
        op.drop_column("vote", "queue_order")
