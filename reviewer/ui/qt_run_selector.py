"""The toolbar's run selector: the panel's scope as one list, then every run of the project.

Twenty models compared on one project make twenty entries; each stays one short line
that tells them apart: the run's id, its model (cut in the middle where it is long, so
"vit_large_patch14_clip_336.openai_ft_in12k_in1k" keeps both ends), how many mistakes it
has and whether the panel's scope takes it in. Its tooltip says all of it in full. The
first entry, "Panel's scope: N items (runs #1, #3)", opens the queue of the whole scope
(run id `reviewer.panel.scope.SCOPE_QUEUE`): each item once, however many scoped runs
made it.

The entries come from `reviewer.app.runs.run_list` (id, model, status, images) and,
once read, `reviewer.app.scope.panel_scope` (each run's mistakes and whether the scope
takes it in): until then a run reads as its images, as before. Like the rest of the
toolbar it is built before the first paint, which loads no database module: the domain's
scope module is imported when the runs are first set (a project has opened by then).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QComboBox, QWidget

from reviewer.terms import RunStatus
from reviewer.ui.plain import plain_tip

# A model's name beyond this many pixels is cut in the middle: the entries of twenty runs stay
# one readable column, and the toolbar keeps its room.
MODEL_WIDTH = 230
# Every run in view when the list opens (up to this many; beyond, it scrolls).
VISIBLE_ENTRIES = 24


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def scope_runs_words(view) -> str:
    """'runs #1, #3', 'run #2', 'every run', '12 runs', with ' on slice S' when it has one."""
    scope = view.scope
    if scope.runs is None:
        words = "every run"
    elif not scope.runs:
        words = "no run"
    elif len(scope.runs) > 6:
        words = f"{len(scope.runs)} runs"
    else:
        words = ("run " if len(scope.runs) == 1 else "runs ") + ", ".join(f"#{r}" for r in scope.runs)
    return words + (f" on slice {scope.image_slice}" if scope.image_slice else "")


class QtRunSelector(QComboBox):
    """The scope's queue and the project's runs; `run_chosen(run id)` when the panelist picks one."""

    run_chosen = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.setMinimumWidth(260)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the review page
        self.activated.connect(lambda index: self.run_chosen.emit(self.itemData(index)))
        self.runs: list[tuple[int, str, str, int]] = []
        self.view_of_scope = None  # reviewer.app.scope.ScopeView, once read

    def set_runs(self, runs: list[tuple[int, str, str, int]], scope_view=None) -> None:
        """The entries for these runs (`run_list`, newest first) and the scope as read
        (None: not read yet); the chosen entry stays chosen."""
        current = self.currentData()
        self.runs, self.view_of_scope = list(runs), scope_view
        self.blockSignals(True)
        self.clear()
        if any(status == RunStatus.COMPLETE for _, _, status, _ in self.runs):
            self._add(*self._scope_entry())
            self.insertSeparator(self.count())
        scoped = {r.run_id: r for r in scope_view.runs} if scope_view is not None else {}
        for run in self.runs:
            self._add(*self._run_entry(run, scoped.get(run[0])))
        self.setMaxVisibleItems(min(max(self.count(), 10), VISIBLE_ENTRIES))
        if current is not None:
            self.select(current)
        self.blockSignals(False)

    def select(self, run_id: int | None) -> None:
        """Show `run_id`'s entry as the chosen one (none, for a run not listed)."""
        self.setCurrentIndex(self.findData(run_id) if run_id is not None else -1)

    def has_run(self, run_id: int) -> bool:
        return self.findData(run_id) >= 0

    def model_name(self, run_id: int) -> str:
        return next((model for r, model, _, _ in self.runs if r == run_id), "")

    def _add(self, text: str, run_id: int, tip: str) -> None:
        self.addItem(text, run_id)
        self.setItemData(self.count() - 1, plain_tip(tip), Qt.ItemDataRole.ToolTipRole)

    def _scope_entry(self) -> tuple[str, int, str]:
        from reviewer.panel.scope import SCOPE_QUEUE

        view = self.view_of_scope
        about = ("Every item of the panel's scope in one list, each once however many of the scope's runs made "
                 "it; its top-5 is the first of those runs'. The progress strip counts the scope.")
        if view is None:
            return "Panel's scope: every item once", SCOPE_QUEUE, about
        return (f"Panel's scope: {plural(view.items, 'item')} ({scope_runs_words(view)})", SCOPE_QUEUE,
                f"The panel reviews {view.describe()}: {plural(view.items, 'item')}.\n{about}\n"
                "The chair changes it with 'reviewer panel-scope PROJECT --runs ...'.")

    def _run_entry(self, run: tuple[int, str, str, int], scoped) -> tuple[str, int, str]:
        run_id, model, status, images = run
        metrics = QFontMetrics(self.font())
        shown = metrics.elidedText(model, Qt.TextElideMode.ElideMiddle, MODEL_WIDTH)
        suffix = "" if status == RunStatus.COMPLETE else f" ({status})"
        tip = [f"Run #{run_id}: {model}", f"{plural(images, 'image')}, {status}"]
        if scoped is None:
            return f"#{run_id} {shown} · {plural(images, 'image')}{suffix}", run_id, "\n".join(tip)
        text = f"#{run_id} {shown} · {plural(scoped.mistakes, 'mistake')} · {plural(images, 'image')}{suffix}"
        tip[1] += f"; {plural(scoped.mistakes, 'mistake')}"
        if scoped.in_scope:
            tip.append(f"In the panel's scope: {plural(scoped.only_here, 'item')} of them no other scoped run makes.")
        else:
            text += " · outside the scope"
            tip.append("Outside the panel's scope: its mistakes count once the chair adds it "
                       f"('reviewer panel-scope PROJECT --add {run_id}'); those it shares with a scoped run are "
                       "under review.")
        return text, run_id, "\n".join(tip)
