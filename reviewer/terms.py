"""The review vocabularies, one `StrEnum` each: what a verdict, a severity, a
failure category, a run status or a decision method can be.

Members compare equal to their stored strings (`Verdict.WRONG == "wrong"`),
so the database, JSON files and pandas tables hold plain strings while the
code names the values once. Each vocabulary carries its display titles, the
command line takes its choices from it, the window its labels and colours,
and the database enforces it (CHECK constraints, migration 0004).
`normalise_*` maps the spellings of published files onto the members.
"""

from __future__ import annotations

from enum import Enum, IntEnum

try:
    from enum import StrEnum
except ImportError:  # Python 3.10
    class StrEnum(str, Enum):
        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, spec: str) -> str:
            return format(str(self.value), spec)


class Verdict(StrEnum):
    """A panelist's judgement of a prediction, and the kind of a label of an image."""

    CORRECT = "correct"
    WRONG = "wrong"
    UNCLEAR = "unclear"

    @property
    def caption(self) -> str:
        return self.value.capitalize()


class Severity(StrEnum):
    """How bad a mistake is. The panel rates major or minor; published reviews also say
    Borderline, which the paper's analysis counts as minor."""

    MAJOR = "major"
    MINOR = "minor"
    BORDERLINE = "borderline"

    @property
    def caption(self) -> str:
        return self.value.capitalize()

    @classmethod
    def panel(cls) -> tuple["Severity", ...]:
        """The severities a panelist or the chair may give."""
        return (cls.MAJOR, cls.MINOR)


class Category(StrEnum):
    """The paper's four failure categories."""

    FINE_GRAINED = "fine_grained"
    FINE_GRAINED_OOV = "fine_grained_oov"
    SPURIOUS_CORRELATION = "spurious_correlation"
    NON_PROTOTYPICAL = "non_prototypical"

    @property
    def caption(self) -> str:
        return _CATEGORY_TITLES[self]

    @property
    def short_caption(self) -> str:
        return _CATEGORY_SHORT[self]

    @property
    def published(self) -> str:
        """The spelling the imagenet-mistakes files use."""
        return _CATEGORY_PUBLISHED[self]

    @property
    def needs_name(self) -> bool:
        """An out-of-vocabulary object is named (the one home of that rule)."""
        return self is Category.FINE_GRAINED_OOV


_CATEGORY_TITLES = {
    Category.FINE_GRAINED: "Fine-grained",
    Category.FINE_GRAINED_OOV: "Fine-grained with out-of-vocabulary object",
    Category.SPURIOUS_CORRELATION: "Spurious correlation",
    Category.NON_PROTOTYPICAL: "Non-prototypical",
}
_CATEGORY_SHORT = {
    Category.FINE_GRAINED: "Fine-grained",
    Category.FINE_GRAINED_OOV: "Fine-grained OOV",
    Category.SPURIOUS_CORRELATION: "Spurious corr.",
    Category.NON_PROTOTYPICAL: "Non-prototypical",
}
_CATEGORY_PUBLISHED = {
    Category.FINE_GRAINED: "Fine-grained error",
    Category.FINE_GRAINED_OOV: "Fine-grained error with OOV",
    Category.SPURIOUS_CORRELATION: "Spurious Correlation",
    Category.NON_PROTOTYPICAL: "Non-prototypical",
}

# The display titles keyed by the stored strings, for tables and plots whose columns are those strings.
CATEGORY_TITLES = {c.value: c.caption for c in Category}
CATEGORY_SHORT_TITLES = {c.value: c.short_caption for c in Category}
SEVERITY_TITLES = {s.value: s.caption for s in Severity}


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETE = "complete"
    CANCELLED = "cancelled"
    FAILED = "failed"


class Precision(StrEnum):
    """The number format a model run's forward passes compute in (`models.PRECISIONS`),
    recorded with the run and part of its identity for resuming. fp32 is exact on every
    device (TF32 off on a GPU); tf32 lets an NVIDIA GPU's TF32 units do fp32 work; bf16
    and fp16 run the forward pass under autocast. The softmax is float32 in every case."""

    FP32 = "fp32"
    TF32 = "tf32"
    BF16 = "bf16"
    FP16 = "fp16"

    @property
    def caption(self) -> str:
        return _PRECISION_CAPTIONS[self]

    @property
    def explanation(self) -> str:
        """One line: what the choice computes and what it costs in exactness."""
        return _PRECISION_EXPLANATIONS[self]

    @staticmethod
    def without_gpu(device_type: str) -> str:
        """One line: which choices apply on a device of this type ("cpu", "mps"); "" on a GPU."""
        if device_type == "cpu":
            return ("Without a GPU: fp32 is exact; tf32 computes exactly as fp32; bf16 and fp16 run under the "
                    "CPU's autocast, faster than fp32 only on a CPU with bf16/fp16 units (AMX).")
        if device_type == "mps":
            return "On Apple MPS: tf32 computes exactly as fp32; bf16 and fp16 run under MPS autocast."
        return ""


_PRECISION_CAPTIONS = {
    Precision.FP32: "fp32, exact (default)",
    Precision.TF32: "tf32 (NVIDIA GPU)",
    Precision.BF16: "bf16 autocast",
    Precision.FP16: "fp16 autocast",
}
# Figures measured on an H200 (docs/benchmarks.md): cuDNN's TF32 moved probabilities by up
# to 0.0029; bf16 moved Lite0's by up to 0.052 (2 of 300 top-1 changed) and ran ViT-B/16's
# forward pass 7 times as fast.
_PRECISION_EXPLANATIONS = {
    Precision.FP32: "Exact: the probabilities of timm's fp32 reference, on every device.",
    Precision.TF32: "fp32 with a GPU's TF32 matrix units: faster, probabilities differ by up to about 0.003.",
    Precision.BF16: "bfloat16 autocast: up to 7x faster on a GPU; probabilities differ by up to about 0.05, "
                    "a near tie's top-1 may change.",
    Precision.FP16: "float16 autocast: faster on a GPU; probabilities differ slightly, a near tie's top-1 may change.",
}


class DecisionMethod(StrEnum):
    """How a final-decision row came about. A majority lock or the chair's override
    settles the item; a reopening unsettles it until the next lock. UNANIMOUS is never
    stored: it marks the decision read from a unanimous panel's votes
    (reviewer.panel.final)."""

    MAJORITY = "majority"
    OVERRIDE = "override"
    REOPENED = "reopened"
    UNANIMOUS = "unanimous"

    @property
    def settles(self) -> bool:
        return self is not DecisionMethod.REOPENED

    @property
    def stored(self) -> bool:
        """Whether a decision row may carry it (the database's CHECK lists these)."""
        return self is not DecisionMethod.UNANIMOUS


class Phase(IntEnum):
    """The panel's two phases (reviewer.panel.phases): correctness (verdict and the
    problematic flag), then rating (severity and category) of what stands wrong. Members
    equal their numbers, which the command line and the window print."""

    CORRECTNESS = 1
    RATING = 2

    def __str__(self) -> str:  # "1", as Python 3.11's IntEnum prints, on 3.10 too
        return str(self.value)

    @property
    def title(self) -> str:
        return "Phase 1, correctness" if self is Phase.CORRECTNESS else "Phase 2, severity and category"


# Spellings in google-research/imagenet-mistakes (and close variants).
_CATEGORY_SPELLINGS = {
    "fine-grained error": Category.FINE_GRAINED,
    "fine-grained": Category.FINE_GRAINED,
    "fine grained": Category.FINE_GRAINED,
    # One record of the published ViT-3B review; the paper folds it into fine-grained.
    "fine-grained with multilabel options": Category.FINE_GRAINED,
    "fine-grained error with oov": Category.FINE_GRAINED_OOV,
    "fine-grained with oov": Category.FINE_GRAINED_OOV,
    "fine-grained with out-of-vocabulary": Category.FINE_GRAINED_OOV,
    "spurious correlation": Category.SPURIOUS_CORRELATION,
    "spurious correlations": Category.SPURIOUS_CORRELATION,
    "non-prototypical": Category.NON_PROTOTYPICAL,
    "non prototypical": Category.NON_PROTOTYPICAL,
}


def normalise_category(text: str) -> Category | None:
    """The category of a published spelling, or None if unknown."""
    key = text.strip().lower().replace("_", " ")
    try:
        return Category(key.replace(" ", "_"))
    except ValueError:
        return _CATEGORY_SPELLINGS.get(key)


def normalise_severity(text: str) -> Severity | None:
    try:
        return Severity(text.strip().lower())
    except ValueError:
        return None


def values(vocabulary: type[StrEnum]) -> list[str]:
    """The stored strings of a vocabulary, in order (for CLI choices and messages)."""
    return [member.value for member in vocabulary]


VALIDATION_IMAGES = 50_000  # ILSVRC2012's validation set: ILSVRC2012_val_00000001.JPEG to ..._00050000.JPEG
