"""The panel's scope for any front end (`reviewer panel-scope`, the window): which runs'
mistakes the panel reviews (`reviewer.panel.scope`), and what a change of it adds.

Adding a run to the scope adds only the items no scoped run made yet: an item several
models got wrong is one item, reviewed once. `set_panel_scope` says how many items came
in and went out, so a chair adding a twentieth model sees what it costs the panel.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from db.tables import Model, Run
from reviewer.app._named import PanelistRef, resolve_chair
from reviewer.app.changes import Changes, Done
from reviewer.errors import UserError
from reviewer.panel.chair import SETS_SCOPE
from reviewer.panel.scope import PanelScope, read_scope, scoped_items, set_scope
from reviewer.project import Project


@dataclass(frozen=True)
class ScopedRun:
    run_id: int
    model: str
    status: str
    mistakes: int  # stored mistakes of the run (on the scope's slice, if it has one)
    only_here: int  # of those, items no other scoped run makes (what the run adds to the panel's work)
    in_scope: bool


@dataclass(frozen=True)
class ScopeView:
    scope: PanelScope
    items: int  # distinct items in scope: each reviewed once however many runs made it
    runs: list[ScopedRun]

    def describe(self) -> str:
        return self.scope.describe({r.run_id: r.model for r in self.runs})


@dataclass(frozen=True)
class ScopeChange:
    before: ScopeView
    after: ScopeView
    added: int  # items in the scope now that were not before
    removed: int  # items in it before that are not now (their votes and decisions are kept)

    def lines(self) -> list[str]:
        after = self.after
        out = [f"the panel reviews {after.describe()}: {after.items:,} item{'s' if after.items != 1 else ''} "
               "(a mistake several of these runs made is one item)"]
        if self.added or self.removed:
            out.append(f"  +{self.added:,} item{'s' if self.added != 1 else ''} added to the panel's work"
                       + (f", -{self.removed:,} left out (their votes and decisions are kept, and count again "
                          "if the scope takes them back)" if self.removed else ""))
        else:
            out.append("  no item added or left out")
        return out


def _view(session) -> ScopeView:
    scope = read_scope(session)
    names = dict(session.execute(select(Run.id, Model.name).join(Model, Model.id == Run.model_id)).all())
    statuses = dict(session.execute(select(Run.id, Run.status)).all())
    per_run: dict[int, set[tuple[int, int]]] = {}
    for run_id in names:
        per_run[run_id] = scoped_items(session, PanelScope((run_id,), scope.image_slice))
    in_scope = scoped_items(session, scope)
    runs = []
    for run_id in sorted(names):
        chosen = scope.runs is None or run_id in scope.runs
        others = set().union(*(items for r, items in per_run.items()
                               if r != run_id and (scope.runs is None or r in scope.runs)))
        runs.append(ScopedRun(run_id, names[run_id], str(statuses[run_id]), len(per_run[run_id]),
                              len(per_run[run_id] - others), chosen))
    return ScopeView(scope, len(in_scope), runs)


def panel_scope(project: Project) -> ScopeView:
    """The scope in force, its items, and each run's mistakes and what it adds."""
    with project.read() as session:
        return _view(session)


def set_panel_scope(project: Project, *, chair_id: PanelistRef, runs: list[int] | None = None,
                    add: list[int] = (), remove: list[int] = (), image_slice: str | None = None,
                    keep_slice: bool = True, every_run: bool = False) -> Done[ScopeChange]:
    """The chair sets the scope: `runs` (the whole list), or `add`/`remove` runs to/from the
    scope in force, or `every_run`; `image_slice` limits it to a slice (`keep_slice` False
    with no slice: every image). One unit of work; says what it added and left out."""
    def work(session):
        chair, name = resolve_chair(session, chair_id, SETS_SCOPE)
        before = _view(session)
        current = before.scope
        if every_run:
            chosen = None
        elif runs is not None:
            chosen = list(runs)
        elif add or remove:
            base = [r.run_id for r in before.runs if r.in_scope] if current.runs is None else list(current.runs)
            missing = [r for r in remove if r not in base]
            if missing:
                raise UserError(f"run #{missing[0]} is not in the panel's scope ({before.describe()})")
            chosen = sorted((set(base) | set(add)) - set(remove))
        else:
            chosen = None if current.runs is None else list(current.runs)
        new_slice = image_slice if image_slice is not None else (current.image_slice if keep_slice else None)
        before_items = scoped_items(session, current)
        set_scope(session, chair_id=chair, runs=chosen, image_slice=new_slice)
        after = _view(session)
        after_items = scoped_items(session, after.scope)
        return ScopeChange(before, after, len(after_items - before_items), len(before_items - after_items)), name

    change, name = project.write(work)
    touched = frozenset(r.run_id for r in change.after.runs)
    return Done(change, Changes(panel=True, decisions=True, runs=touched), by=name)



def item_standing(project: Project, item):
    """(where the item stands for the panel, the runs that make it a mistake now): under review,
    outside the scope, no longer a mistake under the current labels (`reviewer.panel.lookup`)."""
    from reviewer.panel.lookup import item_standing as standing

    with project.read() as session:
        return standing(session=session, item=item)
