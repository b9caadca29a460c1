"""The panel's progress at a glance, above the queue: for each phase, what I have
done of what waits for me, and what the panel has decided of the run's mistakes.

It draws `reviewer.panel.phases.progress` over the run's mistakes (carried by
the queue, so it refreshes with every change record the queue is reloaded on):

    Phase 1          me 12/40 · panel 8/40 · 3 meet
    [███████░░░░░░░░░░░░]  mine
    [████▒▒░░░░░░░░░░░░░]  the panel's: decided, awaiting the group

"panel d/n": d items of n decided; "meet": voted by all, not unanimous (the
group meets). "me d/n": n is what I have voted of the phase's items plus what still waits
for my vote (an item decided before I voted no longer waits).
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget

from reviewer.terms import Verdict
from reviewer.ui.theme import ACCENT, KIND_COLOURS, MUTED, WARNING

PHASE_TITLES = {1: "Phase 1", 2: "Phase 2"}
# Where the counts do not fit beside "Phase 1" (a narrow queue at 1280x720), the phase reads as
# the queue rows write it ("② rate"), and only then is the text elided.
SHORT_TITLES = {"Phase 1": "①", "Phase 2": "②"}
TRACK = QColor(255, 255, 255, 28)


class QtProgressStrip(QWidget):
    ROW = 40

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        # (title, counts, mine, decided, awaiting the group)
        self._lines: list[tuple[str, str, float, float, float]] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(2 * self.ROW)

    def set_progress(self, phases: list, panelist_id: int | None, *, of: str = "of the run's mistakes") -> None:
        """`phases`: `progress(...)` of the queue's items; `panelist_id`: me; `of`: what they are
        ("of the run's mistakes", "of the panel's scope"), as the tooltip says."""
        before = self._lines
        self._lines, tips = [], []
        for report in phases:
            me = next((p for p in report.panelists if p.panelist_id == panelist_id), None)
            done, waiting = (me.done, me.to_do) if me is not None else (0, report.items - report.decided)
            mine_total = done + waiting
            text = (f"me {done}/{mine_total} · panel {report.decided}/{report.items}"
                    + (f" · {report.awaits_group} meet" if report.awaits_group else ""))
            if not report.items:
                text = "nothing in this phase"
            self._lines.append((PHASE_TITLES[report.phase], text, done / mine_total if mine_total else 0.0,
                                report.decided / report.items if report.items else 0.0,
                                report.awaits_group / report.items if report.items else 0.0))
            tips.append(f"Phase {report.phase}: {report.items} items {of}; I voted {done}, "
                        f"{waiting} wait for my vote; the panel decided {report.decided}, {report.awaits_group} "
                        f"await the group (voted by all, not unanimous), {report.voting} still being voted")
        tip = "\n".join(tips)
        if self._lines != before:  # called on every vote: paint only when it reads differently
            self.update()
        if tip != self.toolTip():
            self.setToolTip(tip)

    def text_lines(self) -> list[str]:
        """'Phase 2 · rating: me 0/1 · panel 0/1' per phase, as the strip reads."""
        return [f"{title}: {text}" for title, text, *_ in self._lines]

    def shown_lines(self) -> list[tuple[str, str]]:
        """(title, text) of each phase as drawn at the strip's width: the title shortened
        to ①/② when the counts need its room, the counts elided only then."""
        metrics = QFontMetrics(self.font())
        width = self.width() - 2
        out = []
        for title, text, *_ in self._lines:
            if metrics.horizontalAdvance(text) > width - metrics.horizontalAdvance(title) - 8:
                title = SHORT_TITLES.get(title, title)
            room = width - metrics.horizontalAdvance(title) - 8
            out.append((title, metrics.elidedText(text, Qt.TextElideMode.ElideRight, int(room))))
        return out

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(260, 2 * self.ROW)

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = QFontMetrics(self.font())
        width = self.width() - 2
        for i, ((_, _, mine, decided, meeting), (title, shown)) in enumerate(zip(self._lines, self.shown_lines())):
            y = i * self.ROW
            line = QRectF(0, y, width, metrics.height() + 2)
            painter.setPen(QColor(MUTED))
            painter.drawText(line, Qt.AlignmentFlag.AlignVCenter, title)
            painter.setPen(self.palette().text().color())
            painter.drawText(line, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, shown)
            top = y + metrics.height() + 5
            for row, segments in enumerate((((mine, QColor(ACCENT)),),
                                            ((decided, QColor(KIND_COLOURS[Verdict.CORRECT])),
                                             (meeting, QColor(WARNING))))):
                bar_y = top + row * 8
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(TRACK)
                painter.drawRoundedRect(QRectF(0, bar_y, width, 5), 2, 2)
                x = 0.0
                for share, colour in segments:
                    if share > 0:
                        painter.setBrush(colour)
                        painter.drawRoundedRect(QRectF(x, bar_y, max(2.0, width * share), 5), 2, 2)
                        x += width * share
