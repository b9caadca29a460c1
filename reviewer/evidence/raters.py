"""ReaL's raw rater answers (google-research/reassessed-imagenet): `raters.npz`,
`golden.npz`, `raters_golden.npz`.

Each archive holds `tensor` (R x N x 3: a 1 where rater r answered question n
with no / maybe / yes), `info` (N pairs: image file name, class index; the
question "is this class in the image?") and `ids` (R rater ids). Stored per
image as counts per asked class and the raters' consensus on it (Dawid–Skene's
posterior that the class is in the image, `reviewer.evidence.consensus`),
`{"answers": [[class, no, maybe, yes], ...], "consensus": [[class, p], ...]}`,
not the raw tensor.

The three files share one layout, so their kind is told from the answers:
in the golden files every rater answered every question (5 experts in
`golden.npz`, the 78 crowd raters in `raters_golden.npz`); in `raters.npz`
each question went to a few of the 85 raters.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from reviewer.errors import InputError
from reviewer.evidence._npz import iter_rows, load_array, npz_members
from reviewer.evidence.consensus import REAL_THRESHOLD, fit_rater_consensus
from reviewer.evidence.kinds import EvidenceKind
from reviewer.evidence.parsed import ParsedSource
from reviewer.importers._read import class_of_label, image_name

MEMBERS = ("tensor", "info", "ids")
EXPERT_PANEL_MAX = 10  # a golden file with at most this many raters is the experts'
ANSWERS = ("no", "maybe", "yes")


def looks_like(members: list[str]) -> bool:
    return set(MEMBERS) <= set(members)


def parse(path: str | Path, sha256: str) -> ParsedSource:
    source = str(path)
    members = npz_members(path)
    if not looks_like(members):
        raise InputError(source, f"an .npz archive of the arrays {', '.join(members) or 'none'}; ReaL's rater "
                                 f"answers hold {', '.join(MEMBERS)}", hint="is it the right file?")
    info, ids = load_array(path, "info"), load_array(path, "ids")
    if info.ndim != 2 or info.shape[1] != 2 or info.dtype.kind not in "US":
        raise InputError(source, f"'info' must be N pairs of (file name, class index) strings, got shape "
                                 f"{info.shape} of {info.dtype}")
    if ids.ndim != 1 or ids.dtype.kind not in "iu":
        raise InputError(source, f"'ids' must be a list of integer rater ids, got shape {ids.shape} of {ids.dtype}")
    raters, questions = len(ids), len(info)
    shape, rows = iter_rows(path, "tensor")
    if shape != (raters, questions, 3):
        raise InputError(source, f"'tensor' has shape {shape}, but 'ids' names {raters} raters and 'info' "
                                 f"{questions} questions (expected {raters} x {questions} x 3)")
    counts = np.zeros((questions, 3), dtype=np.int64)
    given: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (rater, question, answer) of every answer
    try:
        for r, answers in enumerate(rows):
            bad = (answers != 0) & (answers != 1)
            if bad.any():
                n = int(np.argwhere(bad)[0][0])
                raise InputError(source, f"'tensor' holds {answers[n].tolist()} for rater {int(ids[r])} on question "
                                         f"{n}; an answer is a 1 under no, maybe or yes", record=f"question {n}")
            several = answers.sum(axis=1) > 1
            if several.any():
                n = int(np.flatnonzero(several)[0])
                raise InputError(source, f"rater {int(ids[r])} gave several answers to question {n} "
                                         f"({answers[n].tolist()})", record=f"question {n}")
            counts += answers.astype(np.int64)
            asked, answer = np.nonzero(answers)
            given.append((np.full(len(asked), r), asked, answer))
    finally:
        rows.close()  # the archive, also when a bad answer stops the reading early
    names = _checked(info[:, 0], source, lambda v, rec: image_name(v, source=source, record=rec))
    classes = _checked(info[:, 1], source, lambda v, rec: class_of_label(v, source=source, record=rec))
    per_image: dict[str, dict[int, np.ndarray]] = defaultdict(dict)
    task_of: dict[tuple[str, int], int] = {}  # a question asked twice is one task of the consensus
    repeated = 0
    for n in range(questions):
        asked = per_image[names[n]]
        cls = classes[n]
        task_of.setdefault((names[n], cls), len(task_of))
        if cls in asked:
            repeated += 1
            asked[cls] = asked[cls] + counts[n]
        else:
            asked[cls] = counts[n]
    present = _consensus(given, [task_of[(names[n], classes[n])] for n in range(questions)], len(task_of), raters)
    items = {name: {"answers": [[cls, *map(int, c)] for cls, c in sorted(asked.items())],
                    "consensus": [[cls, round(float(present[task_of[(name, cls)]]), 6)] for cls in sorted(asked)]}
             for name, asked in per_image.items()}
    per_question = counts.sum(axis=1)
    everyone = questions > 0 and bool(np.all(per_question == raters))
    kind = (EvidenceKind.REAL_RATERS if not everyone else
            EvidenceKind.REAL_EXPERTS if raters <= EXPERT_PANEL_MAX else EvidenceKind.REAL_RATERS_GOLDEN)
    figures = {"images": len(items), "questions": questions, "raters": raters,
               "answers": int(counts.sum()),
               f"questions the raters' consensus accepts (Dawid–Skene, at least {REAL_THRESHOLD})":
                   int((present >= REAL_THRESHOLD).sum())}
    if repeated:
        figures["questions asked twice (answers added)"] = repeated
    return ParsedSource(kind=kind, path=Path(path), sha256=sha256, items=items, figures=figures)


def _consensus(given, task_of_question: list[int], n_tasks: int, n_raters: int) -> np.ndarray:
    """P(present) of every task (unique image and class) from every answer."""
    if not n_tasks:
        return np.zeros(0)
    raters_, asked, answers = (np.concatenate(a) for a in zip(*given)) if given else (np.zeros(0, int),) * 3
    tasks = np.asarray(task_of_question, dtype=np.int64)[asked]
    fit = fit_rater_consensus(tasks, raters_, answers, n_tasks=n_tasks, n_raters=n_raters)
    return fit.posteriors[:, 1]


def _checked(values: np.ndarray, source: str, check) -> list:
    """Each value checked once (names and classes repeat across questions), then mapped back."""
    unique, inverse = np.unique(values, return_inverse=True)
    checked = []
    for i, value in enumerate(unique.tolist()):
        try:
            checked.append(check(value, None))
        except InputError:
            n = int(np.flatnonzero(inverse.ravel() == i)[0])
            check(value, f"question {n}")  # raises again, naming the first question that has it
    return [checked[i] for i in inverse.ravel().tolist()]
