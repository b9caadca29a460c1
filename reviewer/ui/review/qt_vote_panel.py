"""The panelist's vote on the shown mistake, and the others' votes when not blind.

Each button names its key; pressing the key or the button triggers the same
action (`action_triggered`). Free text (the name of an out-of-vocabulary
object, a note) is typed in an inline field: Enter records, Esc cancels,
and the keyboard never has to leave for the mouse.

A suggested category and severity (`show_suggestion`) outlines its two buttons
with a dashed line and says why under the grid; it checks nothing and casts
nothing: a vote is always the panelist's own key press.

An item whose votes would count nowhere (a mistake only of runs outside the panel's
scope, or no longer a mistake under the current labels: `reviewer.app.scope.item_standing`)
is closed to votes (`set_closed`): the buttons are off and a line above them says why.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape
from typing import Callable

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from reviewer.app.keymap import Keymap
from reviewer.panel.state import DecidedHow
from reviewer.panel.votes import VoteState
from reviewer.terms import Category, Severity, Verdict
from reviewer.ui.long_text import LongTexts
from reviewer.ui.plain import plain_tip, text_label
from reviewer.ui.review.qt_detail_panel import rich_label, section_title
from reviewer.ui.theme import (
    ACCENT,
    CHECKED_TINTS,
    ERROR,
    MUTED,
    WARNING,
    QtCard,
    chip,
    muted,
    set_text_colour,
    tint_when_checked,
)

SUGGESTION_LINES = 3  # the suggestion's reasons shown; the tooltip has them whole
OTHERS_LINES = 8  # the other panelists' votes shown before their box scrolls
UNDER_LINES = 5  # the lines under the buttons (note, decision) shown before their box scrolls

BUTTONS = (  # (action, label, row, column, column span) on a grid of six columns
    ("verdict_correct", "Correct", 0, 0, 2),
    ("verdict_wrong", "Wrong", 0, 2, 2),
    ("verdict_unclear", "Unclear", 0, 4, 2),
    ("toggle_problematic", "Ground truth is problematic", 1, 0, 6),
    ("severity_major", "Major", 2, 0, 3),
    ("severity_minor", "Minor", 2, 3, 3),
    ("category_fine_grained", "Fine-grained", 3, 0, 3),
    ("category_fine_grained_oov", "Fine-grained, OOV…", 3, 3, 3),
    ("category_spurious_correlation", "Spurious correlation", 4, 0, 3),
    ("category_non_prototypical", "Non-prototypical", 4, 3, 3),
)

class _SuggestedMark(QWidget):
    """A dashed outline over a button: what the suggestion would choose. Not a check: the
    button's own look (checked or not) shows through, and clicks pass to it."""

    def __init__(self, button: QPushButton):
        super().__init__(button)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setGeometry(button.rect())
        button.installEventFilter(self)
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Resize:
            self.setGeometry(watched.rect())
        return False

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setPen(QPen(QColor(ACCENT), 2, Qt.PenStyle.DashLine))
        painter.drawRoundedRect(self.rect().adjusted(1, 1, -1, -1), 3, 3)


class _TextField(QLineEdit):
    """The inline field. Tab leaves it to the review keys (`left`), not to the next widget of the
    chain: a one-line field has nothing to tab to, and the scroll box that came next took the
    focus unseen, with every review key dead (issue 35, 1). Its focus coming and going is
    `focus_moved`, so the prompt says whether the typed text waits."""

    cancelled = Signal()
    left = Signal()
    focus_moved = Signal(bool)  # has the focus

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape:
            self.cancelled.emit()
            return
        super().keyPressEvent(event)

    def focusNextPrevChild(self, _next: bool) -> bool:  # noqa: N802
        self.left.emit()
        self.focus_moved.emit(False)  # said here too: a window not active gets no focus events
        return True

    def focusInEvent(self, event) -> None:  # noqa: N802
        super().focusInEvent(event)
        self.focus_moved.emit(True)

    def focusOutEvent(self, event) -> None:  # noqa: N802
        super().focusOutEvent(event)
        # A menu or another window taking the focus for a moment leaves the field as it was.
        if event.reason() not in (Qt.FocusReason.PopupFocusReason, Qt.FocusReason.ActiveWindowFocusReason):
            self.focus_moved.emit(False)


class _OnWidth(QObject):
    """Calls back when a widget's width changes (after its layout gave it the new geometry)."""

    def __init__(self, widget: QWidget, callback) -> None:
        super().__init__(widget)
        self._callback = callback
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Resize and event.size().width() != event.oldSize().width():
            self._callback()
        return False


class _LinesBox(QScrollArea):
    """A box as tall as its lines, wrapped at its width, up to its maximum height; it scrolls
    beyond. The lines under the vote buttons (one's note, the decision and its reason, the
    "superseded" line) took what height they needed, and on a 720 px screen the column gave
    it by crushing the buttons above them to a few pixels (issue 35, 3)."""

    def __init__(self, lines: QWidget, *, max_lines: int):
        super().__init__()
        self.setWidget(lines)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a display: the wheel scrolls it, keys stay
        self.viewport().setAutoFillBackground(False)
        lines.setAutoFillBackground(False)
        line = lines.fontMetrics().lineSpacing()
        self.setMinimumHeight(line + 2)
        self.setMaximumHeight(line * max_lines + 6)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)

    def sizeHint(self) -> QSize:  # noqa: N802
        """The lines' height at the box's width (a wrapped label's own hint guesses a width)."""
        lines = self.widget()
        width = self.viewport().width() if self.isVisible() else self.width()
        if lines.hasHeightForWidth() and width > 0:
            height = lines.heightForWidth(width)
        else:
            height = lines.sizeHint().height()
        return QSize(super().sizeHint().width(), min(max(height, self.minimumHeight()), self.maximumHeight()))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # the lines wrap anew: another height may fit them

    def lines_changed(self) -> None:
        """Their text changed: the box is laid out again (shown only while it has some)."""
        layout = self.widget().layout()
        self.setVisible(any(not layout.itemAt(k).widget().isHidden() for k in range(layout.count())))
        self.updateGeometry()


class QtVotePanel(QtCard):
    action_triggered = Signal(str)
    text_entered = Signal(str, str)  # field (oov_name | note), text
    text_cancelled = Signal(str)  # the field that was asked for (oov_name | note)
    text_left = Signal()  # Tab in the inline field: the keys go back to the review, the text waits

    def __init__(self, keymap: Keymap, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 4, 10, 10)
        layout.setSpacing(4)
        header = QHBoxLayout()
        header.addWidget(section_title("Your vote"))
        header.addStretch(1)
        self.status = QLabel()  # rich: its chips and colours; every stored string through escape
        header.addWidget(self.status)
        layout.addLayout(header)
        # Why votes on the shown item would count nowhere (set_closed); hidden while they count.
        self.closed = text_label()
        self.closed.setObjectName("votes_closed")
        self.closed.setWordWrap(True)
        set_text_colour(self.closed, WARNING)
        self.closed.setVisible(False)
        layout.addWidget(self.closed)
        self._closed_reason = ""
        self._judged_wrong = False
        grid = QGridLayout()
        grid.setSpacing(4)
        for column in range(6):
            grid.setColumnStretch(column, 1)
        self.buttons: dict[str, QPushButton] = {}
        for name, text, row, column, span in BUTTONS:
            button = QPushButton()
            button.setObjectName(name)
            button.setCheckable(True)
            tint_when_checked(button, CHECKED_TINTS.get(name, "#1f3a66"))
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the window
            button.clicked.connect(lambda _=False, n=name: self.action_triggered.emit(n))
            button.setProperty("title", text)
            grid.addWidget(button, row, column, 1, span)
            self.buttons[name] = button
        layout.addLayout(grid)
        self._marks = {name: _SuggestedMark(button) for name, button in self.buttons.items()
                       if name.startswith(("severity_", "category_"))}
        self.suggestion = rich_label()  # the suggested category and severity, and why (show_suggestion)
        self._suggestion: tuple | None = None  # what it shows, laid out again when the width changes
        self._fitted: dict[tuple[int, str, str], str] = {}  # (width, chosen, reasons) -> the reasons as shown
        self._fit_document = QTextDocument(self)  # where the suggestion is laid out to be cut (_fit)
        self._fit_document.setDocumentMargin(0)
        self._suggestion_width = _OnWidth(self.suggestion, self._suggestion_resized)
        # A fixed height, kept while the mistakes change: a line wrapping to 2, 3 or 4 lines made
        # the column lay itself out again (and move the facts below) at every key. The whole
        # text is the tooltip where it is longer.
        self.suggestion.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.suggestion.setFixedHeight(self.suggestion.fontMetrics().lineSpacing() * SUGGESTION_LINES + 2)
        self.suggestion.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.suggestion)
        self.note = rich_label()
        self._note_texts = LongTexts(self.note)  # the note bounded, "show all" for the whole (issue 36)
        # The note and the decision scroll in a box of a few lines: the buttons keep their size.
        under = QWidget()
        under_layout = QVBoxLayout(under)
        under_layout.setContentsMargins(0, 0, 0, 0)
        under_layout.setSpacing(4)
        under_layout.addWidget(self.note)
        self._field_label = text_label()
        self._field_label.setWordWrap(True)
        self.field = _TextField()
        self.field.setAccessibleName("the inline text field")  # named by ask_text; the status strip says it
        self.field.returnPressed.connect(self._field_done)
        self.field.cancelled.connect(self._field_cancel)
        self.field.left.connect(self.text_left)
        self.field.focus_moved.connect(self._field_focus_moved)
        self._field_name = ""
        self._field_prompt = ""
        self._field_initial = ""  # what the field held when asked: typed text differs from it
        layout.addWidget(self._field_label)
        layout.addWidget(self.field)
        self._hide_field()
        self.decision = rich_label()  # the panel's final decision, when there is one: what stands
        self._decision_texts = LongTexts(self.decision)  # its reason bounded
        self.decision.setVisible(False)
        under_layout.addWidget(self.decision)
        self.under_box = _LinesBox(under, max_lines=UNDER_LINES)
        self.under_box.setVisible(False)
        layout.insertWidget(layout.indexOf(self._field_label), self.under_box)
        self._decision = None
        self._shown_state = None
        self.blind_rule = False  # the chair's rule hides others' votes, whatever the Blind switch says
        self._status = ""
        layout.addWidget(section_title("Other panelists"))
        self.others = rich_label()
        self._others_texts = LongTexts(self.others)  # their notes bounded
        # A large panel's votes and notes scroll inside their own box: the column (and with it
        # the window, which grew to fit them) keeps its height from one mistake to the next.
        self.others_box = QScrollArea()
        self.others_box.setWidget(self.others)
        self.others_box.setWidgetResizable(True)
        self.others_box.setFrameShape(QFrame.Shape.NoFrame)
        self.others_box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        line = self.others.fontMetrics().lineSpacing()
        self.others_box.setMinimumHeight(line + 6)
        self.others_box.setMaximumHeight(line * OTHERS_LINES + 6)
        self.others_box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.others_box.viewport().setAutoFillBackground(False)
        self.others_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # a display: the wheel scrolls it, keys stay
        self.others.setAutoFillBackground(False)
        layout.addWidget(self.others_box)
        self.set_keymap(keymap)

    def set_keymap(self, keymap: Keymap) -> None:
        self._keymap = keymap
        for name, button in self.buttons.items():
            keys = keymap.keys(name)
            button.setText(f"{button.property('title')}  [{keys[0]}]" if keys else button.property("title"))
            button.setToolTip(f"{button.property('title')}: " + (" or ".join(keys) if keys else "no key"))

    # -- state -------------------------------------------------------------------
    def show_vote(self, state: VoteState, *, status: str, judged_wrong: bool = False, decision=None) -> None:
        """Check the buttons of the vote; `status` is "saving", "recorded", "none", "loading"
        or an error. `judged_wrong`: the item stands wrong (phase 2), so the panelist rates
        severity and category whatever their own verdict was."""
        checked = {f"verdict_{state.verdict}", f"severity_{state.severity}", f"category_{state.category}"}
        if state.problematic:
            checked.add("toggle_problematic")
        for name, button in self.buttons.items():
            button.setChecked(name in checked)
        self._shown_state, self._judged_wrong = state, judged_wrong
        self._enable_buttons()
        self._shown_state = state
        self._decision = decision  # the shown mistake's: never the one shown before it
        self._show_note()
        self.set_status("superseded" if status == "recorded" and self._superseded() else status)
        self._show_decision()

    def asks_rating(self) -> bool:
        """Phase 2 asks this panelist's severity and category: the item stands wrong, their own
        vote does not rate it, and no decision settled the rating (an override that set them
        did: asking for them beside it contradicted the decision, issue 35, 4)."""
        state, decision = self._shown_state, self._decision
        if state is None or not self._judged_wrong or state.verdict == Verdict.WRONG:
            return False
        if state.severity and state.category:
            return False
        return not (decision is not None and (decision.severity or decision.category))

    def _show_note(self) -> None:
        """The line under the buttons: phase 2's request, the object's name, the note."""
        state = self._shown_state
        parts = []
        self._note_texts.clear()
        if self.asks_rating():
            parts.append(chip("wrong", "Phase 2") + " the panel judged it wrong: rate severity and category")
        if state is not None and state.category and Category(state.category).needs_name and state.oov_name:
            parts.append(f"Object: <b>{escape(state.oov_name)}</b>")
        if state is not None and state.note:
            parts.append("Note: " + self._note_texts.html(state.note, title="Your note"))
        self.note.setText("<br>".join(parts))
        self.note.setVisible(bool(parts))
        self.under_box.lines_changed()

    def set_closed(self, reason: str, tip: str = "") -> None:
        """Votes on the shown item would count nowhere, for `reason` (said above the buttons,
        which are off; `tip` says more); "": they count."""
        if reason == self._closed_reason:
            return
        self._closed_reason = reason
        self.closed.setText(reason)
        self.closed.setToolTip(plain_tip(tip))
        self.closed.setVisible(bool(reason))
        self._enable_buttons()

    @property
    def closed_reason(self) -> str:
        return self._closed_reason

    def _enable_buttons(self) -> None:
        """Severity and category once the item can be rated; none while it is closed to votes."""
        state = self._shown_state
        rate = state is None or state.can_rate(judged_wrong=self._judged_wrong)
        for name, button in self.buttons.items():
            button.setEnabled(not self._closed_reason and (rate or not name.startswith(("severity_", "category_"))))

    def show_suggestion(self, category: str | None, severity: str | None, reasons: str = "", *,
                        hidden: bool = False) -> None:
        """Outline the suggested category and severity buttons (dashed, never checked) and say why
        in one line under them (reviewer.review.suggest); None clears it. `hidden`: the panelist
        sees evidence only after their verdict (View menu), and the suggestion is made of it."""
        suggested = set() if hidden or category is None else {f"category_{category}", f"severity_{severity}"}
        for name, mark in self._marks.items():
            if mark.isVisible() != (name in suggested):
                mark.setVisible(name in suggested)
        if category is None:
            self._suggestion = None
            self.suggestion.setText("")
            self.suggestion.setToolTip("")
            return
        self._suggestion = (category, severity, reasons, hidden)
        if hidden:
            text = muted("Suggestion hidden until you give your verdict (View > Show published evidence before I vote)")
        else:
            chosen = f"{Category(category).short_caption} · {Severity(severity).caption}"

            def html(tail: str) -> str:
                return (f'<span style="color:{ACCENT}">Suggested, not voted:</span> <b>{escape(chosen)}</b> '
                        f"{muted(tail)}")

            width = self.suggestion.contentsRect().width()
            fitted = self._fitted.get((width, chosen, reasons))
            if fitted is None:  # the same suggestion is shown again at each vote and read of the item
                if len(self._fitted) > 64:
                    self._fitted.clear()
                fitted = self._fitted[(width, chosen, reasons)] = self._fit(html, f"— {reasons}")
            text = html(fitted)
        self.suggestion.setText(text)
        self.suggestion.setToolTip(plain_tip(f"Suggested, not voted: {chosen} — {reasons}") if not hidden else "")

    def _fit(self, html: Callable[[str], str], tail: str) -> str:
        """`tail` cut to what fits the suggestion's lines, as `html(tail)` lays out in the label,
        ending in "…" where cut (the tooltip has it whole): a line that stopped mid-word would
        read as the whole reason."""
        width = self.suggestion.contentsRect().width()
        if width <= 0:
            return tail
        document = self._fit_document  # one, kept: making and freeing one per mistake cost more than its layouts
        document.setDefaultFont(self.suggestion.font())
        document.setTextWidth(width)

        def lay_out(text: str) -> list:
            document.setHtml(html(text))
            document.size()  # lays it out (a document does so when first asked)
            block, lines = document.begin(), []
            while block.isValid():
                layout = block.layout()
                lines += [(block.position() + layout.lineAt(k).textStart(), layout.lineAt(k).textLength())
                          for k in range(layout.lineCount())]
                block = block.next()
            return lines

        lines = lay_out(tail)
        if len(lines) <= SUGGESTION_LINES:
            return tail
        # Where the last line that fits ends, in the tail (it ends the document's text); cut there
        # at a word, with room for the mark, and drop a word more while it does not fit (rarely).
        start, length = lines[SUGGESTION_LINES - 1]
        visible = start + length - (document.characterCount() - 1 - len(tail))
        words = tail[:max(visible - 1, 0)].split(" ")[:-1] or [""]
        while words:
            shown = " ".join(words).rstrip(",;:") + "…"
            if len(lay_out(shown)) <= SUGGESTION_LINES:
                return shown
            words.pop()
        return "…"

    def _suggestion_resized(self) -> None:
        """The suggestion's label has a new width: its reasons are cut again to fit it."""
        if self._suggestion is not None:
            category, severity, reasons, hidden = self._suggestion
            self.show_suggestion(category, severity, reasons, hidden=hidden)

    def show_suggestion_of(self, suggestion, *, hidden: bool = False) -> None:
        """`show_suggestion` of a `reviewer.review.suggest.Suggestion`, or None (cleared)."""
        if suggestion is None:
            self.show_suggestion(None, None)
        else:
            self.show_suggestion(suggestion.category, suggestion.severity, suggestion.reasons, hidden=hidden)

    def suggested(self) -> set[str]:
        """The actions whose buttons carry the suggestion's outline."""
        return {name for name, mark in self._marks.items() if not mark.isHidden()}

    def show_decision(self, decision) -> None:
        """The panel's final decision on the shown mistake (reviewer.panel.final.DecisionNote),
        or None: who decided it and why, and whether it supersedes the panelist's own vote."""
        self._decision = decision
        self._show_note()  # a decision that settles the rating no longer leaves it asked
        self._show_decision()
        if self._superseded():
            self.set_status("superseded")
        elif self._status == "superseded":  # the decision changed: the vote stands recorded
            self.set_status("recorded")

    def _superseded(self) -> bool:
        state, decision = self._shown_state, self._decision
        return (decision is not None and state is not None and state.verdict is not None
                and state.verdict != decision.verdict)

    def _show_decision(self) -> None:
        decision = self._decision
        self.decision.setVisible(decision is not None)
        self._decision_texts.clear()
        self.decision.setText("" if decision is None else self.decision_html(decision))
        self.under_box.lines_changed()

    def decision_html(self, decision) -> str:
        """The decision in words, as the rest of the page says a vote ('wrong · Major ·
        Fine-grained'), the chair's reason bounded (issue 36), and whether it supersedes the vote."""
        words = [Severity(decision.severity).caption if decision.severity else "",
                 Category(decision.category).caption if decision.category else "",
                 "ground truth problematic" if decision.problematic else ""]
        how = replace(decision, reason="").how_words()  # the reason follows, bounded
        if decision.reason and decision.how == DecidedHow.OVERRIDE:
            how = escape(how) + ": " + self._decision_texts.html(decision.reason, title="The chair's reason")
        else:
            how = escape(how)
        text = (f"<b>Panel's decision:</b> {chip(decision.verdict, decision.verdict)}"
                + "".join(f" · {escape(w)}" for w in words if w) + f" {how}")
        if self._superseded():
            mine = f"Your vote ({self._shown_state.verdict}) is superseded by it; it stays in the history."
            text += "<br>" + muted(mine)
        return text

    def set_status(self, status: str) -> None:
        self._status = status
        texts = {"saving": muted("saving…"), "recorded": chip("correct", "✓ recorded"), "none": muted("not voted"),
                 "loading": muted("reading…"), "superseded": muted("✓ recorded · superseded")}  # the decision below says by what
        self.status.setText(texts.get(status, f'<span style="color:{ERROR}">{escape(status)}</span>'))

    def show_others(self, votes: list | None, names: dict[int, str], *, blind: bool) -> None:
        """Others' votes (SeenVote rows), or why they are hidden."""
        if votes is None:
            why = "the chair made this panel blind" if self.blind_rule else "blind review"
            self.others.setText(muted(f"Hidden until you vote ({why}).") if blind or self.blind_rule else "")
            return
        if not votes:
            self.others.setText(muted("No other votes yet."))
            return
        lines = []
        self._others_texts.clear()
        for vote in votes:
            name = names.get(vote.panelist_id, str(vote.panelist_id))
            lines.append(f"<b>{escape(name)}</b>: " + self._other_vote_html(vote, name))
        self.others.setText("<br>".join(lines))

    def _other_vote_html(self, vote, name: str) -> str:
        """Another's vote as the viewer may see it: each field the blind rule masks reads
        "hidden until you vote", whether the other voted it or not (`SeenVote.masked`, as
        `reviewer show --json` says it): a blank beside a hidden value told who voted what
        (issue 36, H3). Their note bounded (issue 36)."""
        masked = vote.masked
        fields = []
        if "verdict" not in masked:
            fields.append(chip(vote.verdict, vote.verdict) if vote.verdict else muted("no verdict yet"))
        if vote.severity and "severity" not in masked:
            fields.append(escape(Severity(vote.severity).caption))
        if vote.category and "category" not in masked:
            fields.append(escape(Category(vote.category).caption))
        if vote.problematic and "problematic" not in masked:
            fields.append("problematic")
        hidden = [words for field, words in (("verdict", "verdict"), ("problematic", "problematic flag"),
                                             ("severity", "severity"), ("category", "category"))
                  if field in masked]
        if "verdict" in masked:  # the note argues for the verdict: hidden with it, as `reviewer show` does
            hidden.append("note")
        if hidden:
            listed = hidden[0] if len(hidden) == 1 else ", ".join(hidden[:-1]) + " and " + hidden[-1]
            fields.append(muted(f"{listed} hidden until you vote"))
        line = " · ".join(fields)
        if vote.note and "verdict" not in masked:
            note = self._others_texts.html(vote.note, title=f"{name}'s note")
            line += f'<br><span style="color:{MUTED}">“{note}”</span>'
        return line

    # -- inline text ---------------------------------------------------------------
    def ask_text(self, field: str, prompt: str, initial: str = "", *, name: str = "") -> None:
        """Ask for free text in the inline field, which takes the focus (Enter records, Esc
        cancels). Asked again for the field already open, the text typed so far is kept.
        `name`: what the field is, for the status strip ("the note")."""
        if self.asking() != field:
            self.field.setText(initial)
            self._field_initial = initial
        self._field_name = field
        self._field_prompt = prompt
        self._field_label.setText(prompt)
        self.field.setAccessibleName(name or "the inline text field")
        self._field_label.show()
        self.field.show()
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    def asking(self) -> str:
        """The field asked for while the inline field is open ("note", "oov_name"), whether or
        not it has the focus; "" when closed."""
        return self._field_name if self.field.isVisible() else ""

    def typing(self) -> bool:
        """The inline field is open and has the keys."""
        return bool(self.asking()) and self.field.hasFocus()

    def typed(self) -> str:
        """The text typed in the open field that differs from what it was asked with ("" if none)."""
        text = self.field.text().strip()
        return text if self.asking() and text != self._field_initial.strip() else ""

    def cancel_text(self) -> None:
        """Close the open field as Esc in it does (`text_cancelled`)."""
        if self.asking():
            self._field_cancel()

    def drop_text(self) -> str:
        """Close the open field without a word (the shown mistake changed under it); returns
        the text typed there that is thereby not recorded ("" if none)."""
        typed = self.typed()
        if self.asking():
            self._hide_field()
        return typed

    def _field_focus_moved(self, focused: bool) -> None:
        """The prompt says whether the field has the keys: left (Tab, a click elsewhere), the
        text waits unrecorded and the review keys work again."""
        if not self.asking():
            return
        if focused:
            self._field_label.setText(self._field_prompt)
        else:
            keys = self._keymap.keys("edit_note" if self._field_name == "note" else
                                     f"category_{Category.FINE_GRAINED_OOV}") if self._keymap else []
            again = f"{keys[0]} goes back to it" if keys else "click it to go on"
            self._field_label.setText(f"Not recorded yet ({again}; Enter there records, Esc cancels). "
                                      f"The review keys work meanwhile.")

    def _field_done(self) -> None:
        field, text = self._field_name, self.field.text().strip()
        self._hide_field()
        self.text_entered.emit(field, text)

    def _field_cancel(self) -> None:
        field = self._field_name
        self._hide_field()
        self.text_cancelled.emit(field)

    def _hide_field(self) -> None:
        self._field_name = ""  # first: the field's focus leaving as it hides is no longer asked about
        self._field_label.hide()
        self.field.hide()
        self.field.clearFocus()
