"""The row-level security rules of a panel of database roles that later schema
revisions brought (revision 0009 on): one home for the SQL that `reviewer
panel-setup` runs (reviewer.panel.roles) and that migration 0009 runs on a panel
set up before it, so an upgraded panel is as closed as a new one.

- decision: rows (locks, overrides, reopenings) only under the inserting role and
  only from a member of the chair's group role;
- zoom_probe: a panelist's role reads every result and inserts only its own
  (computed_by names it), never updates or deletes one;
- app_lock: a panelist's role may lock (SELECT ... FOR UPDATE) only its own row
  (scope 1, its reviewer id), the chair's also the decisions' row (scope 2); the
  migration and evidence rows are the owner's (who bypasses row-level security).
"""

from __future__ import annotations

OWN_ID = "(SELECT r.id FROM reviewer r WHERE r.name = current_user)"


def quoted(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def literal(value: str) -> str:
    """A quoted SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def is_chair(chair_group: str) -> str:
    return f"pg_has_role(current_user, {literal(chair_group)}, 'MEMBER')"


def policy_statements(panel_group: str, chair_group: str) -> list[str]:
    """The statements, each safe to run again."""
    panel, chair = quoted(panel_group), is_chair(chair_group)
    return [
        "ALTER TABLE decision ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS own_inserts ON decision",
        f"CREATE POLICY own_inserts ON decision FOR INSERT WITH CHECK (decided_by = {OWN_ID} AND {chair})",
        f"REVOKE UPDATE, DELETE, TRUNCATE ON zoom_probe FROM {panel}",
        f"GRANT SELECT, INSERT ON zoom_probe TO {panel}",
        f"GRANT USAGE ON SEQUENCE zoom_probe_id_seq TO {panel}",
        "ALTER TABLE zoom_probe ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS panel_reads ON zoom_probe",
        "CREATE POLICY panel_reads ON zoom_probe FOR SELECT USING (true)",
        "DROP POLICY IF EXISTS own_inserts ON zoom_probe",
        f"CREATE POLICY own_inserts ON zoom_probe FOR INSERT WITH CHECK (computed_by = {OWN_ID})",
        f"GRANT SELECT, UPDATE (key) ON app_lock TO {panel}",
        "ALTER TABLE app_lock ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS panel_reads ON app_lock",
        "CREATE POLICY panel_reads ON app_lock FOR SELECT USING (true)",
        "DROP POLICY IF EXISTS own_locks ON app_lock",
        f"CREATE POLICY own_locks ON app_lock FOR UPDATE USING ((scope = 1 AND key = {OWN_ID}) "
        f"OR (scope = 2 AND key = 0 AND {chair})) WITH CHECK (false)",
    ]
