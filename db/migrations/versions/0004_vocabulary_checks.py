"""CHECK constraints: every stored verdict, severity, category, label kind, run status and
decision method is one of its vocabulary's values

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24

The values are written out here, as they were when this revision was made;
tests/db/test_migrations.py checks that they are the vocabularies of
reviewer.terms, so the two cannot drift apart.
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

VERDICTS = ("correct", "wrong", "unclear")
PANEL_SEVERITIES = ("major", "minor")
SEVERITIES = ("major", "minor", "borderline")
CATEGORIES = ("fine_grained", "fine_grained_oov", "spurious_correlation", "non_prototypical")
RUN_STATUSES = ("running", "complete", "cancelled", "failed")
DECISION_METHODS = ("majority", "override", "reopened")
LABEL_SETS = ("multilabel", "real")


def _in(column: str, values: tuple[str, ...], *, nullable: bool = True) -> str:
    allowed = ", ".join(f"'{v}'" for v in values)
    return (f"{column} IS NULL OR " if nullable else "") + f"{column} IN ({allowed})"


CHECKS = {
    "vote": {"ck_vote_verdict": _in("verdict", VERDICTS), "ck_vote_severity": _in("severity", PANEL_SEVERITIES),
             "ck_vote_category": _in("category", CATEGORIES)},
    "decision": {"ck_decision_verdict": _in("verdict", VERDICTS),
                 "ck_decision_severity": _in("severity", PANEL_SEVERITIES),
                 "ck_decision_category": _in("category", CATEGORIES),
                 "ck_decision_method": _in("method", DECISION_METHODS, nullable=False)},
    "label": {"ck_label_kind": _in("kind", VERDICTS, nullable=False),
              "ck_label_set": _in("label_set", LABEL_SETS, nullable=False)},
    "run": {"ck_run_status": _in("status", RUN_STATUSES, nullable=False)},
    "imported_review_item": {"ck_review_item_severity": _in("severity", SEVERITIES, nullable=False),
                             "ck_review_item_category": _in("category", CATEGORIES, nullable=False)},
}


def upgrade() -> None:
    for table, checks in CHECKS.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for name, condition in checks.items():
                batch_op.create_check_constraint(name, condition)


def downgrade() -> None:
    for table, checks in CHECKS.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for name in checks:
                batch_op.drop_constraint(name, type_="check")
