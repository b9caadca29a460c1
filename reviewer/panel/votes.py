"""Panelists' votes: append-only, attributed, undoable, blind by default.

A vote is on an item (`reviewer.items.Item`: one image, one predicted class). Each act
appends a row holding the panelist's complete vote after the act, so the
current vote is the latest row of (panelist, item) and the history is the
rows in order. Undo appends a row restoring the state before the act it
reverses (`undoes` names that act), so undo too is history.

The rules of a vote live here and nowhere else: which values a field takes
(`check_fields`), what an act implies (`implied_changes`: rating severity
means "wrong"; another verdict clears the rating), when a vote is complete
(`VoteState.complete`), and what another panelist's vote shows to a viewer
in blind mode (`seen_vote`). Functions take the caller's session.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from datetime import datetime

from sqlalchemy import func, select, update
from sqlmodel import Session

from db.engine import VOTES_OF_PANELIST, serialise
from db.tables import Panelist, ProjectSetting, Vote
from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.state import current_votes
from reviewer.terms import Category, Severity, Verdict

UNSET = object()
VOTE_FIELDS = ("verdict", "problematic", "severity", "category", "oov_name", "note")


class VoteError(UserError):
    """A vote that cannot be recorded as asked (bad value, not one's own vote)."""


@dataclass(frozen=True)
class VoteState:
    verdict: str | None = None
    problematic: bool = False
    severity: str | None = None
    category: str | None = None
    oov_name: str | None = None
    note: str = ""

    @classmethod
    def of(cls, row: Vote | None) -> "VoteState":
        if row is None or row.retracted:
            return cls()
        return cls(**{f.name: getattr(row, f.name) for f in fields(cls)})

    @property
    def empty(self) -> bool:
        return self == VoteState()

    @property
    def complete(self) -> bool:
        """`is_complete` outside phase 2."""
        return self.is_complete()

    def is_complete(self, *, judged_wrong: bool = False) -> bool:
        """Nothing more is needed: correct or unclear, or wrong with severity and category
        (and the object's name for an out-of-vocabulary category). When the item stands
        wrong (`judged_wrong`, phase 2), whatever the panelist's verdict: the rating."""
        rated = bool(self.severity and self.category) and (
            bool(self.oov_name) or not Category(self.category).needs_name)
        if judged_wrong:
            return rated
        if self.verdict in (Verdict.CORRECT, Verdict.UNCLEAR):
            return True
        return self.verdict == Verdict.WRONG and rated

    def can_rate(self, *, judged_wrong: bool = False) -> bool:
        """Whether severity and category may be set now (`implied_changes`' rule): the vote
        says wrong or has no verdict yet (rating then implies wrong), or the item already
        stands wrong (phase 2)."""
        return judged_wrong or self.verdict in (None, Verdict.WRONG)

    def describe(self) -> str:
        """'wrong, major, fine_grained, problematic' or 'no vote'."""
        if self.empty:
            return "no vote"
        parts = [self.verdict or "no verdict", *(p for p in (self.severity, self.category) if p)]
        return ", ".join(parts + (["problematic"] if self.problematic else []))


def check_fields(*, verdict=None, severity=None, category=None, error: type[UserError] = VoteError,
                 severities=Severity.panel(), contradiction: bool = True) -> None:
    """Raise `error` naming the first bad value among a vote's or decision's fields, or
    (with `contradiction`, for one act) a contradiction among them: severity and
    category describe a prediction judged wrong. A stored vote may hold both: a
    panelist outvoted on the verdict still rates the item in phase 2."""
    for name, value, allowed in (("verdict", verdict, list(Verdict)), ("severity", severity, list(severities)),
                                 ("category", category, list(Category))):
        if value is not None and value not in allowed:
            raise error(f"{name} must be one of {', '.join(str(a) for a in allowed)}, not {value!r}")
    if contradiction and verdict not in (None, Verdict.WRONG) and (severity or category):
        raise error(f"severity and category describe a prediction judged wrong; leave them out of a "
                    f"{verdict!r} verdict")


OOV_NAME_MAX_CHARS = 255  # the column's size (db.tables.Vote.oov_name)
# A vote's note and a decision's reason: a batch cell's cap (the csv module's field limit), which is
# also what one command-line argument holds on Linux; the server checks it too (migration 0013).
NOTE_MAX_CHARS = 131_072
PANELIST_NAME_MAX_CHARS = 128  # db.tables.Panelist.name


def check_text(*, note=None, oov_name=None, error: type[UserError] = VoteError) -> None:
    """Raise `error` for text no database takes as written: a NUL character (PostgreSQL's
    text holds none), a note longer than NOTE_MAX_CHARS or an object's name longer than its
    column (the server's bounds, migration 0013)."""
    for name, value in (("the note", note), ("the object's name (oov_name)", oov_name)):
        if isinstance(value, str) and "\x00" in value:
            raise error(f"{name} holds a NUL character (\\x00), which the database cannot store: remove it")
    if isinstance(note, str) and len(note) > NOTE_MAX_CHARS:
        raise error(f"the note holds at most {NOTE_MAX_CHARS:,} characters; this one has {len(note):,} (a text "
                    "that long belongs in a file of its own)")
    if isinstance(oov_name, str) and len(oov_name) > OOV_NAME_MAX_CHARS:
        raise error(f"the object's name (oov_name) holds at most {OOV_NAME_MAX_CHARS} characters; this one has "
                    f"{len(oov_name)}")


def implied_changes(state: VoteState, *, judged_wrong: bool = False, **changes) -> dict:
    """An act on a vote completed with what it implies, given the vote as it stands:
    rating severity or category means the prediction is wrong, unless the item already
    stands wrong (`judged_wrong`: phase 2, where a panelist outvoted on the verdict
    rates too and keeps their verdict); it is refused when the vote says correct or
    unclear and the item does not stand wrong. A verdict other than wrong clears
    severity, category and the object's name; an out-of-vocabulary category needs the
    object's name."""
    changes = dict(changes)
    rating = changes.get("severity") is not None or changes.get("category") is not None
    if rating and changes.get("verdict") is None and not judged_wrong:
        if state.verdict in (Verdict.CORRECT, Verdict.UNCLEAR):
            raise VoteError("severity and category describe a wrong prediction: vote wrong first")
        changes["verdict"] = Verdict.WRONG
    verdict = changes.get("verdict")
    if verdict is not None and verdict != Verdict.WRONG:
        changes.update(severity=None, category=None, oov_name=None)
    category = changes.get("category")
    if category is not None and Category(category).needs_name and not (changes.get("oov_name") or "").strip():
        raise VoteError("an out-of-vocabulary category needs the object's name")
    return changes


def normalised(state: VoteState) -> VoteState:
    """The object's name is kept only with a category that names one (the rule every
    vote follows: as recorded here, and as the review page shows it before it is)."""
    if state.category is None or not Category(state.category).needs_name:
        return replace(state, oov_name=None)
    return state


# -- panelists -----------------------------------------------------------------------
def get_panelist(*, session: Session, name: str, chair: bool | None = None) -> Panelist:
    """The panelist of that name, created on first use; `chair` sets the chair role (the
    panel has one chair: making one the chair takes the role from any other)."""
    name = name.strip()
    if not name:
        raise VoteError("a panelist needs a name")
    if len(name) > PANELIST_NAME_MAX_CHARS or any(not ch.isprintable() for ch in name):
        raise VoteError(f"a panelist's name is at most {PANELIST_NAME_MAX_CHARS} printable characters (no newlines, "
                        f"tabs or other control characters): {name[:40]!r}{'...' if len(name) > 40 else ''}")
    row = session.execute(select(Panelist).where(Panelist.name == name)).scalar_one_or_none()
    if row is None:
        row = Panelist(name=name, is_chair=bool(chair))
        session.add(row)
    elif chair is not None and row.is_chair != chair:
        row.is_chair = chair
        session.add(row)
    session.flush()
    if chair:
        session.execute(update(Panelist).where(Panelist.is_chair, Panelist.id != row.id).values(is_chair=False))
    return row


def panelists(*, session: Session) -> list[Panelist]:
    """The panel: every panelist of the project (the chair votes too), by id, but those
    `panel-setup --revoke` took off it (their history stays; they no longer count
    among those who must vote)."""
    revoked = revoked_names(session=session)
    return [r for r in session.execute(select(Panelist).order_by(Panelist.id)).scalars() if r.name not in revoked]


def revoked_names(*, session: Session) -> frozenset[str]:
    """Names of the panelists taken off the panel (reviewer.panel.roles.REVOKED_SETTING)."""
    import json

    row = session.get(ProjectSetting, "panel_revoked")
    try:
        return frozenset(json.loads(row.value)) if row is not None and row.value else frozenset()
    except (ValueError, TypeError):
        return frozenset()


def panelist_names(*, session: Session) -> dict[int, str]:
    return dict(session.execute(select(Panelist.id, Panelist.name)).all())


# -- writing ---------------------------------------------------------------------------
def _latest_row(session: Session, panelist_id: int, item: Item) -> Vote | None:
    return session.execute(
        select(Vote).where(Vote.panelist_id == panelist_id, Vote.image_id == item.image_id,
                           Vote.predicted == item.predicted).order_by(Vote.id.desc()).limit(1)
    ).scalar_one_or_none()


def cast_vote(*, session: Session, panelist_id: int, item: Item, verdict=UNSET, problematic=UNSET,
              severity=UNSET, category=UNSET, oov_name=UNSET, note=UNSET, batch_key: str | None = None,
              queue_order: str | None = None) -> Vote:
    """Record a panelist's vote (only the given fields change); returns the new row.

    The vote is the caller's own: `panelist_id` is the panelist casting it.
    `batch_key`: a batch row's key (unique per panelist; see `recorded_batch_keys`).
    `queue_order`: the review queue's order the panelist worked in (`reviewer.review.queue_filter.QueueSort`'s
    value), recorded with this row only.
    """
    if queue_order is not None and not (isinstance(queue_order, str) and 0 < len(queue_order) <= 32):
        raise VoteError(f"a queue order is a short name such as 'informative', not {queue_order!r}")
    changes = {k: v for k, v in dict(verdict=verdict, problematic=problematic, severity=severity,
                                       category=category, oov_name=oov_name, note=note).items() if v is not UNSET}
    check_text(note=changes.get("note"), oov_name=changes.get("oov_name"))
    if session.get(Panelist, panelist_id) is None:
        raise VoteError(f"no panelist with id {panelist_id}")
    serialise(session, VOTES_OF_PANELIST, panelist_id)  # the latest row read below stays the latest
    new = normalised(replace(VoteState.of(_latest_row(session, panelist_id, item)), **changes))
    check_fields(verdict=new.verdict, severity=new.severity, category=new.category, contradiction=False)
    if ({"category", "oov_name"} & set(changes) and new.category is not None and Category(new.category).needs_name
            and not (new.oov_name or "").strip()):
        raise VoteError(f"category {new.category} (an out-of-vocabulary object) needs the object's name: give it "
                        "with --oov-name (an oov_name cell in a batch)")
    row = Vote(image_id=item.image_id, predicted=item.predicted, panelist_id=panelist_id, batch_key=batch_key,
               queue_order=queue_order, **new.__dict__)
    session.add(row)
    session.flush()
    return row


def recorded_batch_keys(*, session: Session, panelist_id: int, keys: list[str]) -> dict[str, int]:
    """{key: vote id} of the batch keys the panelist has recorded already (read after the
    panelist's write lock, so two copies of one batch sent at once record it once)."""
    serialise(session, VOTES_OF_PANELIST, panelist_id)
    found: dict[str, int] = {}
    for start in range(0, len(keys), 500):
        found.update(session.execute(select(Vote.batch_key, Vote.id).where(
            Vote.panelist_id == panelist_id, Vote.batch_key.in_(keys[start:start + 500]))).all())
    return found


def amend_vote(*, session: Session, panelist_id: int, vote_id: int, **changes) -> Vote:
    """Change the vote shown as row `vote_id` (e.g. in the meeting): a new row for
    the same item, the old one kept. Only its own panelist may change it; the chair
    overrides the panel's *decision* instead (reviewer.panel.decisions)."""
    row = session.get(Vote, vote_id)
    actor = session.get(Panelist, panelist_id)
    if row is None:
        raise VoteError(f"no vote with id {vote_id}")
    if actor is None:
        raise VoteError(f"no panelist with id {panelist_id}")
    if row.panelist_id != panelist_id:
        owner = session.get(Panelist, row.panelist_id)
        raise VoteError(f"{actor.name} cannot change {owner.name}'s vote: a panelist changes only their own "
                        "vote (the chair may override the final decision, with a reason)")
    return cast_vote(session=session, panelist_id=panelist_id, item=Item(row.image_id, row.predicted), **changes)


def _undoable(panelist_id: int):
    undone = select(Vote.undoes).where(Vote.panelist_id == panelist_id, Vote.undoes.is_not(None))
    return (Vote.panelist_id == panelist_id, Vote.undoes.is_(None), Vote.id.not_in(undone))


def undo_last(*, session: Session, panelist_id: int) -> Vote | None:
    """Reverse the panelist's latest act that is not yet undone; None if nothing to undo."""
    serialise(session, VOTES_OF_PANELIST, panelist_id)  # two undos at once undo two acts, not one twice
    act = session.execute(select(Vote).where(*_undoable(panelist_id)).order_by(Vote.id.desc()).limit(1)
                          ).scalar_one_or_none()
    if act is None:
        return None
    before = session.execute(
        select(Vote).where(Vote.panelist_id == panelist_id, Vote.image_id == act.image_id,
                           Vote.predicted == act.predicted, Vote.id < act.id)
        .order_by(Vote.id.desc()).limit(1)).scalar_one_or_none()
    state = VoteState.of(before)
    row = Vote(image_id=act.image_id, predicted=act.predicted, panelist_id=panelist_id,
               retracted=state.empty, undoes=act.id, **state.__dict__)
    session.add(row)
    session.flush()
    return row


# -- reading -----------------------------------------------------------------------------
def can_undo(*, session: Session, panelist_id: int) -> bool:
    return session.execute(select(func.count(Vote.id)).where(*_undoable(panelist_id))).scalar_one() > 0


def current_vote(*, session: Session, panelist_id: int, item: Item) -> VoteState:
    return VoteState.of(_latest_row(session, panelist_id, item))


def my_votes(*, session: Session, panelist_id: int) -> dict[Item, VoteState]:
    """The panelist's current vote on every item they have voted."""
    return {Item(v.image_id, v.predicted): VoteState.of(v)
            for v in current_votes(session=session, panelist_id=panelist_id)}


@dataclass(frozen=True)
class SeenVote:
    """Another panelist's current vote as a viewer may see it: in blind mode a
    field stays None until the viewer has voted that field themselves."""

    vote_id: int
    panelist_id: int
    verdict: str | None
    problematic: bool | None
    severity: str | None
    category: str | None
    oov_name: str | None
    note: str | None
    created_at: datetime
    hidden: frozenset[str] = frozenset()  # fields masked until the viewer votes them (blind review)
    # Every field the viewer may not see yet, whether the other voted it or not: what a view masks,
    # alike for a value and for a blank (a blank shown beside a masked value tells who voted what).
    masked: frozenset[str] = frozenset()


def voted_fields(vote: Vote | VoteState | None) -> frozenset[str]:
    """The fields a vote has a value for (problematic goes with the verdict: it is
    part of the correctness vote)."""
    if vote is None or getattr(vote, "retracted", False):
        return frozenset()
    voted = {f for f in ("verdict", "severity", "category") if getattr(vote, f) is not None}
    if vote.verdict is not None or vote.problematic:
        voted.add("problematic")
    return frozenset(voted)


def seen_vote(vote: Vote, viewer_fields: frozenset[str] | None) -> SeenVote:
    """`vote` masked for a viewer who has voted `viewer_fields` (None: not blind)."""
    def show(field: str) -> bool:
        return viewer_fields is None or field in viewer_fields

    return SeenVote(
        vote_id=vote.id, panelist_id=vote.panelist_id,
        verdict=vote.verdict if show("verdict") else None,
        problematic=vote.problematic if show("problematic") else None,
        severity=vote.severity if show("severity") else None,
        category=vote.category if show("category") else None,
        oov_name=vote.oov_name if show("category") else None,
        # A note argues for the whole vote: shown once the viewer has voted at all.
        note=vote.note if viewer_fields is None or viewer_fields else None,
        created_at=vote.created_at,
        # Hidden: a field the other voted that the viewer may not see yet (one never voted is not hidden).
        hidden=frozenset(f for f in ("verdict", "problematic", "severity", "category")
                         if not show(f) and f in voted_fields(vote)),
        masked=frozenset(f for f in ("verdict", "problematic", "severity", "category") if not show(f)))


ALL_FIELDS = frozenset(("verdict", "problematic", "severity", "category"))


def visible_votes(*, session: Session, viewer_id: int | None, item: Item, blind: bool = True
                  ) -> list[SeenVote] | None:
    """Others' current votes on an item as the viewer may see them.

    Blind (the viewer's own choice, or the panel's rule, which the viewer cannot turn
    off: reviewer.panel.rules): None (hidden) until the viewer has voted on the item;
    then each field of the others' votes shows once the viewer has voted that field
    (a verdict does not reveal the others' severity before one's own). A decided item
    shows every vote. `viewer_id` None: someone not on the panel (sees votes of
    decided items only, under the rule).
    """
    from reviewer.panel.final import read_final_decisions
    from reviewer.panel.rules import read_rules

    blind = blind or read_rules(session).blind
    votes = current_votes(session=session, item=item)
    mine = next((v for v in votes if v.panelist_id == viewer_id), None) if viewer_id is not None else None
    viewer_fields = voted_fields(mine) if blind else None
    if blind and viewer_fields != ALL_FIELDS:
        decided = read_final_decisions(session=session, items=[item]).get(item)
        if decided is not None:  # what the decision settled is no longer blind: the verdict, and the
            # ratings once they are settled too (a verdict decided does not reveal others' severity)
            viewer_fields = set(viewer_fields) | {"verdict", "problematic"} | (
                {"severity", "category"} if decided.severity or decided.category else set())
            viewer_fields = None if viewer_fields == ALL_FIELDS else frozenset(viewer_fields)
    if blind and viewer_fields is not None and not viewer_fields:
        return None
    return [seen_vote(v, viewer_fields) for v in votes if v.panelist_id != viewer_id]


def vote_history(*, session: Session, item: Item) -> list[Vote]:
    """Every row ever written on an item, oldest first (who voted what, when)."""
    return list(session.execute(select(Vote).where(Vote.image_id == item.image_id, Vote.predicted == item.predicted)
                                .order_by(Vote.id)).scalars())

