"""mistake: a covering index in item order, for the panel's snapshot

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28

The panel's snapshot (reviewer.panel.snapshot._scoped_facts) groups every run's
mistakes by item (image, predicted class): at 50,000 images and 20 runs that is
77,000 rows into 26,000 items on every `panel-status`, `show` of the panel's state and
window refresh. Without an index in item order SQLite sorts them in a temporary B-tree
(0.14 s there); with this one, holding every column the grouping reads, it walks the
index alone (0.05 s). Nothing else changes: the index holds no data of its own.

From this revision on, `reviewer panel-setup` also makes the server mask blind votes field by
field (db.panel_policies.masking_statements: a view the panel's roles read votes through, with
their search_path set to it, which only panel-setup may set, as it makes the roles). Going
down, the view and its function are dropped and the panel reads the vote table again (under
the row rule of 0009-0013), so older revisions, which alter vote's columns, find nothing
depending on them.
"""

from __future__ import annotations

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

COLUMNS = ["image_id", "predicted", "novel", "run_id", "probability", "hierarchy_distance"]


def upgrade() -> None:
    op.create_index("ix_mistake_item", "mistake", COLUMNS)


def downgrade() -> None:
    op.drop_index("ix_mistake_item", table_name="mistake")
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    from db.panel_policies import MASKED_SCHEMA, installed_groups, quoted

    op.execute(f"DROP SCHEMA IF EXISTS {quoted(MASKED_SCHEMA)} CASCADE")
    op.execute("DROP FUNCTION IF EXISTS panel_may_read_fields(integer, integer, integer, name, text)")
    groups = installed_groups(bind)
    if groups is not None:
        op.execute(f"GRANT SELECT ON vote TO {quoted(groups[0])}")
