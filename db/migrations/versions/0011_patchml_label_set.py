"""label.label_set may be "patchml": the labels of a PatchML set's synthetic images

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26

A PatchML set (`reviewer patchml`; Anzaku et al. §3.2) labels each composite image with
its patches' classes. They are kept as a label set of their own, beside "multilabel" and
"real", so no metric of the multi-label set or of ReaL counts them; the CHECK of 0004 is
widened to let them in. A downgrade refuses while such labels exist (it would have to
drop them): remove the PatchML sets' images first.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

BEFORE = ("multilabel", "real")
LABEL_SETS = ("multilabel", "real", "patchml")


def _check(values: tuple[str, ...]) -> str:
    return "label_set IN (" + ", ".join(f"'{v}'" for v in values) + ")"


def upgrade() -> None:
    with op.batch_alter_table("label", schema=None) as batch_op:
        batch_op.drop_constraint("ck_label_set", type_="check")
        batch_op.create_check_constraint("ck_label_set", _check(LABEL_SETS))


def downgrade() -> None:
    used = op.get_bind().execute(sa.text("SELECT count(*) FROM label WHERE label_set = 'patchml'")).scalar_one()
    if used:
        raise RuntimeError(f"refusing to downgrade below revision 0011: {used} labels of PatchML sets would be "
                           "lost; remove the PatchML sets' images first")
    with op.batch_alter_table("label", schema=None) as batch_op:
        batch_op.drop_constraint("ck_label_set", type_="check")
        batch_op.create_check_constraint("ck_label_set", _check(BEFORE))
