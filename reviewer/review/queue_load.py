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
from reviewer.panel.scope import SCOPE_QUEUE
from reviewer.panel.snapshot import load_snapshot
from reviewer.review.item_state import item_state
from reviewer.review.queue import ItemStates, ReviewQueue
from reviewer.review.queue_entry import QueueEntry
from reviewer.review.queue_filter import QueueFilter
from reviewer.runs.mistakes import StoredMistake, stored_mistakes


def load_queue(*, session: Session, run_id: int, panelist_id: int | None,
               queue_filter: QueueFilter | None = None) -> ReviewQueue:
    """The run's mistakes with the panelist's current verdicts and the decided items; for
    `run_id` SCOPE_QUEUE, the panel's whole scope as one list (`scope_mistakes`)."""
    snapshot = load_snapshot(session=session)
    mistakes = (scope_mistakes(session, snapshot) if run_id == SCOPE_QUEUE
                else stored_mistakes(session=session, run_id=run_id))
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


def scope_mistakes(session: Session, snapshot) -> list[StoredMistake]:
    """The panel's items (`reviewer.panel.scope`), each once, in (image, predicted) order: the
    stored mistake of the first scoped run that made it (its run id says whose top-5 is shown;
    `snapshot.facts[item].runs` names them all)."""
    first: dict[Item, StoredMistake] = {}
    for mistake in stored_mistakes(session=session, runs=snapshot.scope.runs):
        facts = snapshot.facts.get(mistake.item)
        if facts is not None and mistake.run_id == facts.runs[0]:
            first.setdefault(mistake.item, mistake)
    return [first[item] for item in sorted(first, key=lambda i: (i.image_id, i.predicted))]


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
