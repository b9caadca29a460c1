"""Whether a source accepts a class for an image: the one home of each source's rule.

`verdict(kind, payload, cls)` is ACCEPTS, REJECTS or None (the source says
nothing either way about that class). Rules:

- ReaL labels: accepts its labels, rejects every other class; an image ReaL
  leaves out ([]) gets no word.
- ReaL rater answers (crowd, experts, golden): the raters' consensus on that
  (image, class) question, Dawid–Skene's posterior that the class is in the image
  (`reviewer.evidence.consensus`: raw counts mislead, the raters differ in
  reliability): at least ReaL's 0.8 accepts, absent with at least 0.8 rejects, else no
  word. A source imported before the consensus was stored falls back to a strict
  majority of the answers (yes > half accepts, no > half rejects). A question not
  asked: no word.
- cleanlab: only about the given and the guessed label. For the guessed label
  the MTurk answers `guessed` and `both` count for it, `given` and `neither`
  against (the other way round for the given label); a majority of the five decides.
- Flaws of ImageNet, label errors: the MTurk majority's category, only about
  the given and the guessed label (X, no majority: no word).
- Flaws of ImageNet, clean set and relabelings: accepts the proposed labels and
  rejects the rest (a relabeling's X, ambiguous: no word; Z, no label: rejects).
- Flaws of ImageNet, weasel experts: accepts the expert's class(es), rejects
  others; custom (no ImageNet class fits) rejects all; uncertain: no word.
- TFDS multi-labels: accepts correct and unclear labels (as the reference
  evaluation counts them), rejects every other class.
- Class groups and the auxiliary files say nothing about a prediction.
"""

from __future__ import annotations

from reviewer.evidence.consensus import REAL_THRESHOLD, consensus_of
from reviewer.evidence.kinds import EvidenceKind

ACCEPTS = "accepts"
REJECTS = "rejects"

RATER_KINDS = (EvidenceKind.REAL_RATERS, EvidenceKind.REAL_EXPERTS, EvidenceKind.REAL_RATERS_GOLDEN)


def rater_counts(payload: dict, cls: int) -> tuple[int, int, int] | None:
    """(no, maybe, yes) of the question about `cls`, None when it was not asked."""
    for asked, no, maybe, yes in payload.get("answers", ()):
        if asked == cls:
            return no, maybe, yes
    return None


def _majority(for_: int, against: int, total: int) -> str | None:
    if total and 2 * for_ > total:
        return ACCEPTS
    if total and 2 * against > total:
        return REJECTS
    return None


def verdict(kind: EvidenceKind | str, payload: dict | None, cls: int) -> str | None:
    """ACCEPTS, REJECTS or None: what the source's row on an image says about class `cls`."""
    if payload is None:
        return None
    kind = EvidenceKind(kind)
    if kind is EvidenceKind.REAL_LABELS:
        labels = payload["labels"]
        return None if not labels else ACCEPTS if cls in labels else REJECTS
    if kind in RATER_KINDS:
        posterior = consensus_of(payload, cls)
        if posterior is not None:
            return ACCEPTS if posterior >= REAL_THRESHOLD else REJECTS if 1 - posterior >= REAL_THRESHOLD else None
        counts = rater_counts(payload, cls)
        if counts is None:
            return None
        no, maybe, yes = counts
        return _majority(yes, no, no + maybe + yes)
    if kind is EvidenceKind.CLEANLAB:
        mturk = payload["mturk"]
        total = sum(mturk.values())
        if cls == payload["guessed"]:
            return _majority(mturk["guessed"] + mturk["both"], mturk["given"] + mturk["neither"], total)
        if cls == payload["given"]:
            return _majority(mturk["given"] + mturk["both"], mturk["guessed"] + mturk["neither"], total)
        return None
    if kind is EvidenceKind.FLAWS_LABEL_ERRORS:
        if cls not in (payload["original"], payload["guessed"]) or payload["category"] == "X":
            return None
        return ACCEPTS if cls in payload["proposed"] else REJECTS
    if kind is EvidenceKind.FLAWS_CLEAN:
        return ACCEPTS if cls in payload["proposed"] else REJECTS
    if kind is EvidenceKind.FLAWS_RELABELING:
        if payload["category"] == "X":
            return None
        return ACCEPTS if cls in payload["proposed"] else REJECTS
    if kind is EvidenceKind.FLAWS_EXPERT:
        if payload["type"] == "uncertain":
            return None
        return ACCEPTS if cls in (payload["new"] or ()) else REJECTS
    if kind is EvidenceKind.TFDS_MULTILABEL:
        return ACCEPTS if cls in payload["correct"] or cls in payload["unclear"] else REJECTS
    return None
