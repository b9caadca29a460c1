"""The review queue read from the database, for one panelist.

- `load_queue`: a run's mistakes as one panelist works through them, loaded
  once per (run, panelist) with three queries (the run's mistakes, the
  panelist's current verdicts, the decided items), with what the imported
  evidence sources say of each and the panel's progress.
- `load_item_states`: the same state of a few items only, which a window
  re-reads when a change record names them.
"""

from __future__ import annotations

from sqlmodel import Session

from reviewer.evidence import PairEvidence, evidence_by_pair
from reviewer.items import Item
from reviewer.panel.discussion import note_counts
from reviewer.panel.phases import count_progress, empty_progress, item_progress
from reviewer.panel.rules import read_rules
from reviewer.panel.snapshot import load_snapshot
from reviewer.review.item_state import item_state
from reviewer.review.queue import ItemStates, ReviewQueue
from reviewer.review.queue_entry import QueueEntry
from reviewer.review.queue_filter import QueueFilter
from reviewer.runs.mistakes import stored_mistakes


def load_queue(*, session: Session, run_id: int, panelist_id: int | None,
               queue_filter: QueueFilter | None = None) -> ReviewQueue:
    """The run's mistakes with the panelist's current verdicts and the decided items."""
    mistakes = stored_mistakes(session=session, run_id=run_id)
    snapshot = load_snapshot(session=session)
    states = _states(session, snapshot, [m.item for m in mistakes], panelist_id, notes=note_counts(session=session))
    evidence = evidence_by_pair(session, [(m.file_name, m.predicted) for m in mistakes])
    none = PairEvidence()
    entries = [QueueEntry(**vars(m), state=states.items[m.item],
                          **_evidence_counts(evidence.get((m.file_name, m.predicted), none))) for m in mistakes]
    parts = states.parts
    progress = empty_progress(snapshot)
    for part in parts.values():
        count_progress(progress, part)
    return ReviewQueue(run_id=run_id, panelist_id=panelist_id, entries=entries,
                       filter=queue_filter or QueueFilter(), progress=progress, _parts=parts)


def _evidence_counts(said: PairEvidence) -> dict[str, int]:
    return dict(sources_accepting=len(said.accepted_by), sources_rejecting=len(said.rejected_by),
                sources_covering=len(said.covered_by), consensus=said.consensus)


def load_item_states(*, session: Session, panelist_id: int | None, items: list[Item]) -> ItemStates:
    """What `load_queue` says of these items only: a window re-reads the items a change
    record names in milliseconds, not the whole queue."""
    snapshot = load_snapshot(session=session, items=items)
    known = [i for i in items if i in snapshot.facts]
    return _states(session, snapshot, known, panelist_id, notes=note_counts(session=session, items=known))


def _states(session: Session, snapshot, items: list[Item], panelist_id: int | None, *,
            notes: dict[Item, int]) -> ItemStates:
    # A dispute is known once everyone voted, the viewer too; a viewer off a blind panel sees none.
    show_disputes = panelist_id in snapshot.panelist_ids or not read_rules(session).blind
    return ItemStates(
        {item: item_state(snapshot, item, panelist_id, notes=notes.get(item, 0), show_disputes=show_disputes)
         for item in items},
        {item: item_progress(snapshot, item) for item in items}, snapshot.panelist_ids)
