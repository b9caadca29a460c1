"""What the two layouts of the official multi-label file share (TFDS
`imagenet2012_multilabel` v3: the JSON behind it and its CSV dump).

The official file lists some classes of an image under two kinds (372 of its
20,000 images: 358 correct and wrong, 15 correct and unclear, 2 unclear and
wrong). Such records are real and are imported as they are; the summary
counts them. Evaluation reads them as the reference does: a prediction is
correct when it is among the correct or unclear labels, so a class also
listed as wrong still counts (`reviewer.labels.labelset`).
"""

from __future__ import annotations

from collections import Counter

from reviewer.importers._plan import ImportPlan
from reviewer.terms import Verdict, values
from reviewer.wording import counted

VAL_PREFIX = "ILSVRC2012_val_"


class MultilabelRecords:
    """Collects the images of a multi-label file into a plan, counting what is worth a note."""

    def __init__(self, plan: ImportPlan):
        self.plan = plan
        self.overlaps: Counter[str] = Counter()
        self.overlap_images = 0
        self.repeat_images = 0
        self.other_images = 0

    def add(self, name: str, kinds: dict[str, list[int]]) -> None:
        """One image's classes by kind ("correct", "wrong", "unclear"), duplicates within a kind dropped."""
        self.plan.image(name)
        self.plan.multilabel_images.append(name)
        if not name.startswith(VAL_PREFIX):
            self.other_images += 1
        seen: dict[int, list[str]] = {}
        if any(len(set(kinds.get(kind, ()))) != len(kinds.get(kind, ())) for kind in values(Verdict)):
            self.repeat_images += 1
        for kind in values(Verdict):
            for cls in dict.fromkeys(kinds.get(kind, ())):
                seen.setdefault(cls, []).append(kind)
                self.plan.labels.append((name, cls, kind))
        both = {" and ".join(k) for k in seen.values() if len(k) > 1}
        if both:
            self.overlap_images += 1
            self.overlaps.update(both)  # images per combination of kinds

    def finish(self) -> ImportPlan:
        if self.overlap_images:
            detail = ", ".join(f"{n} {combo}" for combo, n in self.overlaps.most_common())  # images
            self.plan.notes.append(
                f"{self.overlap_images} images list a class under two kinds ({detail}); kept as in the file "
                "(evaluation counts a class that is correct or unclear as correct, as the reference does)")
        if self.repeat_images:
            self.plan.notes.append(f"{counted(self.repeat_images, 'image')} list{'s' if self.repeat_images == 1 else ''} a class twice under one kind (kept once)")
        if self.other_images:
            self.plan.notes.append(
                f"{self.other_images} images are not ImageNet validation images (e.g. ImageNetV2's); kept and "
                "exported, but left out of MLA as the reference evaluation does")
        return self.plan
