"""Whether a vote on the shown item counts: the review page asks the domain where the item
stands (`reviewer.app.scope.item_standing`: under review, a mistake only of runs outside the
panel's scope, no longer a mistake under the current labels) where it may not be under
review, and closes the vote panel with the reason instead of recording votes that count
nowhere.

It asks only where the answer may be no, so the common path (a run of the scope, a queue
read since the labels and the scope last changed) costs nothing per key:

- the queue is a run outside the scope, or a run of a scope limited to a slice;
- a change record named the labels, the panel (the scope) or the runs since the queue was
  read: until the queue is read again it may hold an item that no longer counts.

Answers are kept per item until the scope or the labels change; each is one small read on
this object's own thread.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from reviewer.items import Item
from reviewer.panel.lookup import NO_LONGER_A_MISTAKE, ItemStanding
from reviewer.panel.scope import SCOPE_QUEUE
from reviewer.ui.workers import Worker


def standing_reason(standing: ItemStanding, runs: tuple[int, ...], view) -> tuple[str, str]:
    """(why votes on an item that stands so would count nowhere, a tooltip saying more);
    ("", "") when they count. Short: it stands in place of the vote buttons' first row."""
    if standing == ItemStanding.IN_SCOPE:
        return "", ""
    if standing == ItemStanding.NO_LONGER_A_MISTAKE:
        return (f"This item is {NO_LONGER_A_MISTAKE}: nothing more is asked of the panel.",
                "Its votes, notes and decisions are kept (the history is append-only), and count nowhere: the labels "
                "imported since accept the prediction, or took the image out of the review. 'reviewer show "
                "PROJECT --image FILE --predicted CLASS' gives its history.")
    if standing == ItemStanding.OUTSIDE_SCOPE:
        made = ", ".join(f"#{r}" for r in runs)
        scope = f"The panel reviews {view.describe()}. " if view is not None else ""
        return (f"Only runs outside the panel's scope make this mistake ({made}): votes on it count once the chair "
                f"adds one.", f"{scope}The chair adds a run with 'reviewer panel-scope PROJECT --add {runs[0]}'; "
                "the votes, notes and decisions already on the item are kept." if runs else scope)
    return ("This item is no longer a mistake of any run: nothing to vote on.",
            "The run's mistakes were stored again since the queue was read; it is read again.")


def outside_run_reason(run_id: int) -> tuple[str, str]:
    """What the vote panel says while an item of a run outside the scope is being looked up."""
    return (f"Run #{run_id} is outside the panel's scope: its mistakes count once the chair adds it.",
            "Whether another run of the scope makes this mistake too is being read.")


class StandingCheck(QObject):
    """Where the review page's items stand, asked off the UI thread where they may not count."""

    known = Signal(object, object)  # item, (the reason votes on it count nowhere, a tooltip); ("", ""): they count

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.worker = Worker(threads=1, name="standing", parent=self)
        self.project = None
        self.run_id: int | None = None
        self.view = None  # reviewer.app.scope.ScopeView, once the window has read it
        self.doubt = False  # a change since the queue was read may have taken items out
        self._reasons: dict[Item, tuple[str, str]] = {}
        self._asked: set[Item] = set()
        self._generation = 0  # answers to questions asked before a change are dropped

    def set_project(self, project) -> None:
        self.project, self.run_id, self.view, self.doubt = project, None, None, False
        self._forget()

    def queue_read(self, run_id: int | None) -> None:
        """The queue of `run_id` was (re)read: it holds what counts as of now."""
        if run_id != self.run_id:
            self._forget()
        self.run_id, self.doubt = run_id, False

    def set_scope(self, view) -> None:
        if view != self.view:
            self.view = view
            self._forget()

    def changed(self, changes) -> None:
        """A change record: labels, the panel or the runs may have taken items out."""
        if changes.labels or changes.panel or changes.runs:
            self.doubt = True
            self._forget()

    def outside_run(self) -> bool:
        """The queue is a run the scope does not take in."""
        if self.view is None or self.run_id in (None, SCOPE_QUEUE):
            return False
        run = next((r for r in self.view.runs if r.run_id == self.run_id), None)
        return run is not None and not run.in_scope

    def needed(self) -> bool:
        if self.doubt or self.outside_run():
            return True
        return (self.view is not None and self.view.scope.image_slice is not None
                and self.run_id not in (None, SCOPE_QUEUE))

    def reason(self, item: Item) -> tuple[str, str] | None:
        """Why votes on `item` count nowhere, and a tooltip: ("", "") when they count, None
        while it is being asked (`known` follows)."""
        if not self.needed():
            return "", ""
        if item in self._reasons:
            return self._reasons[item]
        if item not in self._asked and self.project is not None:
            from reviewer.app.scope import item_standing

            self._asked.add(item)
            generation, view = self._generation, self.view
            self.worker.submit(item_standing, self.project, item,
                               on_done=lambda found, i=item, g=generation, v=view: self._answered(i, g, v, found),
                               on_error=lambda _e, i=item: self._asked.discard(i))
        return None

    def _answered(self, item: Item, generation: int, view, found) -> None:
        if generation != self._generation:
            return
        standing, runs = found
        self._asked.discard(item)
        self._reasons[item] = standing_reason(standing, runs, view)
        self.known.emit(item, self._reasons[item])

    def _forget(self) -> None:
        self._generation += 1
        self._reasons.clear()
        self._asked.clear()

    def shutdown(self) -> None:
        self.worker.shutdown()
