"""The row-level security rules of a panel of database roles that later schema
revisions brought (revision 0009 on): one home for the SQL that `reviewer
panel-setup` runs (reviewer.panel.roles) and that migration 0009 runs on a panel
set up before it, so an upgraded panel is as closed as a new one.

- decision: rows (locks, overrides, reopenings) only under the inserting role and
  only from a member of the chair's group role;
- zoom_probe: a panelist's role reads every result and inserts only its own
  (computed_by names it), never updates or deletes one;
- app_lock: a panelist's role may lock (SELECT ... FOR UPDATE) only its own row
  (scope 1, its panelist id), the chair's also the decisions' row (scope 2); the
  migration and evidence rows are the owner's (who bypasses row-level security);
- vote, read: while the chair's blind rule is on (project_setting blind not 'off': on by default), a
  panelist's role reads another's vote on an item only once its own current vote on the
  item holds a verdict (or, in phase 2, both severity and category), or the item's standing
  decision settles it (revision 0013: a vote with only the problematic flag, or a retracted
  one, unlocks nothing); the chair's role reads all (the
  meeting needs them). A unanimous item is voted by all, so its votes are readable to
  every panelist who voted it. Field by field (`masking_statements`, panel-setup from
  revision 0014 on): the panel reads votes through a view that shows another's rating only
  once one's own vote holds a rating too. `panel_may_read_vote` runs as the owner (SECURITY
  DEFINER) so that the policy can look at other votes without recursing into itself;
- discussion_note, read: blind as the votes are: another's note on an item once the row
  rule lets one read his vote on it (the chair's role reads all);
- project_setting: the chair's role may set the panel's rules (blind,
  unanimous_final, panel_closed), no other row; panelists read.
"""

from __future__ import annotations

# The panel's table and its people's column in vote (revision 0012 named them; `reviewer` and
# `reviewer_id` before it, which migration 0009 passes).
PEOPLE, PERSON_ID = "panelist", "panelist_id"


def own_id(people: str = PEOPLE) -> str:
    """The acting role's panelist id."""
    return f"(SELECT r.id FROM {people} r WHERE r.name = current_user)"


def quoted(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def literal(value: str) -> str:
    """A quoted SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def is_chair(chair_group: str) -> str:
    return f"pg_has_role(current_user, {literal(chair_group)}, 'MEMBER')"


RULE_KEYS = ("blind", "unanimous_final", "panel_closed")  # reviewer.panel.rules

def may_read_vote(people: str = PEOPLE, person_id: str = PERSON_ID) -> str:
    """The blind rule's function (a SQL text body: dropped and made again when the names change)."""
    return f"""CREATE FUNCTION panel_may_read_vote(v_image integer, v_predicted integer, v_panelist integer, viewer name)
RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM project_setting s WHERE s.key = 'blind' AND s.value = 'off')
        OR v_panelist = (SELECT r.id FROM {people} r WHERE r.name = viewer)
        OR EXISTS (SELECT 1 FROM vote o
                   WHERE o.id = (SELECT max(m.id) FROM vote m JOIN {people} r ON r.id = m.{person_id}
                                 WHERE r.name = viewer AND m.image_id = v_image AND m.predicted = v_predicted)
                     AND NOT o.retracted
                     AND (o.verdict IS NOT NULL OR (o.severity IS NOT NULL AND o.category IS NOT NULL)))
        OR EXISTS (SELECT 1 FROM decision d WHERE d.image_id = v_image AND d.predicted = v_predicted
                     AND d.method <> 'reopened'
                     AND d.id = (SELECT max(e.id) FROM decision e
                                 WHERE e.image_id = v_image AND e.predicted = v_predicted))
$$"""


# The history tables whose ids the server draws (revision 0013 on: no USAGE on their sequences).
SERVER_ID_TABLES = ("vote", "decision", "discussion_note", "zoom_probe")


def policy_statements(panel_group: str, chair_group: str, *, people: str = PEOPLE,
                      person_id: str = PERSON_ID, server_ids: bool = True) -> list[str]:
    """The statements, each safe to run again. `people`, `person_id`: the panel's table and
    vote's column of its ids, as the schema names them (see PEOPLE). `server_ids`: the schema
    draws the history's ids itself (revision 0013 on), so the panel's roles get no USAGE on
    their sequences (they could exhaust them); False for the revisions before, whose inserts
    take the columns' nextval defaults."""
    panel, chair = quoted(panel_group), is_chair(chair_group)
    rules = ", ".join(literal(k) for k in RULE_KEYS)
    own = own_id(people)
    return [
        # The masking view reads the function: panel-setup makes it again after these (masking_statements).
        f"DROP VIEW IF EXISTS {quoted(MASKED_SCHEMA)}.vote",
        "DROP POLICY IF EXISTS panel_reads ON vote",  # they use the function, made again below
        "DROP POLICY IF EXISTS panel_reads ON discussion_note",
        "DROP FUNCTION IF EXISTS panel_may_read_vote(integer, integer, integer, name)",
        may_read_vote(people, person_id),
        "REVOKE ALL ON FUNCTION panel_may_read_vote(integer, integer, integer, name) FROM PUBLIC",
        f"GRANT EXECUTE ON FUNCTION panel_may_read_vote(integer, integer, integer, name) TO {panel}",
        "ALTER TABLE vote ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS panel_reads ON vote",
        f"CREATE POLICY panel_reads ON vote FOR SELECT USING ({chair} OR "
        f"panel_may_read_vote(image_id, predicted, {person_id}, current_user))",
        # The meeting's notes are blind as the votes are (reviewer.panel.discussion.visible_notes): another's
        # note on an item reads once his vote on it does.
        "DROP POLICY IF EXISTS panel_reads ON discussion_note",
        f"CREATE POLICY panel_reads ON discussion_note FOR SELECT USING ({chair} OR "
        f"panel_may_read_vote(image_id, predicted, {person_id}, current_user))",
        f"GRANT INSERT, UPDATE ON project_setting TO {quoted(chair_group)}",
        "ALTER TABLE project_setting ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS panel_reads ON project_setting",
        "CREATE POLICY panel_reads ON project_setting FOR SELECT USING (true)",
        "DROP POLICY IF EXISTS chair_rules ON project_setting",
        f"CREATE POLICY chair_rules ON project_setting FOR INSERT WITH CHECK (key IN ({rules}) AND {chair})",
        "DROP POLICY IF EXISTS chair_rules_update ON project_setting",
        f"CREATE POLICY chair_rules_update ON project_setting FOR UPDATE USING (key IN ({rules}) AND {chair}) "
        f"WITH CHECK (key IN ({rules}) AND {chair})",
        "ALTER TABLE decision ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS own_inserts ON decision",
        f"CREATE POLICY own_inserts ON decision FOR INSERT WITH CHECK (decided_by = {own} AND {chair})",
        f"REVOKE UPDATE, DELETE, TRUNCATE ON zoom_probe FROM {panel}",
        f"GRANT SELECT, INSERT ON zoom_probe TO {panel}",
        (f"REVOKE USAGE ON SEQUENCE {', '.join(t + '_id_seq' for t in SERVER_ID_TABLES)} FROM {panel}"
         if server_ids else f"GRANT USAGE ON SEQUENCE zoom_probe_id_seq TO {panel}"),
        "ALTER TABLE zoom_probe ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS panel_reads ON zoom_probe",
        "CREATE POLICY panel_reads ON zoom_probe FOR SELECT USING (true)",
        "DROP POLICY IF EXISTS own_inserts ON zoom_probe",
        f"CREATE POLICY own_inserts ON zoom_probe FOR INSERT WITH CHECK (computed_by = {own})",
        f"GRANT SELECT, UPDATE (key) ON app_lock TO {panel}",
        "ALTER TABLE app_lock ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS panel_reads ON app_lock",
        "CREATE POLICY panel_reads ON app_lock FOR SELECT USING (true)",
        "DROP POLICY IF EXISTS own_locks ON app_lock",
        f"CREATE POLICY own_locks ON app_lock FOR UPDATE USING ((scope = 1 AND key = {own}) "
        f"OR (scope = 2 AND key = 0 AND {chair})) WITH CHECK (false)",
    ]


def installed_groups(bind) -> tuple[str, str] | None:
    """(panel group, chair group) of the panel of database roles that panel-setup made on this
    PostgreSQL database, read from its policies; None where it never ran."""
    import re

    import sqlalchemy as sa

    check = bind.execute(sa.text("SELECT with_check FROM pg_policies WHERE tablename = 'decision' "
                                 "AND policyname = 'own_inserts'")).scalar_one_or_none()
    if check is None:
        return None  # no panel of database roles
    found = re.search(r"pg_has_role\(CURRENT_USER, '((?:[^']|'')+)'", check, re.IGNORECASE)
    if not found:
        raise RuntimeError(f"the decision table's policy is not the one panel-setup writes ({check}); "
                           "run 'reviewer panel-setup' again after the upgrade")
    chair = found.group(1).replace("''", "'")
    panel = bind.execute(sa.text(
        "SELECT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid "
        "JOIN pg_roles c ON c.oid = m.member WHERE c.rolname = :chair"), {"chair": chair}).scalars().first()
    if panel is None:
        raise RuntimeError(f"the chair's group role {chair} is in no panel group; run 'reviewer panel-setup' again")
    return panel, chair


# -- blind review field by field, by the server (panel-setup) ------------------------------------------
# A panelist's role reads votes through the view MASKED_SCHEMA.vote, first on its search_path (set per
# role and database by panel-setup): the same rows the row rule above lets it read, each field shown
# only as far as its own vote has gone. SELECT on public.vote's voted fields is revoked from the panel
# (the columns that say who voted on what, and when, stay readable: an insert's RETURNING needs the id
# and the time), so raw SQL on the table is refused, not served. Inserts go through the view's
# INSTEAD OF trigger, run as the panelist (SECURITY INVOKER): public.vote's own-row policy, bounds, id
# and clock triggers apply as before. The chair's role sees every field (the meeting needs them).
# A later migration that changes a column the view reads must drop the view (DROP SCHEMA MASKED_SCHEMA
# CASCADE) and have panel-setup run again.
MASKED_SCHEMA = "panel_view"
# The fields a vote's row holds, by what unlocks them: the correctness vote (a verdict cast) and the rating
# (severity and category both rated); everything else in the row is open to the row's readers.
VERDICT_FIELDS = ("verdict", "problematic", "note")
RATING_FIELDS = ("severity", "category", "oov_name")
OPEN_VOTE_COLUMNS = ("id", "image_id", "predicted", "panelist_id", "retracted", "undoes", "batch_key",
                     "queue_order", "created_at")
# What a masked field reads: NULL where the column may be NULL, its default where it may not.
MASKED_VALUE = {"problematic": "false", "note": "''"}


def may_read_fields(people: str = PEOPLE, person_id: str = PERSON_ID) -> str:
    """`panel_may_read_fields(image, predicted, panelist, viewer, part)`: may `viewer` read the
    `part` ('verdict' or 'rating') of `panelist`'s vote on the item? The verdict's fields once
    the viewer's own current vote holds a verdict (what the row rule asks); the rating's once it
    holds both severity and category; either when the blind rule is off, for one's own vote, or
    once the item's standing decision settles that part (a verdict other than wrong settles
    both; a wrong one settles the rating only with a severity or category)."""
    return f"""CREATE FUNCTION panel_may_read_fields(v_image integer, v_predicted integer, v_panelist integer,
                                      viewer name, part text)
RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM project_setting s WHERE s.key = 'blind' AND s.value = 'off')
        OR v_panelist = (SELECT r.id FROM {people} r WHERE r.name = viewer)
        OR EXISTS (SELECT 1 FROM vote o
                   WHERE o.id = (SELECT max(m.id) FROM vote m JOIN {people} r ON r.id = m.{person_id}
                                 WHERE r.name = viewer AND m.image_id = v_image AND m.predicted = v_predicted)
                     AND NOT o.retracted
                     AND CASE WHEN part = 'verdict' THEN o.verdict IS NOT NULL
                                                         OR (o.severity IS NOT NULL AND o.category IS NOT NULL)
                              ELSE o.severity IS NOT NULL AND o.category IS NOT NULL END)
        OR EXISTS (SELECT 1 FROM decision d WHERE d.image_id = v_image AND d.predicted = v_predicted
                     AND d.method <> 'reopened'
                     AND (part = 'verdict' OR d.verdict IS DISTINCT FROM 'wrong'
                          OR d.severity IS NOT NULL OR d.category IS NOT NULL)
                     AND d.id = (SELECT max(e.id) FROM decision e
                                 WHERE e.image_id = v_image AND e.predicted = v_predicted))
$$"""


def masking_statements(panel_group: str, chair_group: str, members: list[str], database: str, *,
                       person_id: str = PERSON_ID) -> list[str]:
    """The masking view, its insert trigger, the panel's privileges on vote and each member's
    search_path in `database` (every statement safe to run again)."""
    panel, chair, schema = quoted(panel_group), is_chair(chair_group), quoted(MASKED_SCHEMA)
    sees = {part: f"({chair} OR panel_may_read_fields(v.image_id, v.predicted, v.{person_id}, current_user, "
                  f"{literal(part)}))" for part in ("verdict", "rating")}
    columns = []
    for name in ("id", "image_id", "predicted", person_id, *VERDICT_FIELDS, *RATING_FIELDS, "retracted", "undoes",
                 "batch_key", "queue_order", "created_at"):
        part = "verdict" if name in VERDICT_FIELDS else "rating" if name in RATING_FIELDS else None
        columns.append(f"v.{name}" if part is None else
                       f"CASE WHEN {sees[part]} THEN v.{name} ELSE {MASKED_VALUE.get(name, 'NULL')} END AS {name}")
    inserted = [c for c in ("image_id", "predicted", person_id, *VERDICT_FIELDS, *RATING_FIELDS, "retracted",
                            "undoes", "batch_key", "queue_order", "created_at")]
    return [
        f"CREATE SCHEMA IF NOT EXISTS {schema}",
        f"REVOKE ALL ON SCHEMA {schema} FROM PUBLIC",
        f"GRANT USAGE ON SCHEMA {schema} TO {panel}",
        f"DROP VIEW IF EXISTS {schema}.vote",
        "DROP FUNCTION IF EXISTS panel_may_read_fields(integer, integer, integer, name, text)",
        may_read_fields(person_id=person_id),
        "REVOKE ALL ON FUNCTION panel_may_read_fields(integer, integer, integer, name, text) FROM PUBLIC",
        f"GRANT EXECUTE ON FUNCTION panel_may_read_fields(integer, integer, integer, name, text) TO {panel}",
        # security_barrier: a panelist's own functions in a WHERE clause run only on the rows the view lets through.
        f"CREATE VIEW {schema}.vote WITH (security_barrier) AS SELECT {', '.join(columns)} FROM public.vote v "
        f"WHERE {chair} OR panel_may_read_vote(v.image_id, v.predicted, v.{person_id}, current_user)",
        f"""CREATE OR REPLACE FUNCTION {schema}.vote_insert() RETURNS trigger LANGUAGE plpgsql SECURITY INVOKER
SET search_path = public, pg_temp AS $$
BEGIN
    INSERT INTO public.vote ({', '.join(inserted)})
    VALUES ({', '.join('NEW.' + c for c in inserted)})
    RETURNING id, created_at INTO NEW.id, NEW.created_at;
    RETURN NEW;
END $$""",
        f"REVOKE ALL ON FUNCTION {schema}.vote_insert() FROM PUBLIC",
        f"GRANT EXECUTE ON FUNCTION {schema}.vote_insert() TO {panel}",
        f"CREATE TRIGGER vote_insert INSTEAD OF INSERT ON {schema}.vote FOR EACH ROW "
        f"EXECUTE FUNCTION {schema}.vote_insert()",
        f"GRANT SELECT, INSERT ON {schema}.vote TO {panel}",
        f"REVOKE SELECT ON public.vote FROM {panel}",
        f"GRANT SELECT ({', '.join(c if c != 'panelist_id' else person_id for c in OPEN_VOTE_COLUMNS)}) "
        f"ON public.vote TO {panel}",
        *(f"ALTER ROLE {quoted(member)} IN DATABASE {quoted(database)} SET search_path = {schema}, public"
          for member in members),
    ]
