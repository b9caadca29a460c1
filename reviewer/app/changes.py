"""Changes as records: what a user act changed, so each view refreshes only that.

In the spirit of Anki's `OpChanges`: every act of `reviewer.app` returns a
`Changes` record (the items whose votes, decision or notes changed; runs
added or finished; labels imported; the panel's membership), and what other
windows and processes did arrives through one poll, `changes_since`, which
produces the same record from a `Cursor` (the highest ids and the runs'
states a view has seen). A view keeps one cursor and asks for the changes
after it on a timer; the poll reads only rows past the cursor (primary-key
ranges), so it costs little however large the project.

The record says *what* changed, never what it now is: a view re-reads what
it shows of those items through the domain, where blind review applies, so a
change by another panelist is never shown to a viewer who may not see it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from sqlalchemy import func, select
from sqlmodel import Session

from db.tables import Decision, DiscussionNote, EvidenceSource, LabelSource, Panelist, ProjectSetting, Run, Vote
from reviewer.items import Item, item_of
from reviewer.panel.rules import RULE_KEYS
from reviewer.panel.scope import SCOPE_SETTING

T = TypeVar("T")


@dataclass(frozen=True)
class Changes:
    items: frozenset[Item] = frozenset()  # items whose votes, decision or notes changed
    votes: bool = False
    decisions: bool = False
    notes: bool = False
    runs: frozenset[int] = frozenset()  # runs added, or whose status changed (their mistakes may be new)
    labels: bool = False  # labels, published reviews or evidence imported: any item's facts may have changed
    panel: bool = False  # panelists added, or the chair changed

    def __or__(self, other: "Changes") -> "Changes":
        return Changes(items=self.items | other.items, votes=self.votes or other.votes,
                       decisions=self.decisions or other.decisions, notes=self.notes or other.notes,
                       runs=self.runs | other.runs, labels=self.labels or other.labels,
                       panel=self.panel or other.panel)

    @property
    def empty(self) -> bool:
        return self == Changes()


@dataclass(frozen=True)
class Done(Generic[T]):
    """An act's result: what it made (a row, a list of rows, a summary) and what changed."""

    value: T
    changes: Changes
    by: str | None = None  # the panelist who acted, where the act resolved a name (`app.panel.ByName`)


@dataclass(frozen=True)
class Cursor:
    """How far a view has seen: the highest row ids, and each run's status."""

    vote_id: int = 0
    decision_id: int = 0
    note_id: int = 0
    panelist_id: int = 0
    label_source_id: int = 0
    evidence_source_id: int = 0
    runs: frozenset[tuple[int, str]] = field(default_factory=frozenset)  # (run id, status)
    chairs: frozenset[int] = field(default_factory=frozenset)
    scope: str = ""  # the panel's scope as stored (reviewer.panel.scope): the chair may change it anywhere
    rules: frozenset[tuple[str, str]] = field(default_factory=frozenset)  # the chair's rules as stored, likewise


def latest_cursor(*, session: Session) -> Cursor:
    """The cursor of 'now': a view that just loaded polls from here."""
    def top(column) -> int:
        return session.execute(select(func.max(column))).scalar_one() or 0

    return Cursor(vote_id=top(Vote.id), decision_id=top(Decision.id), note_id=top(DiscussionNote.id),
                  panelist_id=top(Panelist.id), label_source_id=top(LabelSource.id),
                  evidence_source_id=top(EvidenceSource.id),
                  runs=frozenset(tuple(row) for row in session.execute(select(Run.id, Run.status)).all()),
                  chairs=frozenset(session.execute(select(Panelist.id).where(Panelist.is_chair)).scalars().all()),
                  scope=session.execute(select(ProjectSetting.value).where(
                      ProjectSetting.key == SCOPE_SETTING)).scalar_one_or_none() or "",
                  rules=frozenset(tuple(row) for row in session.execute(
                      select(ProjectSetting.key, ProjectSetting.value).where(ProjectSetting.key.in_(RULE_KEYS))).all()))


def changes_since(*, session: Session, cursor: Cursor, known_votes: frozenset[int] = frozenset()
                  ) -> tuple[Changes, Cursor]:
    """Everything done after `cursor`, by anyone (another window, another process, another
    machine), and the cursor to poll from next. Pass a read session: the rows and the
    next cursor come from one snapshot, so nothing is missed between two polls.
    `known_votes`: ids of vote rows the caller wrote and has already published (a window's
    own votes), left out so that they are not re-read a second time."""
    new_votes = [Item(image_id, predicted) for vote_id, image_id, predicted in session.execute(
        select(Vote.id, Vote.image_id, Vote.predicted).where(Vote.id > cursor.vote_id)).all()
        if vote_id not in known_votes]
    new_decisions = session.execute(select(Decision.image_id, Decision.predicted)
                                    .where(Decision.id > cursor.decision_id)).all()
    new_notes = session.execute(select(DiscussionNote.image_id, DiscussionNote.predicted)
                                .where(DiscussionNote.id > cursor.note_id)).all()
    now = latest_cursor(session=session)  # the same snapshot as the rows just read
    changed_runs = frozenset(run_id for run_id, _ in now.runs - cursor.runs)
    changes = Changes(
        items=frozenset([*new_votes, *(item_of(r) for r in [*new_decisions, *new_notes])]),
        votes=bool(new_votes), notes=bool(new_notes), runs=changed_runs,
        # (published evidence imported: the facts of any item may read differently, as with labels)
        labels=now.label_source_id != cursor.label_source_id or now.evidence_source_id != cursor.evidence_source_id,
        # (a new scope: every window's to-do and counts change, as set_panel_scope's own record says)
        # (the chair's rules changed elsewhere: every window's blind switch and others' votes follow)
        panel=now.panelist_id != cursor.panelist_id or now.chairs != cursor.chairs or now.scope != cursor.scope
        or now.rules != cursor.rules,
        decisions=bool(new_decisions) or now.scope != cursor.scope or now.rules != cursor.rules)
    return changes, now
