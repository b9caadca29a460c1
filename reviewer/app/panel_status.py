"""Where the panel stands, for any front end (`reviewer panel-status`): who is on the
panel, each phase's progress per panelist (`reviewer.panel.phases.progress`) and, when
asked, every item's state in each phase it is in, all from one read snapshot.

The review page's progress strip counts the same `progress` over one run's mistakes,
kept up to date item by item by the queue (`reviewer.review`); this is the whole
project's, read afresh.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from reviewer.terms import Phase

if TYPE_CHECKING:
    from reviewer.panel.phases import PhaseProgress, PhaseStatus
    from reviewer.panel.snapshot import Panelist
    from reviewer.project import Project


@dataclass(frozen=True)
class ItemStatus:
    """One item's state in one phase (the fields in the order `--items --json` writes them)."""

    image: str | None  # the image's file name
    predicted: int
    phase: Phase
    state: PhaseStatus


@dataclass(frozen=True)
class PanelStatus:
    panelists: list[Panelist]  # the panel, the revoked left out
    phases: list[PhaseProgress]  # phase 1 then phase 2: items per state, and per panelist
    items: list[ItemStatus]  # empty unless asked for: phase 1's items, then phase 2's, in (image, predicted) order


def panel_status(project: Project, *, items: bool = False) -> PanelStatus:
    """The panel's progress per phase and per panelist; with `items`, also every item's
    state in each phase (its image named)."""
    from reviewer.panel.lookup import image_names
    from reviewer.panel.phases import phase_items, progress, status
    from reviewer.panel.snapshot import load_snapshot

    with project.read() as session:
        snapshot = load_snapshot(session=session)
        names = image_names(session=session, image_ids=[i.image_id for i in snapshot.items]) if items else {}
    rows = [ItemStatus(names.get(item.image_id), item.predicted, phase, status(snapshot, item, phase))
            for phase in Phase for item in phase_items(snapshot, phase)] if items else []
    return PanelStatus(panelists=snapshot.panelists, phases=progress(snapshot), items=rows)
