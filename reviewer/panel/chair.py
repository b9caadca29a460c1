"""The chair: the one check every chair-only act makes, and the one error it raises.

The chair (Panelist.is_chair, one per panel) alone locks and overrides decisions,
reopens an item, and sets the panel's rules and scope. Each of those acts asks
`require_chair` (the domain functions in decisions, phases, rules and scope, and the
app's acts when they resolve who acts by name), so a refusal reads the same
everywhere: who is not the chair, what only the chair does, and who the chair is.
The window greys those acts out for anyone else; the command line is told which
name to pass. On PostgreSQL with panel roles the server refuses them as well
(reviewer.panel.roles).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlmodel import Session

from db.tables import Panelist
from reviewer.errors import UserError

# What only the chair does, as a refusal says it ("only the chair ...").
LOCKS = "locks or overrides decisions"
REOPENS = "reopens an item (it is reopened with a reason, kept in the item's history)"
SETS_RULES = "sets the panel's rules"
SETS_SCOPE = "sets the panel's scope"


class NotTheChair(UserError):
    """A chair-only act by someone who is not the panel's chair."""


def panel_chair(session: Session) -> Panelist | None:
    """The panel's chair, or None while the panel has none."""
    return session.execute(select(Panelist).where(Panelist.is_chair).order_by(Panelist.id)).scalars().first()


def _who_acts(session: Session, flag: str | None) -> str:
    """How the chair acts instead: the option naming them, or the chair's database role."""
    from reviewer.panel.identity import uses_database_roles

    chair = panel_chair(session)
    if chair is None:
        return ("; this panel has no chair yet: name one with 'reviewer panelist PROJECT NAME --chair' (on a panel "
                "of database roles the owner's 'reviewer panel-setup PROJECT --chair NAME')")
    if uses_database_roles(session):
        return f"; the panel's chair is {chair.name}: connect as that role (PGUSER={chair.name})"
    if flag:
        return f"; pass {flag} {chair.name} (the panel's chair)"
    return f" (the panel's chair is {chair.name})"


def require_chair(session: Session, panelist_id: int, act: str, *, flag: str | None = None) -> Panelist:
    """The chair's row when `panelist_id` is the chair; else NotTheChair saying that only
    the chair does `act` (one of the constants above) and who the chair is. `flag`: the
    command line's option naming who acts ("--chair"), named in the refusal."""
    row = session.get(Panelist, panelist_id)
    if row is not None and row.is_chair:
        return row
    who = f"{row.name} is not the chair" if row is not None else f"no panelist has id {panelist_id}"
    raise NotTheChair(f"{who}: only the chair {act}{_who_acts(session, flag)}")


def not_on_panel(session: Session, *, name: str, act: str, flag: str | None, login: bool) -> NotTheChair:
    """The refusal of a chair-only act under a name that is not on the panel (`login`: the
    name was not given, so it is the OS login name): it says to pass the chair's name, not
    to add that name as a panelist."""
    known = session.execute(select(Panelist.name).order_by(Panelist.id)).scalars().all()
    named = f"your login name {name!r}" if login else repr(name)
    listed = ", ".join(known) or "none yet"
    return NotTheChair(f"only the chair {act}, and {named} is not on this panel (panelists: {listed})"
                       f"{_who_acts(session, flag)}")
