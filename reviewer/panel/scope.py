"""The panel's scope: which runs' mistakes the panel reviews, the chair's choice.

A project may hold many runs (twenty models compared on 50,000 images), but the
panel reviews what the chair puts before it, as the paper's panel reviewed the
mistakes of two models (Vasudevan et al. 2022, §3): all of one run, several runs,
or the part of them on a slice of images. An item (one image, one predicted
class) is one item however many scoped runs made that mistake: it is reviewed
once, and its facts list the runs that made it (`reviewer.panel.snapshot`).

Every count and list of the panel reads the scope through the snapshot: the to-do
counts, the progress strip, `panel-status`, the meeting, the agreement, the
final decisions and the export. Votes, notes and decisions on items outside the
scope are kept (the history is append-only) and count again once the chair
widens the scope to take them in. Without a choice the scope is every run.

The scope is the project setting `panel_scope` (JSON: {"runs": [ids] or null,
"slice": name or null}); only the chair sets it (`set_scope`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import select
from sqlmodel import Session

from db.tables import ImageSlice, Mistake, ProjectSetting, Run
from reviewer.errors import UserError
from reviewer.panel.chair import SETS_SCOPE, require_chair

SCOPE_SETTING = "panel_scope"
# The run id that names the queue of the whole scope (each item once; reviewer.review.queue_load):
# no run has it, ids start at 1.
SCOPE_QUEUE = 0


class ScopeError(UserError):
    """A scope the chair cannot set as asked: an unknown run or slice (not the chair:
    reviewer.panel.chair.NotTheChair)."""


@dataclass(frozen=True)
class PanelScope:
    runs: tuple[int, ...] | None = None  # None: every run of the project
    image_slice: str | None = None  # only the mistakes on this slice's images

    @property
    def everything(self) -> bool:
        return self.runs is None and self.image_slice is None

    def describe(self, models: dict[int, str] | None = None) -> str:
        """'runs #3 (resnet50), #5 (vit_b_16) on slice imagenet_m' or 'every run'."""
        models = models or {}
        if self.runs is None:
            runs = "every run"
        elif not self.runs:
            runs = "no run"
        else:
            named = [f"#{r} ({models[r]})" if r in models else f"#{r}" for r in self.runs]
            runs = ("run " if len(named) == 1 else "runs ") + ", ".join(named)
        return runs + (f" on slice {self.image_slice}" if self.image_slice else "")

    def to_json(self) -> str:
        return json.dumps({"runs": None if self.runs is None else list(self.runs), "slice": self.image_slice})

    @classmethod
    def from_json(cls, text: str | None) -> "PanelScope":
        """The stored setting; an unreadable one (edited by hand) is every run, as without a choice."""
        try:
            data = json.loads(text or "{}")
            runs = data.get("runs")
            runs = None if runs is None else tuple(sorted({int(r) for r in runs}))
            image_slice = data.get("slice")
            return cls(runs, str(image_slice) if image_slice else None)
        except (ValueError, TypeError, AttributeError):
            return cls()


def read_scope(session: Session) -> PanelScope:
    row = session.get(ProjectSetting, SCOPE_SETTING)
    return PanelScope.from_json(row.value) if row is not None else PanelScope()


@dataclass(frozen=True)
class ScopeMembership:
    """Which stored mistakes a scope takes in: ask `covers(run_id, image_id)`."""

    scope: PanelScope
    slice_images: frozenset[int] | None

    def covers(self, run_id: int, image_id: int) -> bool:
        return ((self.scope.runs is None or run_id in self.scope.runs)
                and (self.slice_images is None or image_id in self.slice_images))


def scope_membership(session: Session, scope: PanelScope | None = None) -> ScopeMembership:
    scope = read_scope(session) if scope is None else scope
    images = None
    if scope.image_slice is not None:
        images = frozenset(session.execute(select(ImageSlice.image_id).where(
            ImageSlice.name == scope.image_slice)).scalars())
    return ScopeMembership(scope, images)


def scoped_items(session: Session, scope: PanelScope) -> set[tuple[int, int]]:
    """(image id, predicted) of every stored mistake the scope takes in."""
    member = scope_membership(session, scope)
    query = select(Mistake.run_id, Mistake.image_id, Mistake.predicted)
    if scope.runs is not None:
        query = query.where(Mistake.run_id.in_(scope.runs or (-1,)))
    return {(i, p) for r, i, p in session.execute(query) if member.covers(r, i)}


def set_scope(session: Session, *, chair_id: int, runs: list[int] | None, image_slice: str | None) -> PanelScope:
    """The chair sets the scope (runs None: every run; `image_slice` None: every image).
    Each run must be a complete run of the project (its mistakes are stored), the slice
    one of the project's slices."""
    require_chair(session, chair_id, SETS_SCOPE)
    if runs is not None:
        known = dict(session.execute(select(Run.id, Run.status)).all())
        for run_id in runs:
            if run_id not in known:
                listed = ", ".join(f"#{r}" for r in sorted(known)) or "none yet"
                raise ScopeError(f"run #{run_id} is not a run of this project (runs: {listed}; "
                                 "'reviewer leaderboard PROJECT' lists them)")
            if known[run_id] != "complete":
                raise ScopeError(f"run #{run_id} is {known[run_id]}, not complete: its mistakes are found when "
                                 "it ends (resume it with 'reviewer predict'), then put it in the scope")
    if image_slice is not None:
        names = set(session.execute(select(ImageSlice.name).distinct()).scalars())
        if image_slice not in names:
            listed = ", ".join(sorted(names)) or "none yet"
            raise ScopeError(f"no slice named {image_slice!r} in this project (slices: {listed})")
    scope = PanelScope(None if runs is None else tuple(sorted(set(runs))), image_slice)
    session.merge(ProjectSetting(key=SCOPE_SETTING, value=scope.to_json()))
    session.flush()
    return scope
