"""The review vocabulary: verdicts, severities and failure categories.

Names are stored in the database in their canonical (snake_case) form;
`normalise_*` maps the spellings found in published files onto them.
"""

from __future__ import annotations

VERDICTS = ("correct", "wrong", "unclear")
LABEL_KINDS = VERDICTS  # a label of an image is judged correct, wrong or unclear
SEVERITIES = ("major", "minor")
# Published reviews also use "Borderline"; the paper's analysis counts it as minor.
IMPORTED_SEVERITIES = ("major", "minor", "borderline")
CATEGORIES = ("fine_grained", "fine_grained_oov", "spurious_correlation", "non_prototypical")

CATEGORY_TITLES = {
    "fine_grained": "Fine-grained",
    "fine_grained_oov": "Fine-grained with out-of-vocabulary object",
    "spurious_correlation": "Spurious correlation",
    "non_prototypical": "Non-prototypical",
}
SEVERITY_TITLES = {"major": "Major", "minor": "Minor", "borderline": "Borderline"}

# Spellings in google-research/imagenet-mistakes (and close variants).
_CATEGORY_SPELLINGS = {
    "fine-grained error": "fine_grained",
    "fine-grained": "fine_grained",
    "fine grained": "fine_grained",
    # One record of the published ViT-3B review; the paper folds it into fine-grained.
    "fine-grained with multilabel options": "fine_grained",
    "fine-grained error with oov": "fine_grained_oov",
    "fine-grained with oov": "fine_grained_oov",
    "fine-grained with out-of-vocabulary": "fine_grained_oov",
    "spurious correlation": "spurious_correlation",
    "spurious correlations": "spurious_correlation",
    "non-prototypical": "non_prototypical",
    "non prototypical": "non_prototypical",
}


def normalise_category(text: str) -> str | None:
    """Canonical category for a published spelling, or None if unknown."""
    key = text.strip().lower().replace("_", " ")
    if key.replace(" ", "_") in CATEGORIES:
        return key.replace(" ", "_")
    return _CATEGORY_SPELLINGS.get(key)


def normalise_severity(text: str) -> str | None:
    key = text.strip().lower()
    return key if key in IMPORTED_SEVERITIES else None


def published_category(category: str) -> str:
    """The spelling the imagenet-mistakes files use for a canonical category."""
    return {
        "fine_grained": "Fine-grained error",
        "fine_grained_oov": "Fine-grained error with OOV",
        "spurious_correlation": "Spurious Correlation",
        "non_prototypical": "Non-prototypical",
    }[category]


def published_severity(severity: str) -> str:
    return SEVERITY_TITLES[severity]
