"""Who is on the panel, and how one joins it: explicitly, never by a typo.

Opening a project under a name in the window used to add that name to the panel
silently: a new name ("carol") made unanimous items undecided (one more panelist to
vote), a typo ("Bob" for "bob") did the same. The rule now (`enter_panel`):

- a panelist of that name: that panelist;
- an empty panel: the first name founds it (whoever made the project);
- another name: NotOnPanel, with `can_join` when the panel is open (the window asks
  "carol is not on this panel: join as a new panelist?" and joins on yes) and a
  near-miss named ("did you mean bob?"); when the chair closed the panel
  (reviewer.panel.rules, panel_closed) it says how the chair adds panelists;
- on a panel of database roles (PostgreSQL after panel-setup) the connection's role,
  whatever the name (the roles are the authority: reviewer.panel.identity).
"""

from __future__ import annotations

from sqlmodel import Session

from db.tables import Panelist
from reviewer.panel.identity import IdentityError, acting_panelist, uses_database_roles
from reviewer.panel.rules import read_rules
from reviewer.panel.votes import get_panelist, panelists


class NotOnPanel(IdentityError):
    """The name is not a panelist's. `can_join`: the panel is open, the name may join."""

    def __init__(self, message: str, *, name: str, can_join: bool):
        super().__init__(message)
        self.name, self.can_join = name, can_join


def member_named(*, session: Session, name: str) -> Panelist | None:
    """The panelist of that name on a panel of names (None: not one, or a panel of database
    roles): who `enter_panel` lets in without writing anything, so a read session may ask."""
    if uses_database_roles(session):
        return None
    name = name.strip()
    return next((member for member in panelists(session=session) if member.name == name), None)


def enter_panel(*, session: Session, name: str, join: bool = False) -> Panelist:
    """The panelist `name` acts as (module docstring); `join` adds a new name to an open panel."""
    if uses_database_roles(session):
        return acting_panelist(session=session, name=None)
    member = member_named(session=session, name=name)
    if member is not None:
        return member
    name = name.strip()
    members = panelists(session=session)
    if not members:
        return get_panelist(session=session, name=name)  # the first panelist founds the panel
    listed = ", ".join(m.name for m in members)
    near = [m.name for m in members if m.name.casefold() == name.casefold()]
    hint = f" (did you mean {near[0]}?)" if near else ""
    if read_rules(session).panel_closed:
        raise NotOnPanel(f"{name} is not on this panel{hint}, and the chair has closed it: the chair adds a "
                         f"panelist with 'reviewer panelist PROJECT {name}' (panelists: {listed})",
                         name=name, can_join=False)
    if not join:
        from reviewer.panel.final import final_decisions
        from reviewer.panel.snapshot import load_snapshot
        from reviewer.terms import DecisionMethod

        unanimous = sum(d.method == DecisionMethod.UNANIMOUS for d in final_decisions(load_snapshot(session=session))
                        .values())
        cost = (f" A new panelist must vote too: the {unanimous} item{'s' if unanimous != 1 else ''} the panel "
                f"decided unanimously become{'s' if unanimous == 1 else ''} undecided until you vote "
                f"{'them' if unanimous != 1 else 'it'}." if unanimous else "")
        raise NotOnPanel(f"{name} is not on this panel{hint} (panelists: {listed}): join as a new panelist?{cost}",
                         name=name, can_join=True)
    return get_panelist(session=session, name=name)
