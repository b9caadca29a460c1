"""The facts of one mistake: top-5, other runs, ground truth, WordNet, definitions."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from html import escape

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QTextDocument
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QTextBrowser, QVBoxLayout, QWidget

from reviewer.app.mistake_detail import ClassInfo, MistakeDetail, RankedClass
from reviewer.ui.theme import KIND_COLOURS, KIND_TITLES, MUTED, WARNING, chip, muted, section_title

# A section title inside the facts document, as `section_title` draws one as a label.
SECTION_STYLE = f"color:{MUTED}; font-size:8.5pt; font-weight:600; letter-spacing:1px; margin-top:8px; margin-bottom:0"


def rich_label(*, selectable: bool = True) -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def class_html(cls: ClassInfo | None) -> str:
    if cls is None:
        return muted("unknown")
    return f"{escape(cls.name)} {muted(f'({cls.index}, {cls.wnid})')}"


def kind_text(kind: str | None, decided: bool) -> str:
    """A top-5 row's status: the label's kind, or the panel's final verdict marked as such."""
    return f"{KIND_TITLES[kind]} · panel" if decided else KIND_TITLES[kind]


def evidence_html(line) -> str:
    """One source's line: its name marked by what it says of the prediction
    (✓ accepts, ✗ does not, · nothing either way), then its words."""
    verdict = line.data.get("verdict")
    kind, mark = {"accepts": ("correct", "✓"), "rejects": ("wrong", "✗")}.get(verdict, (None, "·"))
    source, _, text = line.text.partition(": ")
    return f"{chip(kind, mark)} <b>{escape(source)}</b>: {escape(text)}"


class QtTopKBars(QWidget):
    """The top-5 as bars: rank, class, probability, and how the labels judge it."""

    ROW = 24

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._rows: tuple[RankedClass, ...] = ()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(self.ROW * 5 + 4)

    def set_rows(self, rows: tuple[RankedClass, ...]) -> None:
        self._rows = rows
        self.setToolTip("\n".join(f"{r.rank}. {r.cls.name} ({r.cls.wnid}) {r.probability:.1%}: "
                                  + (f"{KIND_TITLES[r.label_kind]} by the panel's final decision" if r.decided
                                   else f"{KIND_TITLES[r.label_kind]} label") for r in rows))
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(320, self.ROW * 5 + 4)

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = QFontMetrics(self.font())
        kind_w = metrics.horizontalAdvance("unclear · panel") + 8
        pct_w = metrics.horizontalAdvance("100.0 %") + 6
        name_w = self.width() - kind_w - pct_w - 8
        for i, row in enumerate(self._rows):
            y = i * self.ROW + 2
            colour = QColor(KIND_COLOURS[row.label_kind])
            # The bar spans the name column; the class name is drawn over it. A faint
            # track shows the whole column (100 %), so a bar's length reads as a share.
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(255, 255, 255, 22))
            painter.drawRoundedRect(QRectF(0, y + 2, name_w, self.ROW - 6), 3, 3)
            bar = QRectF(0, y + 2, max(2.0, name_w * row.probability), self.ROW - 6)
            fill = QColor(colour)
            fill.setAlpha(150)  # plainly visible on the dark surround; the white name stays readable
            painter.setBrush(fill)
            painter.drawRoundedRect(bar, 3, 3)
            painter.setBrush(colour)
            painter.drawRect(QRectF(0, y + 2, 3, self.ROW - 6))
            painter.setPen(self.palette().text().color())
            name = metrics.elidedText(f"{row.rank}  {row.cls.name}", Qt.TextElideMode.ElideRight, int(name_w) - 10)
            painter.drawText(QRectF(8, y, name_w - 8, self.ROW - 2), Qt.AlignmentFlag.AlignVCenter, name)
            painter.drawText(QRectF(name_w, y, pct_w, self.ROW - 2),
                             Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, f"{row.probability:.1%}")
            painter.setPen(colour)
            painter.drawText(QRectF(name_w + pct_w + 8, y, kind_w, self.ROW - 2), Qt.AlignmentFlag.AlignVCenter,
                             kind_text(row.label_kind, row.decided))


@dataclass
class FactSection:
    """One section of the facts document: its title and its rich text (`text()` as a
    QLabel's, so a test reads a section the way it would read a label)."""

    title: str
    html: str = ""
    visible: bool = True

    def text(self) -> str:
        return self.html if self.visible else ""


class QtDetailPanel(QWidget):
    """The top-5 bars over one scrolling document of the mistake's facts.

    The facts are one QTextDocument (other runs, ground truth, published evidence,
    WordNet, definitions), not a label per section: a key press then lays out and
    paints one document in a view of fixed size, where a column of word-wrapped rich
    labels made the whole column lay out again (each label's height-for-width, more
    than once) for every mistake. Documents are kept per text (the last few), so
    going back to a mistake reuses its layout."""

    DOCUMENTS = 16

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 4, 12, 12)
        layout.setSpacing(4)
        self.topk = QtTopKBars()
        layout.addWidget(section_title("Top-5 of this run"))
        layout.addWidget(self.topk)
        self.view = QTextBrowser()
        self.view.setObjectName("facts")
        self.view.setFrameShape(QFrame.Shape.NoFrame)
        self.view.setOpenLinks(False)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.viewport().setAutoFillBackground(False)
        self.view.setStyleSheet("QTextBrowser { background: transparent; }")
        layout.addWidget(self.view, 1)
        self.other_runs = FactSection("Other runs' top-1")
        self.ground_truth = FactSection("Ground truth")
        self.evidence = FactSection("Published evidence")
        self.wordnet = FactSection("WordNet")
        self.definitions = FactSection("Definitions")
        self.sections = (self.other_runs, self.ground_truth, self.evidence, self.wordnet, self.definitions)
        self._evidence_hidden = False  # until the panelist has voted (the "independent judgements" preference)
        self._detail: MistakeDetail | None = None
        self._documents: OrderedDict[str, QTextDocument] = OrderedDict()
        self._blank = QTextDocument(self)
        self.view.setDocument(self._blank)

    def clear(self) -> None:
        self._detail = None
        self.topk.set_rows(())
        for section in self.sections:
            section.html = ""
        self.view.setDocument(self._blank)

    @property
    def evidence_hidden(self) -> bool:
        """Whether the published evidence waits for the panelist's verdict (so does the suggestion made of it)."""
        return self._evidence_hidden

    def set_evidence_hidden(self, hidden: bool) -> None:
        """Hide what the published relabelings say (until the panelist has voted)."""
        if hidden != self._evidence_hidden:
            self._evidence_hidden = hidden
            if self._detail is not None:
                self.evidence.html = self._evidence_html(self._detail)
                self._show_document()

    def show_detail(self, detail: MistakeDetail) -> None:
        self._detail = detail
        self.topk.set_rows(detail.topk)
        self.other_runs.visible = bool(detail.other_runs)
        self.other_runs.html = "<br>".join(
            f"{escape(r.model)}: <b>{escape(r.cls.name)}</b> {r.probability:.1%} · "
            f"{chip(r.label_kind, kind_text(r.label_kind, r.decided))}"
            for r in detail.other_runs)
        self.ground_truth.html = self._ground_truth_html(detail)
        self.evidence.html = self._evidence_html(detail)
        self.wordnet.html = self._wordnet_html(detail)
        label = detail.label_class
        definitions = [f"<b>{escape(detail.predicted.name)}</b> {muted('(predicted)')}: "
                       f"{escape(detail.predicted.definition)}"]
        if label is not None and label.index != detail.predicted.index:
            definitions.append(f"<b>{escape(label.name)}</b> {muted('(label)')}: {escape(label.definition)}")
        self.definitions.html = "<br><br>".join(definitions)
        self._show_document()

    def html(self) -> str:
        """The whole facts document's rich text, section by section."""
        return "".join(f'<p style="{SECTION_STYLE}">{escape(section.title.upper())}</p><p>{section.html}</p>'
                       for section in self.sections if section.visible)

    def _show_document(self) -> None:
        html = self.html()
        document = self._documents.pop(html, None)
        if document is None:
            document = QTextDocument(self)
            document.setDefaultFont(self.font())
            document.setHtml(html)
        self._documents[html] = document
        while len(self._documents) > self.DOCUMENTS:
            _, old = self._documents.popitem(last=False)
            if old is not self.view.document():
                old.deleteLater()
        if self.view.document() is not document:
            self.view.setDocument(document)
        self.view.verticalScrollBar().setValue(0)

    @staticmethod
    def _ground_truth_html(detail: MistakeDetail) -> str:
        def names(classes: tuple[ClassInfo, ...]) -> str:
            return ", ".join(escape(c.name) for c in classes) if classes else muted("none")

        lines = [f"Original label: <b>{class_html(detail.original_label)}</b>",
                 f"{chip('correct', 'Correct')}: {names(detail.correct)}",
                 f"{chip('wrong', 'Wrong')}: {names(detail.wrong)}",
                 f"{chip('unclear', 'Unclear')}: {names(detail.unclear)}"]
        if detail.problematic:
            lines.append(f'<span style="color:{WARNING}; font-weight:600">⚠ Ground truth marked problematic</span>')
        return "<br>".join(lines)

    def _evidence_html(self, detail: MistakeDetail) -> str:
        if not detail.evidence:
            return muted("no published relabeling imported (reviewer import-evidence PROJECT FILE...)")
        if self._evidence_hidden:
            return muted(f"{len(detail.evidence)} sources, hidden until you give your verdict "
                         "(View > Show published evidence before I vote)")
        return "<br>".join(evidence_html(line) for line in detail.evidence)

    @staticmethod
    def _wordnet_html(detail: MistakeDetail) -> str:
        relation = detail.wordnet
        if relation is None:
            return muted("no ground-truth label to compare with")
        arrow = f' <span style="color:{MUTED}">→</span> '
        return (f"Distance <b>{relation.distance}</b> to {escape(relation.label.name)}<br>"
                f"Lowest common ancestor: <b>{escape(relation.common_ancestor)}</b><br>"
                f"{muted('predicted')} {arrow.join(map(escape, relation.predicted_path))}<br>"
                f"{muted('label')} {arrow.join(map(escape, relation.label_path))}")
