"""The reviewed mistakes of a project, as the window lists them where there is no run to
review: a project made from label files and published reviews (`reviewer init --labels`,
`reviewer import-review`) has no image files, so no model can run over it, yet its
reviews hold hundreds of judged mistakes.

The rows are `reviewer.review.reviewed_mistakes`' (the table the report and the
imagenet-mistakes export read, so the three cannot disagree); one item's facts are
`reviewer.app.show`'s record, the one `reviewer show` prints.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from reviewer.items import Item
from reviewer.project import Project


@dataclass(frozen=True)
class ReviewedRow:
    """One reviewed mistake: a model's prediction on an image, judged wrong by a published
    review (`source` "imported") or by the panel's final decision ("panel"), with the
    category and severity as the review spelled them (else the canonical names)."""

    model: str
    source: str
    item: Item
    file_name: str
    original_label: int | None
    category: str | None
    severity: str | None
    has_file: bool


@dataclass(frozen=True)
class ReviewedList:
    rows: tuple[ReviewedRow, ...]
    images: int  # the project's images
    with_files: int  # of which have an image file

    def by_model(self) -> dict[str, int]:
        """Reviewed mistakes per model, in the rows' order."""
        return dict(Counter(row.model for row in self.rows))

    def describe(self) -> str:
        """One line: what the project holds and what the list shows."""
        models = ", ".join(f"{model}: {count}" for model, count in self.by_model().items())
        files = "none" if not self.with_files else f"{self.with_files}"
        return (f"{len(self.rows)} reviewed mistakes ({models}) · {self.images} images, {files} with an image "
                "file")

    def what_to_do(self, *, run_keys: str = "Ctrl+R") -> str:
        """How the project gets a run whose mistakes the panel can vote on."""
        if self.with_files:
            return f"No model has run over the project's images yet: Run model… ({run_keys}) lists its mistakes."
        return ("No model can run here: the images have no files. Add them with 'reviewer import-images PROJECT "
                "FOLDER', or import a run's logits computed elsewhere with 'reviewer import-logits PROJECT FILE "
                "--model NAME'.")


def reviewed_list(project: Project) -> ReviewedList:
    """The project's reviewed mistakes (`reviewer.review.reviewed_mistakes`), one read."""
    from sqlalchemy import func, select

    from db.tables import Image
    from reviewer.review.reviewed_mistakes import reviewed_mistakes

    with project.read() as session:
        frame = reviewed_mistakes(session=session)
        images = session.execute(select(func.count(Image.id))).scalar_one()
        with_files = session.execute(select(func.count(Image.id)).where(Image.path.is_not(None))).scalar_one()
        ids = [int(i) for i in frame["image_id"].unique()]
        filed = set(session.execute(select(Image.id).where(Image.id.in_(ids), Image.path.is_not(None)))
                    .scalars()) if with_files and ids else set()
    rows = tuple(
        ReviewedRow(model=str(r.model), source=str(r.source), item=Item(int(r.image_id), int(r.predicted)),
                    file_name=str(r.file_name), original_label=None if r.original_label < 0 else int(r.original_label),
                    category=r.category_raw or r.category, severity=r.severity_raw or r.severity,
                    has_file=int(r.image_id) in filed)
        for r in frame.itertuples(index=False))
    return ReviewedList(rows=rows, images=int(images), with_files=int(with_files))


def reviewed_record(project: Project, row: ReviewedRow, *, viewer: str | None = None) -> tuple[str, str | None]:
    """(the text `reviewer show` prints of the row's item, its image file or None), for the
    list's facts pane: the labels, WordNet, every published review's word on the image, the
    panel's votes (as the blind rule lets `viewer` see them) and the evidence."""
    from reviewer.app.show import format_record, show_mistake

    record = show_mistake(project, image=row.file_name, predicted=row.item.predicted, viewer=viewer)
    image = record["image"]
    return format_record(record), image["path"] if image["file_exists"] else None
