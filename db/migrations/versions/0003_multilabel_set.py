"""image.multilabel: membership of the multi-label evaluation set; a label may
list a class under two kinds (as the official TFDS v3 file does)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24

Before this revision an image was taken to be in the multi-label set when it
had any multi-label row, so that is what the upgrade fills in.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN: a batch rebuild of `image` would drop a table other tables
    # reference, which SQLite refuses with foreign keys on.
    op.add_column("image", sa.Column("multilabel", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.execute("UPDATE image SET multilabel = TRUE WHERE id IN "
               "(SELECT image_id FROM label WHERE label_set = 'multilabel')")
    with op.batch_alter_table("label", schema=None) as batch_op:
        batch_op.drop_constraint("uq_label_set_image_class", type_="unique")
        batch_op.create_unique_constraint("uq_label_set_image_class_kind",
                                          ["label_set", "image_id", "class_index", "kind"])


def downgrade() -> None:
    # The older schema holds one kind per class and infers membership from the labels:
    # refused when that would lose anything (a class listed under two kinds, or an
    # image whose membership differs from what its labels say), so no data goes silently.
    bind = op.get_bind()
    doubled = bind.execute(sa.text(
        "SELECT count(*) FROM label WHERE EXISTS (SELECT 1 FROM label AS other WHERE "
        "other.label_set = label.label_set AND other.image_id = label.image_id AND "
        "other.class_index = label.class_index AND other.kind <> label.kind)")).scalar_one()
    differing = bind.execute(sa.text(
        "SELECT count(*) FROM image WHERE multilabel <> (id IN "
        "(SELECT image_id FROM label WHERE label_set = 'multilabel'))")).scalar_one()
    if doubled or differing:
        raise RuntimeError(f"refusing to downgrade below revision 0003: {doubled} label rows list a class under "
                           f"two kinds and {differing} images' multi-label membership differs from their labels; "
                           "the older schema cannot hold either, and they would be lost")
    op.execute("DELETE FROM label WHERE kind = 'wrong' AND EXISTS (SELECT 1 FROM label AS other WHERE "
               "other.label_set = label.label_set AND other.image_id = label.image_id AND "
               "other.class_index = label.class_index AND other.kind <> 'wrong')")
    op.execute("DELETE FROM label WHERE kind = 'unclear' AND EXISTS (SELECT 1 FROM label AS other WHERE "
               "other.label_set = label.label_set AND other.image_id = label.image_id AND "
               "other.class_index = label.class_index AND other.kind = 'correct')")
    with op.batch_alter_table("label", schema=None) as batch_op:
        batch_op.drop_constraint("uq_label_set_image_class_kind", type_="unique")
        batch_op.create_unique_constraint("uq_label_set_image_class", ["label_set", "image_id", "class_index"])
    with op.batch_alter_table("image", schema=None) as batch_op:
        batch_op.drop_column("multilabel")
