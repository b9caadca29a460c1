"""Inter-rater agreement of the panel, per field and per phase.

For each field (verdict and problematic in phase 1, severity and category in
phase 2), over the items of that phase:
- percent agreement: the mean, over items with at least two votes, of the
  share of agreeing panelist pairs (Fleiss' P-bar; 1.0 when everyone agrees);
  and the share of items voted by everyone that are unanimous;
- Krippendorff's alpha, nominal (severity also ordinal: minor < major), from
  the `krippendorff` package; it uses every item with two or more votes;
- Fleiss' kappa (statsmodels) over the items every panelist has voted (it
  needs the same number of ratings per item);
- Gwet's AC1 (Gwet 2008, "Computing inter-rater reliability and its variance
  in the presence of high agreement", Br. J. Math. Stat. Psychol. 61, 29-48;
  the multi-rater form with missing ratings of Gwet's Handbook of Inter-Rater
  Reliability, 4th ed., 2014, as the irrCAC package computes it): kappa and
  alpha drop towards 0 when nearly every vote is one value (a panel that
  agrees on 95 % of its verdicts can show a kappa near 0: the "kappa
  paradox"); AC1's chance agreement shrinks as the votes crowd into one value;
- bootstrap 95% intervals of all three: items resampled with replacement,
  percentiles 2.5 and 97.5, a seeded generator so a report is reproducible;
- Cohen's kappa of every pair of panelists (statsmodels, on their
  contingency table) and, per pair, the items where they disagree.

Statistics that are undefined (fewer than two items, or a single value
used throughout so chance agreement is total) are None, not NaN.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Hashable, Mapping, Sequence

import numpy as np

from reviewer.items import Item
from reviewer.panel.phases import phase_items
from reviewer.panel.snapshot import FIELD_PHASE, FIELDS, PanelSnapshot
from reviewer.terms import Category, Severity, Verdict

# The values each field can take, in order (severity's order is its ordinal scale).
FIELD_VALUES: dict[str, tuple] = {
    "verdict": tuple(Verdict),
    "problematic": (False, True),
    "severity": (Severity.MINOR, Severity.MAJOR),  # minor < major
    "category": tuple(Category),
}
ORDINAL_FIELDS = ("severity",)

Ratings = Mapping[Hashable, Mapping[Hashable, Hashable]]  # rater -> unit -> value


@dataclass(frozen=True)
class Estimate:
    value: float | None
    low: float | None = None  # bootstrap 95% interval
    high: float | None = None


@dataclass(frozen=True)
class FieldAgreement:
    phase: int
    field: str
    raters: int
    items: int  # items with at least two votes on the field
    complete_items: int  # items every rater voted (Fleiss' kappa uses these)
    unanimous_share: float | None
    percent: Estimate
    alpha_nominal: Estimate
    alpha_ordinal: Estimate | None  # ordinal fields only
    fleiss_kappa: Estimate
    gwet_ac1: Estimate = Estimate(None)


def value_counts(ratings: Ratings, *, values: Sequence) -> tuple[np.ndarray, list]:
    """[units, values] counts of each value per unit, and the units in order."""
    index = {v: i for i, v in enumerate(values)}
    units = sorted({u for per_rater in ratings.values() for u in per_rater}, key=repr)
    position = {u: i for i, u in enumerate(units)}
    counts = np.zeros((len(units), len(values)), dtype=np.int64)
    for per_rater in ratings.values():
        for unit, value in per_rater.items():
            if value not in index:
                raise ValueError(f"value {value!r} is not one of {list(values)}")
            counts[position[unit], index[value]] += 1
    return counts, units


def _finite_or_none(x) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None


def percent_agreement(counts: np.ndarray) -> float | None:
    """Mean share of agreeing rater pairs over units with two or more ratings."""
    m = counts.sum(axis=1)
    keep = m >= 2
    if not keep.any():
        return None
    c, m = counts[keep], m[keep]
    return float(np.mean((c * (c - 1)).sum(axis=1) / (m * (m - 1))))


def alpha(counts: np.ndarray, *, level: str = "nominal") -> float | None:
    """Krippendorff's alpha from value counts (the package does the computing)."""
    if (counts.sum(axis=1) >= 2).sum() < 1:
        return None
    import krippendorff  # loaded when an agreement is computed, not with the window

    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return _finite_or_none(krippendorff.alpha(value_counts=counts, level_of_measurement=level))
    except (ValueError, ZeroDivisionError):
        return None


def fleiss(counts: np.ndarray, *, raters: int) -> float | None:
    """Fleiss' kappa over the units rated by all `raters` raters."""
    full = counts[counts.sum(axis=1) == raters]
    if raters < 2 or len(full) < 2:
        return None
    # Imported here: statsmodels takes seconds to import (scipy.stats), which
    # a window or a `reviewer vote` should not pay before it needs kappa.
    from statsmodels.stats.inter_rater import fleiss_kappa

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _finite_or_none(fleiss_kappa(full, method="fleiss"))


def gwet_ac1(counts: np.ndarray) -> float | None:
    """Gwet's AC1 from value counts [units, values] (every value of the scale a column, used or not).

    p_a: the mean over units with two or more ratings of the share of agreeing rater pairs;
    p_e = Σ_k π_k (1 − π_k) / (q − 1), where π_k is the mean over units with a rating of the
    share of that unit's ratings in value k and q the number of values; AC1 = (p_a − p_e) / (1 − p_e)
    (Gwet 2014, Handbook of Inter-Rater Reliability, 4th ed., ch. 4; irrCAC's `gwet.ac1.raw`)."""
    counts = np.asarray(counts, dtype=float)
    m = counts.sum(axis=1)
    rated, paired = counts[m >= 1], m >= 2
    q = counts.shape[1]
    if not paired.any() or q < 2:
        return None
    pa = float(np.mean((counts[paired] * (counts[paired] - 1)).sum(axis=1) / (m[paired] * (m[paired] - 1))))
    pi = (rated / m[m >= 1, None]).mean(axis=0)
    pe = float((pi * (1 - pi)).sum() / (q - 1))
    return (pa - pe) / (1 - pe)  # p_e <= 1/q: never 1


def bootstrap(statistic, counts: np.ndarray, *, resamples: int, seed: int) -> tuple[float | None, float | None]:
    """95% percentile interval of `statistic(counts)` with units resampled."""
    if resamples <= 0 or len(counts) < 2:
        return None, None
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(counts), size=(resamples, len(counts)))
    values = [v for v in (statistic(counts[p]) for p in picks) if v is not None]
    if len(values) < max(10, resamples // 10):  # mostly undefined: no honest interval
        return None, None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def _estimate(statistic, counts, *, resamples, seed) -> Estimate:
    return Estimate(statistic(counts), *bootstrap(statistic, counts, resamples=resamples, seed=seed))


def field_agreement(ratings: Ratings, *, values: Sequence, ordinal: bool = False, phase: int = 0,
                    field: str = "", resamples: int = 1000, seed: int = 0) -> FieldAgreement:
    """All statistics of one field from {rater: {unit: value}}; `values` in scale order."""
    counts, _ = value_counts(ratings, values=values)
    # AC1's chance agreement counts every item with a vote (Gwet); no other statistic uses a single
    # vote, so the others leave those items out of their resampling too.
    rated = counts[counts.sum(axis=1) >= 1]
    counts = counts[counts.sum(axis=1) >= 2]
    raters = len(ratings)
    totals = counts.sum(axis=1)
    complete = counts[totals == raters]
    kw = dict(resamples=resamples, seed=seed)
    return FieldAgreement(
        phase=phase, field=field, raters=raters, items=int((totals >= 2).sum()), complete_items=len(complete),
        unanimous_share=float((complete.max(axis=1) == raters).mean()) if len(complete) and raters >= 2 else None,
        percent=_estimate(percent_agreement, counts, **kw),
        alpha_nominal=_estimate(lambda c: alpha(c, level="nominal"), counts, **kw),
        alpha_ordinal=_estimate(lambda c: alpha(c, level="ordinal"), counts, **kw) if ordinal else None,
        fleiss_kappa=_estimate(lambda c: fleiss(c, raters=raters), counts, **kw),
        gwet_ac1=_estimate(gwet_ac1, rated, **kw),
    )


def field_ratings(snapshot: PanelSnapshot, name: str) -> dict[int, dict[Item, object]]:
    """{panelist: {item: value}} of a field over the items of its phase."""
    items = phase_items(snapshot, FIELD_PHASE[name])
    ratings: dict[int, dict[Item, object]] = {p.id: {} for p in snapshot.panelists}
    for item in items:
        for rid, value in snapshot.values(item, name).items():
            if rid in ratings:
                ratings[rid][item] = value
    return ratings


def agreement_report(snapshot: PanelSnapshot, *, resamples: int = 1000, seed: int = 0,
                     fields: Sequence[str] = FIELDS) -> list[FieldAgreement]:
    """Per field (and so per phase), the panel's agreement with bootstrap intervals."""
    return [field_agreement(field_ratings(snapshot, name), values=FIELD_VALUES[name],
                            ordinal=name in ORDINAL_FIELDS, phase=FIELD_PHASE[name], field=name,
                            resamples=resamples, seed=seed) for name in fields]


# -- pairs of panelists --------------------------------------------------------
def cohen(a: Mapping, b: Mapping, *, values: Sequence) -> tuple[float | None, int]:
    """Cohen's kappa of two raters' {unit: value} over their common units, and that count."""
    common = [u for u in a if u in b]
    if not common:
        return None, 0
    from statsmodels.stats.inter_rater import cohens_kappa

    index = {v: i for i, v in enumerate(values)}
    table = np.zeros((len(values), len(values)))
    for u in common:
        table[index[a[u]], index[b[u]]] += 1
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _finite_or_none(cohens_kappa(table).kappa), len(common)


@dataclass(frozen=True)
class PairwiseKappa:
    field: str
    panelist_ids: list[int]
    names: list[str]
    kappa: list[list[float | None]]  # [i][j]; the diagonal is 1.0 where the panelist voted
    common: list[list[int]]  # items both voted
    disagreements: list[list[int]]  # items where they differ


def pairwise_kappa(snapshot: PanelSnapshot, name: str) -> PairwiseKappa:
    """Cohen's kappa of every pair of panelists on one field."""
    ratings = field_ratings(snapshot, name)
    ids = [p.id for p in snapshot.panelists]
    kappa, common, differ = [], [], []
    for a in ids:
        row_k, row_n, row_d = [], [], []
        for b in ids:
            k, n = cohen(ratings[a], ratings[b], values=FIELD_VALUES[name])
            row_k.append(k if a != b else (1.0 if n else None))
            row_n.append(n)
            row_d.append(sum(1 for u, v in ratings[a].items() if u in ratings[b] and ratings[b][u] != v))
        kappa.append(row_k), common.append(row_n), differ.append(row_d)
    return PairwiseKappa(name, ids, [snapshot.name(i) for i in ids], kappa, common, differ)


def disagreeing_items(snapshot: PanelSnapshot, *, field: str, first: int, second: int) -> list[Item]:
    """Items of the field's phase where panelists `first` and `second` voted it differently."""
    ratings = field_ratings(snapshot, field)
    a, b = ratings.get(first, {}), ratings.get(second, {})
    return sorted((u for u, v in a.items() if u in b and b[u] != v), key=lambda i: (i.image_id, i.predicted))
