"""Panel integrity: zoom results carry who computed them, the app's locks are rows a
panelist cannot take, and only the chair's role reopens

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26

- zoom_probe.computed_by (the reviewer whose process computed the result; NULL for
  the project's owner) and no more one-row-per-(run, image, version): a result is
  appended, never updated, so a panelist's role needs INSERT only and can never
  replace another's result (readers choose, reviewer.runs.zoom.store).
- app_lock(scope, key): one row per lock the app takes before a read-then-write
  (db.engine.serialise): (1, reviewer id) per panelist, (2, 0) for decisions, (3, 0)
  for migrations, (4, 0) for evidence imports. Taken with SELECT ... FOR UPDATE; on a
  panel of database roles a row-level security policy lets a panelist lock only its
  own row and the chair the decisions' row, where any role could hold the advisory
  keys used before and make the chair's acts hang.
- On PostgreSQL, where `reviewer panel-setup` has run (its policy `own_inserts` on
  decision exists), its rules are brought up to date here, so an upgraded panel
  does not stay open until the owner runs panel-setup again: decision rows (locks,
  overrides, reopenings) only from the chair's group; zoom results insert-only under
  one's own name; app_lock as above (db.panel_policies, which panel-setup runs too).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

SCOPES = ((2, 0), (3, 0), (4, 0))  # db.engine's DECISIONS, MIGRATION, EVIDENCE_SOURCES


def upgrade() -> None:
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    with op.batch_alter_table("zoom_probe", recreate="always" if not postgres else "auto") as batch:
        batch.drop_constraint("uq_zoom_probe_run_image_version", type_="unique")
        batch.add_column(sa.Column("computed_by", sa.Integer(), sa.ForeignKey("reviewer.id",
                                   name="fk_zoom_probe_computed_by"), nullable=True))
    op.create_index("ix_zoom_probe_run_image", "zoom_probe", ["run_id", "image_id", "probe_version"])
    op.create_table(
        "app_lock",
        sa.Column("scope", sa.Integer(), nullable=False),
        sa.Column("key", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("scope", "key"),
    )
    rows = [{"scope": s, "key": k} for s, k in SCOPES]
    rows += [{"scope": 1, "key": rid} for (rid,) in bind.execute(sa.text("SELECT id FROM reviewer")).all()]
    op.bulk_insert(sa.table("app_lock", sa.column("scope", sa.Integer), sa.column("key", sa.BigInteger)), rows)
    if postgres:
        op.execute("""
            CREATE FUNCTION reviewer_lock_row() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO app_lock (scope, key) VALUES (1, NEW.id) ON CONFLICT DO NOTHING;
                RETURN NEW;
            END $$""")
        op.execute("CREATE TRIGGER reviewer_lock_row AFTER INSERT ON reviewer "
                   "FOR EACH ROW EXECUTE FUNCTION reviewer_lock_row()")
        _tighten_panel(bind)
    else:
        op.execute("CREATE TRIGGER reviewer_lock_row AFTER INSERT ON reviewer "
                   "BEGIN INSERT OR IGNORE INTO app_lock (scope, key) VALUES (1, NEW.id); END")


def _tighten_panel(bind) -> None:
    """panel-setup's rules of revision 0009, where panel-setup ran before (the panel's table was
    still `reviewer`)."""
    from db.panel_policies import installed_groups, policy_statements

    groups = installed_groups(bind)
    if groups is None:
        return  # no panel of database roles: nothing to tighten
    for statement in policy_statements(*groups, people="reviewer", person_id="reviewer_id", server_ids=False):
        op.execute(statement)


def downgrade() -> None:
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    if postgres:
        op.execute("DROP TRIGGER IF EXISTS reviewer_lock_row ON reviewer")
        op.execute("DROP FUNCTION IF EXISTS reviewer_lock_row()")
        op.execute("DROP POLICY IF EXISTS own_inserts ON zoom_probe")
        op.execute("DROP POLICY IF EXISTS panel_reads ON zoom_probe")
        op.execute("ALTER TABLE zoom_probe DISABLE ROW LEVEL SECURITY")
    else:
        op.execute("DROP TRIGGER IF EXISTS reviewer_lock_row")
    op.drop_table("app_lock")
    # One row per (run, image, version) again: keep the newest complete (else newest) of each.
    op.execute("""
        DELETE FROM zoom_probe WHERE id NOT IN (
            SELECT id FROM (
                SELECT id, ROW_NUMBER() OVER (PARTITION BY run_id, image_id, probe_version
                                              ORDER BY complete DESC, computed_at DESC, id DESC) AS n
                FROM zoom_probe) ranked
            WHERE n = 1)""")
    op.drop_index("ix_zoom_probe_run_image", table_name="zoom_probe")
    with op.batch_alter_table("zoom_probe", recreate="always" if not postgres else "auto") as batch:
        batch.drop_constraint("fk_zoom_probe_computed_by", type_="foreignkey")
        batch.drop_column("computed_by")
        batch.create_unique_constraint("uq_zoom_probe_run_image_version", ["run_id", "image_id", "probe_version"])
