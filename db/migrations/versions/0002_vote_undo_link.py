"""vote.undoes: an undo is a new vote row that names the row it reverses

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("vote", schema=None) as batch_op:
        batch_op.add_column(sa.Column("undoes", sa.Integer(), nullable=True))
        batch_op.create_foreign_key("fk_vote_undoes_vote", "vote", ["undoes"], ["id"])


def downgrade() -> None:
    undos = op.get_bind().execute(sa.text("SELECT count(*) FROM vote WHERE undoes IS NOT NULL")).scalar_one()
    if undos:  # the older schema cannot say which act an undo reverses: refused, not lost
        raise RuntimeError(f"refusing to downgrade below revision 0002: {undos} votes are undos whose link to "
                           "the act they reverse would be lost")
    with op.batch_alter_table("vote", schema=None) as batch_op:
        batch_op.drop_constraint("fk_vote_undoes_vote", type_="foreignkey")
        batch_op.drop_column("undoes")
