"""The meeting's agreement statistics, computed off the UI thread and shown in the
Agreement tab (`QtAgreementPanel`).

A part of the meeting (`QtMeetingView`) that owns whether a computation runs and whether
another is wanted after it: the bootstrap takes seconds on a large project and acts come
faster, so while one runs, one more is queued at most. It takes the project, the meeting's
`OpRunner` (its "stats" lane), the panel it fills and the bootstrap's resamples.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from reviewer.app import panel as acts
from reviewer.ui.meeting.qt_agreement_panel import QtAgreementPanel


class MeetingAgreement(QObject):
    shown = Signal()  # the statistics are on screen
    failed = Signal(object)  # BaseException

    def __init__(self, project, runner, panel: QtAgreementPanel, *, resamples: int,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project, self._runner, self._panel, self._resamples = project, runner, panel, resamples
        self.running = self.wanted = False

    def reload(self) -> None:
        """Compute the agreement again (after the one running, if one is)."""
        if self.running:
            self.wanted = True
            return
        self.running, self.wanted = True, False
        self._panel.set_busy()
        self._runner.read(acts.agreement, self._project, resamples=self._resamples, lane="stats",
                          on_done=self._loaded, on_error=self._failed)

    def _failed(self, error: BaseException) -> None:
        self.running = False
        self.failed.emit(error)

    def _loaded(self, summary) -> None:
        self.running = False
        self._panel.set_report(summary.report, summary.matrices, resamples=summary.resamples,
                               reliability=summary.reliability)
        self.shown.emit()
        if self.wanted:
            self.reload()
