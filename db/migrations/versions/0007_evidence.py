"""evidence_source, evidence_item, evidence_class: published relabelings kept beside the ground truth

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24

New tables only: nothing existing changes. Evidence rows name images by file name
(no foreign key to `image`): a published file covers the validation images whether
or not the project holds them. The downgrade refuses while any evidence is stored.
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "evidence_source",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("file_name", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("path", sqlmodel.sql.sqltypes.AutoString(length=1024), nullable=False),
        sa.Column("sha256", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("imported_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("n_items", sa.Integer(), nullable=False),
        sa.Column("figures", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_evidence_source_kind", "evidence_source", ["kind"])
    op.create_table(
        "evidence_item",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("source_id", sa.Integer(), nullable=False),
        sa.Column("image_name", sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column("payload", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.ForeignKeyConstraint(["source_id"], ["evidence_source.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("source_id", "image_name", name="uq_evidence_item_source_image"),
    )
    op.create_index("ix_evidence_item_image_name", "evidence_item", ["image_name"])
    op.create_table(
        "evidence_class",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("source_id", sa.Integer(), nullable=False),
        sa.Column("class_index", sa.Integer(), nullable=False),
        sa.Column("group_number", sa.Integer(), nullable=False),
        sa.Column("payload", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.ForeignKeyConstraint(["source_id"], ["evidence_source.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("source_id", "class_index", name="uq_evidence_class_source_class"),
    )
    op.create_index("ix_evidence_class_class_index", "evidence_class", ["class_index"])


def downgrade() -> None:
    stored = op.get_bind().execute(sa.text("SELECT count(*) FROM evidence_source")).scalar_one()
    if stored:
        raise RuntimeError(f"refusing to downgrade below revision 0007: {stored} imported evidence sources would be "
                           "lost (the older schema has no place for them)")
    op.drop_index("ix_evidence_class_class_index", table_name="evidence_class")
    op.drop_table("evidence_class")
    op.drop_index("ix_evidence_item_image_name", table_name="evidence_item")
    op.drop_table("evidence_item")
    op.drop_index("ix_evidence_source_kind", table_name="evidence_source")
    op.drop_table("evidence_source")
