"""The kinds of evidence source, what each is called on screen, and what it covers.

A kind is what a file is, told from its content (`reviewer.evidence.sniff`). One
source of a kind is kept per project (a newer file of that kind replaces the
older), except `FLAWS_RELABELING`: its layout (`id, category, original_label,
proposed_labels, manually_validated`) is shared by several published
relabelings, so each file name is a source of its own.
"""

from __future__ import annotations

import re

from reviewer.terms import StrEnum

VAL_NAME = re.compile(r"^ILSVRC2012_val_(\d{8})\.JPEG$")
VAL_IMAGES = 50_000


class EvidenceKind(StrEnum):
    REAL_LABELS = "real_labels"  # real.json
    REAL_RATERS = "real_raters"  # raters.npz: the crowd's answers
    REAL_EXPERTS = "real_experts"  # golden.npz: the 5 expert raters on the golden questions
    REAL_RATERS_GOLDEN = "real_raters_golden"  # raters_golden.npz: the crowd on the golden questions
    CLEANLAB = "cleanlab"  # imagenet_mturk.json
    CLEANLAB_INDEX = "cleanlab_index"  # imagenet_val_set_index_to_filepath.json (auxiliary)
    CLEANLAB_LABELS = "cleanlab_labels"  # imagenet_val_set_original_labels.npy (auxiliary)
    FLAWS_CLEAN = "flaws_clean"  # clean_validation.csv
    FLAWS_LABEL_ERRORS = "flaws_label_errors"  # label_errors.csv
    FLAWS_RELABELING = "flaws_relabeling"  # finegrained.csv and other files of that layout
    FLAWS_EXPERT = "flaws_expert"  # expert_356_357_358_359.json
    CLASS_GROUPS = "class_groups"  # problem_groups_clusters.json
    TFDS_MULTILABEL = "tfds_multilabel"  # the TFDS v3 multi-labels (CSV dump or JSON)
    IMAGENET_X = "imagenet_x"  # imagenet_x_val_multi_factor.jsonl: how each image differs from its class's typical ones
    IMAGENET_X_TOP = "imagenet_x_top"  # imagenet_x_val_top_factor.jsonl: the main factor of each image

    @property
    def title(self) -> str:
        """The source's short name, as evidence lines begin."""
        return _TITLES[self]

    @property
    def auxiliary(self) -> bool:
        """A file checked and recorded, with nothing to say about an image of its own."""
        return self in (EvidenceKind.CLEANLAB_INDEX, EvidenceKind.CLEANLAB_LABELS)

    @property
    def per_class(self) -> bool:
        """Keyed by class, not by image."""
        return self is EvidenceKind.CLASS_GROUPS

    @property
    def one_per_file_name(self) -> bool:
        return self is EvidenceKind.FLAWS_RELABELING

    @property
    def about_labels(self) -> bool:
        """Says which classes an image holds (the queue's filters, the sources' agreement with the
        panel); ImageNet-X describes the image instead (how it differs from its class's typical ones)."""
        return self not in (EvidenceKind.IMAGENET_X, EvidenceKind.IMAGENET_X_TOP)


_TITLES = {
    EvidenceKind.REAL_LABELS: "ReaL",
    EvidenceKind.REAL_RATERS: "ReaL raters",
    EvidenceKind.REAL_EXPERTS: "ReaL experts",
    EvidenceKind.REAL_RATERS_GOLDEN: "ReaL raters (golden)",
    EvidenceKind.CLEANLAB: "cleanlab",
    EvidenceKind.CLEANLAB_INDEX: "cleanlab index",
    EvidenceKind.CLEANLAB_LABELS: "cleanlab original labels",
    EvidenceKind.FLAWS_CLEAN: "Flaws of ImageNet",
    EvidenceKind.FLAWS_LABEL_ERRORS: "Flaws of ImageNet (label errors)",
    EvidenceKind.FLAWS_RELABELING: "Flaws of ImageNet",  # + the file's stem, see `source_title`
    EvidenceKind.FLAWS_EXPERT: "Flaws of ImageNet (weasel experts)",
    EvidenceKind.CLASS_GROUPS: "class group",
    EvidenceKind.TFDS_MULTILABEL: "TFDS multi-labels",
    EvidenceKind.IMAGENET_X: "ImageNet-X",
    EvidenceKind.IMAGENET_X_TOP: "ImageNet-X (main factor)",
}


def source_title(kind: str, file_name: str) -> str:
    """The short name of a stored source (a relabeling is named by its file: 'Flaws of ImageNet (finegrained)')."""
    kind = EvidenceKind(kind)
    if kind.one_per_file_name:
        stem = file_name.rsplit(".", 1)[0] or file_name
        return f"{kind.title} ({stem})"
    return kind.title


def is_validation_image(name: str) -> bool:
    """One of the 50,000 ImageNet validation images, by its file name."""
    match = VAL_NAME.match(name)
    return bool(match) and 1 <= int(match.group(1)) <= VAL_IMAGES
