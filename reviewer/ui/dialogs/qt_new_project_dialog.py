"""A new project from an image folder and label files, as `reviewer init` makes it.

The import runs on a worker thread; a bad file is reported with the file,
the record and the problem (the importer's message) and nothing is created.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from reviewer.errors import UserError
from reviewer.ui.plain import text_label
from reviewer.ui.theme import ERROR, MUTED, set_text_colour
from reviewer.ui.workers import Worker


def _create(root: str, images: str | None, labels: list[str]) -> str:
    from reviewer.app.imports import init_project

    project, _ = init_project(root, images=images or None, labels=labels)
    path = str(project.root)
    project.close()
    return path


class QtNewProjectDialog(QDialog):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("New review project")
        self.resize(720, 420)
        self.created_root: str | None = None
        self._worker = Worker(threads=1, name="init", parent=self)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.root = QLineEdit()
        self.root.setPlaceholderText("a new, empty folder")
        self.images = QLineEdit()
        self.images.setPlaceholderText("flat <wnid>_*.JPEG, one folder per wnid, or ILSVRC2012_val_*.JPEG")
        form.addRow("Project folder", _with_browse(self.root, self._browse_root))
        form.addRow("Image folder", _with_browse(self.images, self._browse_images))
        layout.addLayout(form)
        layout.addWidget(QLabel("Label files (TFDS multilabel JSON, the 20k annotated list, ReaL, "
                                "'file_name label' text/CSV):"))
        self.labels = QListWidget()
        layout.addWidget(self.labels, 1)
        row = QHBoxLayout()
        add = QPushButton("Add label files…")
        add.clicked.connect(self._add_labels)
        remove = QPushButton("Remove")
        remove.clicked.connect(lambda: self.labels.takeItem(self.labels.currentRow()))
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        layout.addLayout(row)
        self.message = text_label()
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.create_button = self.buttons.addButton("Create", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.create)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)

    def _browse_root(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder of the new project")
        if folder:
            self.root.setText(folder)

    def _browse_images(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder of images")
        if folder:
            self.images.setText(folder)

    def _add_labels(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Label files", "", "Label files (*.json *.csv *.txt);;All (*)")
        for name in files:
            self.labels.addItem(name)

    def create(self) -> None:
        root = self.root.text().strip()
        images = self.images.text().strip()
        labels = [self.labels.item(i).text() for i in range(self.labels.count())]
        if not root:
            self._say("Choose a folder for the project.", error=True)
            return
        if not images and not labels:
            self._say("Choose an image folder or at least one label file.", error=True)
            return
        self.create_button.setEnabled(False)
        self._say(f"Importing into {Path(root).name}…")
        self._worker.submit(_create, root, images or None, labels, on_done=self._done, on_error=self._failed)

    def _done(self, root: str) -> None:
        self.created_root = root
        self.accept()

    def _failed(self, error: BaseException) -> None:
        self.create_button.setEnabled(True)
        message = str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"
        self._say(message, error=True)

    def _say(self, text: str, *, error: bool = False) -> None:
        set_text_colour(self.message, ERROR if error else MUTED)
        self.message.setText(text)

    def done(self, result: int) -> None:
        self._worker.shutdown()
        super().done(result)


def _with_browse(field: QLineEdit, browse) -> QWidget:
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(field, 1)
    button = QPushButton("Browse…")
    button.clicked.connect(browse)
    row.addWidget(button)
    return box
