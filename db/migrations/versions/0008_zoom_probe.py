"""zoom_probe: the zoom probe's result for a run's mistake, stored with the run

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24

A new table only: nothing existing changes. One row per (run, image, probe
version), the result as compact JSON (reviewer.runs.zoom). The downgrade drops
the table: its rows are a cache of a computation the run's model can repeat,
not panel history.
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "zoom_probe",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("image_id", sa.Integer(), nullable=False),
        sa.Column("predicted", sa.Integer(), nullable=False),
        sa.Column("probe_version", sa.Integer(), nullable=False),
        sa.Column("complete", sa.Boolean(), nullable=False),
        sa.Column("payload", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("computed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["run_id"], ["run.id"]),
        sa.ForeignKeyConstraint(["image_id"], ["image.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("run_id", "image_id", "probe_version", name="uq_zoom_probe_run_image_version"),
    )
    op.create_index("ix_zoom_probe_item", "zoom_probe", ["image_id", "predicted"])


def downgrade() -> None:
    op.drop_index("ix_zoom_probe_item", table_name="zoom_probe")
    op.drop_table("zoom_probe")
