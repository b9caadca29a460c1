"""Discussion notes and an item's history: who voted what, when, and what changed.

Notes are append-only (a DiscussionNote row per note). The history merges
every vote row, decision row and note of an item in time order and says in
words what each act changed, so the group can retrace how a decision came
about. Seen by a panelist (`viewer_id`), it is blind like the votes table:
another's change of a field shows only once the viewer has voted that field.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlmodel import Session

from db.tables import DiscussionNote, Panelist
from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.state import decision_history, describe_decision
from reviewer.panel.votes import VoteState, panelist_names, visible_votes, vote_history, voted_fields
from reviewer.terms import Category, DecisionMethod, Severity, Verdict

NOTE_MAX_CHARS = 20_000
# What a line of text shows of a note, a vote's note or a reason (`reviewer show`, the window): the
# database holds up to 131,072 characters of a vote's note (reviewer.panel.votes.NOTE_MAX_CHARS).
SHOWN_MAX_CHARS = 2_000


def shown_text(text: str, limit: int = SHOWN_MAX_CHARS) -> str:
    """`text` as a display shows it: whole up to `limit` characters, else cut there, saying how
    many characters were left out (never the whole of a note someone made huge)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [cut: {len(text) - limit:,} more characters]"


class NoteError(UserError):
    """A discussion note that cannot be recorded."""


def check_note(text: str) -> str:
    """The note as recorded (trimmed); NoteError when it is empty or too long."""
    text = text.strip()
    if not text:
        raise NoteError("a discussion note needs some text")
    if len(text) > NOTE_MAX_CHARS:
        raise NoteError(f"a discussion note holds at most {NOTE_MAX_CHARS} characters; this one has {len(text)}")
    if "\x00" in text:  # PostgreSQL's text holds none: a traceback there, not a refusal
        raise NoteError("the note holds a NUL character (\\x00), which the database cannot store: remove it")
    return text


def add_note(*, session: Session, panelist_id: int, item: Item, text: str) -> DiscussionNote:
    """Append a panelist's discussion note on an item."""
    text = check_note(text)
    if session.get(Panelist, panelist_id) is None:
        raise NoteError(f"no panelist with id {panelist_id}")
    row = DiscussionNote(image_id=item.image_id, predicted=item.predicted, panelist_id=panelist_id, text=text)
    session.add(row)
    session.flush()
    return row


def notes(*, session: Session, item: Item) -> list[DiscussionNote]:
    """The item's discussion notes, oldest first."""
    return list(session.execute(select(DiscussionNote).where(
        DiscussionNote.image_id == item.image_id, DiscussionNote.predicted == item.predicted)
        .order_by(DiscussionNote.id)).scalars())


@dataclass(frozen=True)
class SeenNote:
    who: str
    when: datetime
    text: str
    mine: bool


@dataclass(frozen=True)
class ItemNotes:
    """An item's discussion notes as one panelist may read them (`visible_notes`)."""

    notes: tuple[SeenNote, ...] = ()
    hidden: int = 0  # others' notes held back by blind review until the viewer votes


def visible_notes(*, session: Session, viewer_id: int | None, item: Item, blind: bool = True) -> ItemNotes:
    """The item's discussion notes, oldest first, as the viewer may read them: one's own
    always; the others' under blind review (the viewer's choice or the panel's rule) once
    the others' votes show too (`votes.visible_votes`: the viewer voted on the item, or it
    is decided), since a note says what its writer thinks as plainly as a vote."""
    rows = notes(session=session, item=item)
    if not rows:
        return ItemNotes()
    names = panelist_names(session=session)
    others_shown = visible_votes(session=session, viewer_id=viewer_id, item=item, blind=blind) is not None
    shown = [SeenNote(who=names.get(n.panelist_id, f"panelist {n.panelist_id}"), when=n.created_at, text=n.text,
                      mine=n.panelist_id == viewer_id)
             for n in rows if others_shown or n.panelist_id == viewer_id]
    return ItemNotes(notes=tuple(shown), hidden=len(rows) - len(shown))


@dataclass(frozen=True)
class HistoryEntry:
    when: datetime
    who: str
    kind: str  # vote | undo | decision | override | reopened | note
    text: str


# A field of a vote and the field a viewer must have voted to see it (None: any field).
_SHOWN_WITH = {"verdict": "verdict", "problematic": "problematic", "severity": "severity",
               "category": "category", "oov_name": "category", "note": None}


# How a field reads in the history: the vocabularies' captions, not their stored values.
_VOCABULARIES = {"verdict": Verdict, "severity": Severity, "category": Category}
_FIELD_WORDS = {"oov_name": "object"}


def _caption(name: str, value) -> str:
    if value is None or value == "":
        return "none"
    try:
        return _VOCABULARIES[name](value).caption if name in _VOCABULARIES else str(value)
    except ValueError:  # a value of another version of the app: shown as stored
        return str(value)


def _describe_change(before: VoteState, after: VoteState, *, visible: frozenset[str] | None = None) -> str:
    """What changed from `before` to `after`, in words; with `visible` (the fields the
    viewer has voted), only the changes the viewer may see ("" if none)."""
    changes = []
    for name, needs in _SHOWN_WITH.items():
        if visible is not None and not (visible if needs is None else needs in visible):
            continue
        old, new = getattr(before, name), getattr(after, name)
        if old != new:
            if name == "note":
                changes.append(f"note: {new!r}" if new else "note removed")
            elif name == "problematic":
                changes.append("flagged problematic" if new else "problematic flag removed")
            else:
                word = _FIELD_WORDS.get(name, name)
                changes.append(f"{word}: {_caption(name, new)}" if old is None or old == "" else
                               f"{word}: {_caption(name, old)} → {_caption(name, new)}")
    if visible is not None:
        return ", ".join(changes)
    return ", ".join(changes) or "no change"


def item_history(*, session: Session, item: Item, viewer_id: int | None = None) -> list[HistoryEntry]:
    """Every act on an item in time order, described.

    With `viewer_id` the history is blind, as the votes table is: the
    viewer's own acts in full; another panelist's vote changes only in the
    fields the viewer has voted (their notes once the viewer has voted at
    all), and an act that changed nothing the viewer may see is left out.
    """
    names = dict(session.execute(select(Panelist.id, Panelist.name)).all())
    votes = vote_history(session=session, item=item)
    decisions = decision_history(session=session, item=item)
    note_rows = notes(session=session, item=item)
    entries: list[tuple[datetime, int, HistoryEntry]] = []
    last: dict[int, VoteState] = {}
    mine = [v for v in votes if v.panelist_id == viewer_id]
    viewer_fields = voted_fields(mine[-1] if mine else None)
    for vote in votes:
        state = VoteState.of(vote)
        blind = viewer_id is not None and vote.panelist_id != viewer_id
        text = _describe_change(last.get(vote.panelist_id, VoteState()), state,
                                visible=viewer_fields if blind else None)
        last[vote.panelist_id] = state
        if not text:
            continue  # nothing of this act the viewer may see yet
        kind = "undo" if vote.undoes is not None else "vote"
        entries.append((vote.created_at, 0, HistoryEntry(vote.created_at, names.get(vote.panelist_id, "?"),
                                                          kind, ("undo: " if kind == "undo" else "") + text)))
    for d in decisions:
        who = names.get(d.decided_by, "?")
        text = describe_decision(d, full=True)
        kind = "decision" if d.method == DecisionMethod.MAJORITY else d.method
        entries.append((d.created_at, 1, HistoryEntry(d.created_at, who, kind, text)))
    for n in note_rows:
        entries.append((n.created_at, 2, HistoryEntry(n.created_at, names.get(n.panelist_id, "?"), "note", n.text)))
    return [e for _, _, e in sorted(entries, key=lambda t: (t[0], t[1]))]


def note_counts(*, session: Session, items: list[Item] | None = None) -> dict[Item, int]:
    """{item: how many discussion notes it has} of the items with any (of `items` only,
    when given): one grouped query, what the queue marks as "has notes"."""
    from sqlalchemy import func

    query = select(DiscussionNote.image_id, DiscussionNote.predicted, func.count(DiscussionNote.id)).group_by(
        DiscussionNote.image_id, DiscussionNote.predicted)
    if items is not None:
        if not items:
            return {}
        query = query.where(DiscussionNote.image_id.in_(sorted({i.image_id for i in items})))
    counts = {Item(image_id, predicted): count for image_id, predicted, count in session.execute(query).all()}
    return counts if items is None else {i: counts[i] for i in items if i in counts}
