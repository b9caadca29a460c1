"""Source reliability: how often each imported evidence source agrees with the panel.

Over the mistakes the panel has decided (items, i.e. (image, predicted class), with a
standing final decision; one item counts once however many models made it), each
per-image evidence source (`reviewer.evidence`; its rule in `reviewer.evidence.verdicts`)
either accepts the prediction, rejects it, or says nothing about it. Agreement:

- the source accepts the prediction and the panel's verdict is "correct", or
- the source rejects the prediction and the panel's verdict is "wrong".

Accepts + "wrong" and rejects + "correct" are disagreements. `n` is agreements +
disagreements: the decided mistakes the source has a word on and the panel judged
correct or wrong. A decision "unclear" is neither (the panel did not settle the
question the source answers), so it is counted apart (`unclear`), not in the share.
A source's silence (it covers the image but says nothing about the predicted class,
as cleanlab on a class that is neither the given nor the guessed label) is counted
apart too (`no_verdict`). The problematic mark does not change the counting.

Share = agreements / n, with the Wilson score 95 % interval (Wilson 1927; recommended
for a binomial proportion over the Wald interval by Brown, Cai & DasGupta 2001,
"Interval estimation for a binomial proportion", Statist. Sci. 16:101-133): with
p = k / n and z = 1.959963984540054,

    centre = (p + z^2 / 2n) / (1 + z^2 / n)
    half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / 4n^2)

Class groups (about classes, not a prediction) and cleanlab's auxiliary files take no
part. A source covering no decided mistake is listed with n = 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd
from sqlalchemy import select
from sqlmodel import Session

from db.tables import Image
from reviewer.evidence import evidence_by_pair, list_sources
from reviewer.evidence.kinds import EvidenceKind
from reviewer.evidence.query import LINE_ORDER
from reviewer.terms import Verdict

Z_95 = 1.959963984540054  # the standard normal's 97.5 % quantile
VERDICTS = (Verdict.CORRECT.value, Verdict.WRONG.value, Verdict.UNCLEAR.value)
SAYS = ("accepts", "rejects")
AGREES = {("accepts", Verdict.CORRECT.value), ("rejects", Verdict.WRONG.value)}
_IN_CHUNK = 900  # image ids per IN (...) query: within any SQLite's parameter limit


def wilson_interval(successes: int, n: int, *, z: float = Z_95) -> tuple[float, float] | None:
    """The Wilson score interval of `successes` of `n` (module docstring); None when n is 0."""
    if n <= 0:
        return None
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class SourceAgreement:
    """One source against the panel's decisions. `confusion[says][verdict]`: the decided mistakes the
    source accepts or rejects, by the panel's verdict; `covered`: decided mistakes whose image it has a
    row on; `no_verdict`: of those, the ones it says nothing about the predicted class."""

    source: str  # the source's short name, as its evidence lines begin
    kind: str
    file_name: str
    confusion: dict[str, dict[str, int]] = field(
        default_factory=lambda: {says: dict.fromkeys(VERDICTS, 0) for says in SAYS})
    covered: int = 0
    no_verdict: int = 0

    @property
    def agreements(self) -> int:
        return sum(self.confusion[says][verdict] for says, verdict in AGREES)

    @property
    def n(self) -> int:
        """Decided mistakes, judged correct or wrong, that the source accepts or rejects."""
        return sum(self.confusion[says][verdict] for says in SAYS for verdict in VERDICTS[:2])

    @property
    def disagreements(self) -> int:
        return self.n - self.agreements

    @property
    def unclear(self) -> int:
        """Decided "unclear" mistakes the source accepts or rejects (not in the share)."""
        return sum(self.confusion[says][Verdict.UNCLEAR.value] for says in SAYS)

    @property
    def share(self) -> float | None:
        return self.agreements / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.agreements, self.n)

    def as_dict(self) -> dict:
        low, high = self.interval or (None, None)
        return {"source": self.source, "kind": self.kind, "file_name": self.file_name, "n": self.n,
                "agreements": self.agreements, "disagreements": self.disagreements, "share": self.share,
                "ci_low": low, "ci_high": high, "unclear": self.unclear, "covered": self.covered,
                "no_verdict": self.no_verdict, "confusion": {says: dict(v) for says, v in self.confusion.items()}}


@dataclass(frozen=True)
class SourceReliability:
    """Every per-image evidence source (in the order of the evidence lines) against the decisions."""

    decided: int = 0  # decided mistakes (items with a final decision, any verdict)
    sources: tuple[SourceAgreement, ...] = ()

    @property
    def note(self) -> str:
        """Why there is nothing to compare, in one line ('' when there is)."""
        if not self.sources:
            return ("No evidence source imported (reviewer import-evidence PROJECT FILE...): nothing to compare the "
                    "panel's decisions with.")
        if not self.decided:
            return "No mistake has a final decision yet: nothing to compare the evidence sources with."
        return ""

    def as_dict(self) -> dict:
        return {"decided": self.decided, "note": self.note, "sources": [s.as_dict() for s in self.sources]}


def _comparable_sources(session: Session) -> list:
    rank = {kind: i for i, kind in enumerate(LINE_ORDER)}
    sources = [s for s in list_sources(session=session)
               if s.kind in rank and not EvidenceKind(s.kind).per_class and EvidenceKind(s.kind).about_labels]
    return sorted(sources, key=lambda s: (rank[s.kind], s.id))


def source_agreement(*, session: Session, decisions: pd.DataFrame) -> SourceReliability:
    """Each evidence source against `decisions` (`reviewer.panel.final.decisions_table`, or with the
    provisional decisions in place: `reviewer.analysis.provisional.with_provisional`)."""
    sources = _comparable_sources(session)
    decided = decisions[decisions["verdict"].isin(VERDICTS)]
    if not sources or decided.empty:
        return SourceReliability(decided=len(decided), sources=tuple(
            SourceAgreement(source=s.title, kind=s.kind, file_name=s.file_name) for s in sources))
    ids = sorted({int(i) for i in decided["image_id"]})
    names = {}
    for start in range(0, len(ids), _IN_CHUNK):
        names.update(session.execute(select(Image.id, Image.file_name).where(
            Image.id.in_(ids[start:start + _IN_CHUNK]))).all())
    items = [(names[int(i)], int(p), str(v)) for i, p, v in zip(decided["image_id"], decided["predicted"],
                                                                  decided["verdict"]) if int(i) in names]
    found = evidence_by_pair(session, [(name, predicted) for name, predicted, _ in items])
    confusion = {s.title: {says: dict.fromkeys(VERDICTS, 0) for says in SAYS} for s in sources}
    covered = dict.fromkeys(confusion, 0)
    for name, predicted, verdict in items:
        said = found[(name, predicted)]
        for title in said.covered_by:
            covered[title] += 1
        for says, titles in (("accepts", said.accepted_by), ("rejects", said.rejected_by)):
            for title in titles:
                confusion[title][says][verdict] += 1
    out = []
    for s in sources:
        spoken = sum(sum(by_verdict.values()) for by_verdict in confusion[s.title].values())
        out.append(SourceAgreement(source=s.title, kind=s.kind, file_name=s.file_name, confusion=confusion[s.title],
                                   covered=covered[s.title], no_verdict=covered[s.title] - spoken))
    return SourceReliability(decided=len(decided), sources=tuple(out))


def agreement_frame(reliability: SourceReliability) -> pd.DataFrame:
    """One row per source: source, n, agreements, share, ci_low, ci_high, unclear, covered, no_verdict
    (share and interval NaN where n is 0), for the plot."""
    rows = []
    for s in reliability.sources:
        low, high = s.interval or (math.nan, math.nan)
        rows.append({"source": s.source, "n": s.n, "agreements": s.agreements,
                     "share": math.nan if s.share is None else s.share, "ci_low": low, "ci_high": high,
                     "unclear": s.unclear, "covered": s.covered, "no_verdict": s.no_verdict})
    return pd.DataFrame(rows, columns=["source", "n", "agreements", "share", "ci_low", "ci_high", "unclear",
                                       "covered", "no_verdict"])
