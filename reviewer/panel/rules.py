"""The panel's rules: project settings the chair sets, and everyone's views obey.

- `blind` (default on: a panel starts blind, as the README promises; the chair may
  turn it off): no view and no command shows another panelist's vote on an item
  before one has voted on it oneself, or before the item is decided
  (`may_see_others`). A project with no `blind` row stored (every project made
  before the default changed, and every new one until the chair sets it) is blind:
  only a stored "off" turns it off. Off, each panelist's own "blind" preference
  decides for them; it can hide more, never show more. On PostgreSQL with
  panelist roles the server enforces it as well, with the same default
  (db.panel_policies: a row-level security policy on vote).
- `unanimous_final` (default on, the paper's rule, Vasudevan et al. 2022 §3.1): a
  unanimous panel decides an item without a meeting (reviewer.panel.final). Off,
  the chair locks unanimous items too.
- `panel_closed` (default off): nobody joins the panel by opening the project under
  a new name; the chair adds panelists (reviewer.panel.membership).

Only the chair changes them (reviewer.panel.chair; on PostgreSQL, only the chair's role may write these
rows of project_setting).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from sqlmodel import Session

from db.tables import ProjectSetting
from reviewer.errors import UserError
from reviewer.panel.chair import SETS_RULES, require_chair

BLIND = "blind"
UNANIMOUS_FINAL = "unanimous_final"
PANEL_CLOSED = "panel_closed"
RULE_KEYS = (BLIND, UNANIMOUS_FINAL, PANEL_CLOSED)
ON, OFF = "on", "off"


class RulesError(UserError):
    """A rule change refused: an unknown rule (not the chair: reviewer.panel.chair.NotTheChair)."""


@dataclass(frozen=True)
class PanelRules:
    blind: bool = True
    unanimous_final: bool = True
    panel_closed: bool = False

    def describe(self) -> str:
        return "; ".join([
            "blind review: " + ("on, for every panelist (others' votes show once you voted, or once decided)"
                                if self.blind else "each panelist's own choice"),
            "a unanimous panel decides: " + ("yes (the paper's rule)" if self.unanimous_final
                                             else "no, the chair locks every item"),
            "joining: " + ("closed, the chair adds panelists" if self.panel_closed
                           else "open, a new name asks before joining"),
        ])


def _flag(session: Session, key: str, default: bool) -> bool:
    row = session.get(ProjectSetting, key)
    return default if row is None else row.value == ON


def read_rules(session: Session) -> PanelRules:
    defaults = PanelRules()
    return PanelRules(**{f.name: _flag(session, f.name, getattr(defaults, f.name)) for f in fields(PanelRules)})


def set_rules(session: Session, *, chair_id: int, **changes: bool) -> PanelRules:
    """The chair sets rules (`blind=True`, ...); returns the rules now in force."""
    require_chair(session, chair_id, SETS_RULES)
    for key, value in changes.items():
        if key not in RULE_KEYS:
            raise RulesError(f"no panel rule {key!r}: the rules are {', '.join(RULE_KEYS)}")
        row = session.get(ProjectSetting, key) or ProjectSetting(key=key)
        row.value = ON if value else OFF
        session.add(row)
    session.flush()
    return read_rules(session)


def may_see_others(rules: PanelRules, *, viewer_voted: bool, decided: bool, own_blind: bool = False) -> bool:
    """Whether a viewer may see the others' votes on an item (module docstring): once
    the viewer has voted on it, or once it is decided; under a rule-less panel, unless
    the viewer's own preference hides them until the same moment."""
    if viewer_voted or decided:
        return True
    return not (rules.blind or own_blind)
