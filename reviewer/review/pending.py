"""What a run adds to the panel's work. When a new model is run (often on a curated
slice only), most of its mistakes are questions already answered: the same image with
the same predicted class judged in a published review (a wrong label: not novel) or
decided by the panel. Only the rest are pending (`pending_items`); `rerun_summary`
counts how a run's mistakes split.

An item is decided when it has a standing final decision (`reviewer.panel.final`), the
same rule everywhere.
"""

from __future__ import annotations

from sqlmodel import Session

from reviewer.items import Item
from reviewer.panel.final import read_final_decisions
from reviewer.runs.mistakes import StoredMistake, stored_mistakes


def pending_items(*, session: Session, run_id: int | None = None) -> list[StoredMistake]:
    """The mistakes still to review: novel (no published review judged the prediction)
    and without a final decision; one per item (image, predicted class), the first
    run that made it; by run and file name."""
    decided = set(read_final_decisions(session=session))
    seen: set[Item] = set()
    out = []
    for m in sorted(stored_mistakes(session=session, run_id=run_id), key=lambda m: (m.run_id, m.file_name)):
        if m.novel and m.item not in decided and m.item not in seen:
            seen.add(m.item)
            out.append(m)
    return out


def rerun_summary(*, session: Session, run_id: int) -> dict:
    """How a run's mistakes split: total, already a wrong label of the image
    (annotated, or judged in a published review), already decided by the panel,
    and queued for review."""
    mistakes = stored_mistakes(session=session, run_id=run_id)
    decided = set(read_final_decisions(session=session))
    novel = [m for m in mistakes if m.novel]
    queued = sum(m.item not in decided for m in novel)
    return {"mistakes": len(mistakes), "known_wrong_label": len(mistakes) - len(novel),
            "decided": len(novel) - queued, "queued": queued}
