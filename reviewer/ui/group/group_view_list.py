"""The group view's list: the items the panel is split on, read on the view's workers,
filtered by a field or by a pair of panelists, and the agreement computed beside it.

A part of `QtGroupView` (a mixin of it), kept apart because it is one
responsibility: what the view reads of the whole panel (the list, the chair's
"lock all unanimous" count, the agreement statistics) and which rows it lists. It
uses the view's `runner` (its "read" and "stats" lanes), `model`, `list`, the top
bar's widgets, `agreement`, `votes`, `tabs` and `_row_selected`; its state is
`_state` (the list as last read), `_field`, `_pair`, `_advance` and the
agreement's `_stats_running` / `_stats_dirty`.
"""

from __future__ import annotations

from reviewer.app import panel as acts
from reviewer.panel.group import GroupRow, GroupState
from reviewer.panel.standing import describe_counts


class GroupViewList:
    """The list of split items of `QtGroupView`, its filters, and the agreement beside it."""

    # -- loading -------------------------------------------------------------------------
    @property
    def rows(self) -> list[GroupRow]:
        return self._state.rows if self._state else []

    def reload(self) -> None:
        self.runner.read(acts.group_state, self.project, viewer_id=self.panelist.id, field=self._field,
                            pair=self._pair, on_done=self._group_loaded, on_error=self._failed)

    def reload_stats(self) -> None:
        """Recompute the agreement; while a computation runs, one more is queued at most
        (the bootstrap takes seconds on a large project, and acts come faster)."""
        if self._stats_running:
            self._stats_dirty = True
            return
        self._stats_running, self._stats_dirty = True, False
        self.agreement.set_busy()
        self.runner.read(acts.agreement, self.project, resamples=self.resamples, lane="stats",
                         on_done=self._stats_loaded, on_error=self._stats_failed)

    def _stats_failed(self, error: BaseException) -> None:
        self._stats_running = False
        self._failed(error)

    def _group_loaded(self, state: GroupState) -> None:
        self._state = state
        keep = self._row.item if self._row else None
        self.list.selectionModel().blockSignals(True)
        self.model.set_rows(state.rows)
        self.list.selectionModel().blockSignals(False)
        self._show_filter()
        waiting = state.unanimous_to_lock
        self.lock_unanimous.setText(f"Lock all unanimous ({waiting})")
        self.lock_unanimous.setVisible(bool(waiting))
        self.lock_unanimous.setEnabled(self.panelist.is_chair)
        chosen = next((r for r, row in enumerate(state.rows) if row.item == keep), 0 if state.rows else -1)
        if self._advance is not None and self._advance == keep and chosen >= 0:  # on to the next open dispute
            self._advance = None
            order = list(range(chosen + 1, len(state.rows))) + list(range(0, chosen))  # on, then from the top
            still_open = [r for r in order if state.rows[r].open]  # the domain's flag (reviewer.panel.standing)
            chosen = still_open[0] if still_open else chosen
        if chosen >= 0:
            self.list.selectionModel().blockSignals(True)
            self.list.selectRow(chosen)
            self.list.selectionModel().blockSignals(False)
            self._row_selected(chosen, force=True)
        else:
            self._row = None
            self.votes.show_panel(None, chair=False)
            self.headline.setText("")
            self.facts.clear()
            self.image.show_message("Nothing to discuss", "Every image voted by the whole panel is unanimous "
                                    "here." if self._pair is None else "These two panelists agree everywhere.")
        self.status.setText(f"updated {_now()}")
        self.loaded.emit()

    def _stats_loaded(self, summary) -> None:
        self._stats_running = False
        self.agreement.set_report(summary.report, summary.matrices, resamples=summary.resamples,
                                  reliability=summary.reliability)
        self.stats_shown.emit()
        if self._stats_dirty:
            self.reload_stats()

    # -- filters -------------------------------------------------------------------------
    def set_field_filter(self, field: str | None) -> None:
        self.field_filter.setCurrentIndex(max(0, self.field_filter.findData(field)))

    def _field_changed(self) -> None:
        self._field = self.field_filter.currentData()
        if self._pair is not None and self._field is None:
            self._pair = None
        self.reload()

    def set_pair_filter(self, field: str | None, first: int | None = None, second: int | None = None) -> None:
        """List the items where panelists `first` and `second` disagree on `field` (None: no pair)."""
        self._pair = (first, second) if field is not None else None
        self.field_filter.blockSignals(True)
        self.set_field_filter(field)  # None: back to every split image
        self.field_filter.blockSignals(False)
        self._field = self.field_filter.currentData()
        self.tabs.setCurrentWidget(self.votes)
        self.reload()

    def _show_filter(self) -> None:
        count = len(self.rows)
        if self._pair is None:
            standing = describe_counts(self._state.counts(), open_if_none=False) if self._state and count else ""
            self.title.setText(f"{count} image{'s' if count != 1 else ''} without unanimity"
                               + (f": {standing}" if standing else ""))
            self.pair_label.setText("")
        else:
            names = {p.id: p.name for p in self._state.snapshot.panelists} if self._state else {}
            a, b = (names.get(i, str(i)) for i in self._pair)
            hidden = self._state.hidden if self._state else 0
            self.title.setText(f"{count} image{'s' if count != 1 else ''} where {a} and {b} disagree")
            self.pair_label.setText(f"(and {hidden} you have not voted yet)" if hidden else "")
        self.clear_pair.setVisible(self._pair is not None)


def _now() -> str:
    from datetime import datetime

    return datetime.now().strftime("%H:%M:%S")
