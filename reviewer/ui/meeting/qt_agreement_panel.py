"""The panel's agreement: per-field statistics (Gwet's AC1 beside kappa and alpha), each
panelist's reliability (agreement with the final decisions, Dawid–Skene's accuracy) and the
pairwise Cohen's kappa matrix.

Clicking a cell of the matrix (two different panelists) emits `pair_chosen`,
which the meeting turns into a filter: the items where those two
disagree on that field.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reviewer.panel.agreement import Estimate, FieldAgreement, PairwiseKappa
from reviewer.panel.panelist_reliability import RELIABILITY_FIELDS, Match, PanelReliability
from reviewer.panel.snapshot import FIELDS
from reviewer.ui.meeting._meeting_layout import fill_with_scroll
from reviewer.ui.plain import plain_tip
from reviewer.ui.review.qt_detail_panel import section_title
from reviewer.ui.theme import style_muted

FIELD_TITLES = {"verdict": "Verdict", "problematic": "Problematic", "severity": "Severity", "category": "Category"}
STAT_ROWS = ("Phase", "Items", "Agreement", "α nominal", "α ordinal", "Fleiss κ", "Gwet AC1")
RELIABILITY_COLUMNS = tuple(FIELD_TITLES[f] for f in RELIABILITY_FIELDS) + ("DS accuracy",)


def _short(value: float) -> str:
    """0.17 -> '.17', -0.48 -> '−.48': an interval fits a narrow cell."""
    text = f"{value:.2f}"
    return text.replace("0.", ".", 1).replace("-", "−") if abs(value) < 1 else text.replace("-", "−")


def estimate_text(estimate: Estimate | None, *, percent: bool = False) -> str:
    """Two lines: the value, then its 95% interval."""
    if estimate is None or estimate.value is None:
        return "–"
    if percent:
        value = f"{100 * estimate.value:.0f}%"
        return value if estimate.low is None else f"{value}\n{100 * estimate.low:.0f}–{100 * estimate.high:.0f}%"
    value = f"{estimate.value:.2f}".replace("-", "−")
    return value if estimate.low is None else f"{value}\n[{_short(estimate.low)}, {_short(estimate.high)}]"


def match_text(match: Match) -> str:
    """'80% (4/5)'; '–' when the panelist voted no decided item on the field."""
    return "–" if not match.n else f"{100 * match.agreements / match.n:.0f}% ({match.agreements}/{match.n})"


def kappa_colour(kappa: float | None) -> QColor:
    """Red (no better than chance) to green (perfect), muted when undefined."""
    if kappa is None:
        return QColor("#2b2d31")
    t = max(0.0, min(1.0, kappa))
    red, green = QColor("#5a1f1d"), QColor("#1d4428")
    return QColor(int(red.red() + t * (green.red() - red.red())), int(red.green() + t * (green.green() - red.green())),
                  int(red.blue() + t * (green.blue() - red.blue())))


class QtAgreementPanel(QWidget):
    pair_chosen = Signal(str, int, int)  # field, panelist id, panelist id

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._matrices: dict[str, PairwiseKappa] = {}
        # One column per field, one row per statistic: four fields fit the tab's width.
        self.stats = QTableWidget(len(STAT_ROWS), 0)
        self.stats.setVerticalHeaderLabels(STAT_ROWS)
        self.stats.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.stats.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.stats.setWordWrap(False)
        small = self.stats.font()
        small.setPointSizeF(small.pointSizeF() * 0.9)  # four fields with their intervals fit the tab
        self.stats.setFont(small)
        self.stats.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        # Fixed two-line rows, so the table's height does not depend on when it was first shown.
        self.stats.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.stats.verticalHeader().setDefaultSectionSize(2 * self.stats.fontMetrics().lineSpacing() + 6)
        self.stats.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.stats.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.stats.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.note = QLabel("Computing…")
        self.note.setWordWrap(True)
        style_muted(self.note)
        self.field = QComboBox()
        for name in FIELDS:
            self.field.addItem(FIELD_TITLES[name], name)
        self.field.currentIndexChanged.connect(self._show_matrix)
        self.matrix = QTableWidget(0, 0)
        self.matrix.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.matrix.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.matrix.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.matrix.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.matrix.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.matrix.cellClicked.connect(self._cell_clicked)
        self.panelists = QTableWidget(0, len(RELIABILITY_COLUMNS))
        self.panelists.setHorizontalHeaderLabels(RELIABILITY_COLUMNS)
        self.panelists.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.panelists.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.panelists.setFont(small)
        self.panelists.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.panelists.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.panelists.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.panelists_note = QLabel("")
        self.panelists_note.setWordWrap(True)
        style_muted(self.panelists_note)
        self.matrix_hint = QLabel("Click a cell to list the images where those two disagree.")
        style_muted(self.matrix_hint)
        self.matrix_hint.setWordWrap(True)

        picker = QHBoxLayout()
        picker.addWidget(QLabel("Field"))
        picker.addWidget(self.field, 1)
        # The tab scrolls as one where the window is short: its three tables held the meeting at
        # 853 px high, past a 1280x720 screen (issue 35, 3).
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(8, 4, 8, 8)
        layout.addWidget(section_title("Agreement per field"))
        layout.addWidget(self.stats)
        layout.addWidget(self.note)
        layout.addWidget(section_title("Each panelist: their vote is the final decision"))
        layout.addWidget(self.panelists)
        layout.addWidget(self.panelists_note)
        layout.addWidget(section_title("Cohen's kappa between panelists"))
        layout.addLayout(picker)
        layout.addWidget(self.matrix)
        layout.addWidget(self.matrix_hint)
        layout.addStretch(1)
        self.scroll = fill_with_scroll(self, content)

    def set_busy(self, text: str = "Computing…") -> None:
        self.note.setText(text)

    def set_report(self, report: list[FieldAgreement], matrices: dict[str, PairwiseKappa], *, resamples: int,
                   reliability: PanelReliability | None = None) -> None:
        self.stats.setColumnCount(len(report))
        self.stats.setHorizontalHeaderLabels([FIELD_TITLES.get(r.field, r.field) for r in report])
        for col, r in enumerate(report):
            cells = (str(r.phase), str(r.items), estimate_text(r.percent, percent=True),
                     estimate_text(r.alpha_nominal), estimate_text(r.alpha_ordinal), estimate_text(r.fleiss_kappa),
                     estimate_text(r.gwet_ac1))
            for row, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setToolTip(plain_tip(f"{FIELD_TITLES.get(r.field, r.field)}, {STAT_ROWS[row]}: {text}"))
                self.stats.setItem(row, col, item)
        self.stats.setFixedHeight(self.stats.horizontalHeader().sizeHint().height()
                                  + self.stats.verticalHeader().length() + 2 * self.stats.frameWidth())
        self.note.setText(f"Agreement: mean share of agreeing pairs; α: Krippendorff's alpha. Second lines: 95% "
                          f"bootstrap intervals ({resamples} resamples of the items). Fleiss' κ uses the items "
                          "every panelist voted. Gwet's AC1 stays meaningful where nearly every vote is alike and "
                          "κ and α fall towards 0.")
        self._matrices = matrices
        self._show_matrix()
        self._show_reliability(reliability)

    def _show_reliability(self, reliability: PanelReliability | None) -> None:
        rows = reliability.panelists if reliability is not None else []
        self.panelists.setRowCount(len(rows))
        self.panelists.setVerticalHeaderLabels([p.name for p in rows])
        for row, p in enumerate(rows):
            accuracy = "–" if p.accuracy is None else f"{p.accuracy:.2f}"
            cells = [match_text(p.matches[f]) for f in RELIABILITY_FIELDS] + [accuracy]
            tips = [f"{p.name}'s {FIELD_TITLES[f].lower()} vote is the final decision's on {match_text(p.matches[f])} "
                    "of the decided items they voted it on" for f in RELIABILITY_FIELDS]
            tips.append(f"Dawid–Skene's estimate of {p.name}'s verdict accuracy, from {p.verdict_votes} verdict "
                        f"votes over {reliability.items} items, without looking at the decisions")
            for column, (text, tip) in enumerate(zip(cells, tips)):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setToolTip(plain_tip(tip))
                self.panelists.setItem(row, column, item)
        self.panelists.setFixedHeight(self.panelists.horizontalHeader().sizeHint().height()
                                      + self.panelists.verticalHeader().length() + 2 * self.panelists.frameWidth())
        note = "" if reliability is None else reliability.note
        self.panelists_note.setText(note or (
            f"Verdict, severity, category: how often the panelist's vote is the final decision ({reliability.decided} "
            "decided items; a unanimous decision includes their own vote). DS accuracy: Dawid–Skene's estimate of how often their "
            f"verdict is the true one, from the votes alone ({reliability.items} items)."))

    def _show_matrix(self) -> None:
        pairs = self._matrices.get(self.field.currentData())
        names = pairs.names if pairs else []
        self.matrix.clear()
        self.matrix.setRowCount(len(names))
        self.matrix.setColumnCount(len(names))
        self.matrix.setHorizontalHeaderLabels(names)
        self.matrix.setVerticalHeaderLabels(names)
        for i in range(len(names)):
            for j in range(len(names)):
                kappa = pairs.kappa[i][j]
                item = QTableWidgetItem("–" if kappa is None else f"{kappa:.2f}")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setBackground(kappa_colour(kappa))
                if i != j:
                    item.setToolTip(plain_tip(f"{names[i]} and {names[j]}: κ = {'–' if kappa is None else f'{kappa:.2f}'} "
                                    f"over {pairs.common[i][j]} items both voted, "
                                    f"{pairs.disagreements[i][j]} disagreements. Click to list them."))
                else:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)
                self.matrix.setItem(i, j, item)
        self.matrix.setFixedHeight(self.matrix.horizontalHeader().sizeHint().height()
                                   + self.matrix.verticalHeader().length() + 2 * self.matrix.frameWidth())

    def _cell_clicked(self, row: int, column: int) -> None:
        pairs = self._matrices.get(self.field.currentData())
        if pairs is None or row == column:
            return
        self.pair_chosen.emit(pairs.field, pairs.panelist_ids[row], pairs.panelist_ids[column])
