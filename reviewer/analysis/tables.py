"""The paper's tables over each model's reviewed mistakes (pandas, scipy).

- `category_severity_counts`: Table 2, categories and severities per model;
- `chi_square_tests`: is the category (or severity) distribution of two models
  the same? Pearson's chi-square test of independence on the 2 x C table;
- `confused_pairs`: class pairs (prediction, ground-truth label) with their
  frequency, as the published `class_confusion_*.json`;
- `category_by_distance`: share of each category per WordNet hierarchy
  distance, per model (the paper, §4.1, reports ViT-3B's): by default the
  distance between the prediction and the image's original label, as the
  paper measures it ("between the groundtruth label and the model's
  prediction"); `to="nearest_correct"` is the variant to the nearest correct
  label other than the prediction, named apart.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency

from reviewer.classes.vocabulary import load_classes
from reviewer.classes.wordnet import hierarchy_levels
from reviewer.labels.labelset import CORRECT, LabelSet
from reviewer.terms import Category, Severity, values


def severity_levels(keep_borderline: bool) -> tuple[str, ...]:
    panel = tuple(s.value for s in Severity.panel())
    return panel + (Severity.BORDERLINE.value,) if keep_borderline else panel


def category_severity_counts(reviewed: pd.DataFrame, *, keep_borderline: bool = False
                             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(categories, severities): counts per model (rows) and level (columns).

    Borderline is counted as Minor, as in the paper, unless `keep_borderline`.
    Items the panel left without a category (or severity) are not counted in
    that table.
    """
    models = sorted(reviewed["model"].unique())
    severity = reviewed["severity"]
    if not keep_borderline:
        severity = severity.replace({Severity.BORDERLINE.value: Severity.MINOR.value})
    categories = pd.crosstab(reviewed["model"], reviewed["category"])
    severities = pd.crosstab(reviewed["model"], severity)
    categories = categories.reindex(index=models, columns=values(Category), fill_value=0)
    severities = severities.reindex(index=models, columns=list(severity_levels(keep_borderline)), fill_value=0)
    categories.index.name = severities.index.name = "model"
    categories.columns.name, severities.columns.name = "category", "severity"
    return categories.astype("int64"), severities.astype("int64")


def shares(counts: pd.DataFrame) -> pd.DataFrame:
    """Each row's counts as fractions of the row's total (NaN for an empty row)."""
    totals = counts.sum(axis=1)
    return counts.div(totals.where(totals > 0), axis=0)


def chi_square_tests(counts: pd.DataFrame, *, yates: bool = False) -> pd.DataFrame:
    """Chi-square test of independence for every pair of models (rows of `counts`).

    Levels neither model has are dropped (their expected count would be 0).
    `yates` applies Yates' continuity correction to 2 x 2 tables (scipy's
    default); off by default, so every table size gets the same Pearson test.
    Columns: model_a, model_b, n_a, n_b, chi2, dof, p_value.
    """
    rows = []
    for a, b in combinations(counts.index, 2):
        table = counts.loc[[a, b]].to_numpy()
        table = table[:, table.sum(axis=0) > 0]
        n_a, n_b = (int(x) for x in table.sum(axis=1))
        if table.shape[1] < 2 or not n_a or not n_b:
            rows.append((a, b, n_a, n_b, np.nan, 0, np.nan))
            continue
        result = chi2_contingency(table, correction=yates)
        rows.append((a, b, n_a, n_b, float(result.statistic), int(result.dof), float(result.pvalue)))
    return pd.DataFrame(rows, columns=["model_a", "model_b", "n_a", "n_b", "chi2", "dof", "p_value"])


def _label_pairs(reviewed: pd.DataFrame, labels: LabelSet) -> pd.DataFrame:
    """One row per (reviewed mistake, correct label of its image other than the prediction);
    `item` is the mistake's index in `reviewed`."""
    items = reviewed[["model", "image_id", "predicted"]].reset_index(names="item")
    items["row"] = labels.positions(items["image_id"].to_numpy())
    items = items[items["row"] >= 0]
    correct = labels.kinds == CORRECT
    label_rows = pd.DataFrame({"row": labels.rows[correct].astype(np.int64),
                               "label": labels.classes[correct].astype(np.int64)})
    pairs = items.merge(label_rows, on="row")
    return pairs[pairs["label"] != pairs["predicted"]]


def confused_pairs(reviewed: pd.DataFrame, labels: LabelSet) -> pd.DataFrame:
    """Confused class pairs per model: every reviewed mistake pairs its prediction
    with each correct label of its image (after the review, the prediction itself
    excluded). A pair is unordered, written with the smaller wnid first, as in the
    published `class_confusion_wnids.json`.

    Columns: model, class_a, class_b (indices), wnid_a, wnid_b, name_a, name_b,
    frequency; sorted by model, frequency (descending), then the pair.
    """
    pairs = _label_pairs(reviewed, labels)
    a = np.minimum(pairs["predicted"], pairs["label"])
    b = np.maximum(pairs["predicted"], pairs["label"])
    grouped = (pd.DataFrame({"model": pairs["model"], "class_a": a, "class_b": b})
               .groupby(["model", "class_a", "class_b"]).size().rename("frequency").reset_index())
    classes = load_classes()
    for side in ("a", "b"):
        grouped[f"wnid_{side}"] = [classes.wnids[i] for i in grouped[f"class_{side}"]]
        grouped[f"name_{side}"] = [classes.names[i] for i in grouped[f"class_{side}"]]
    grouped = grouped.sort_values(["model", "frequency", "class_a", "class_b"], ascending=[True, False, True, True],
                                  ignore_index=True)
    return grouped[["model", "class_a", "class_b", "wnid_a", "wnid_b", "name_a", "name_b", "frequency"]]


def mistake_distances(reviewed: pd.DataFrame, labels: LabelSet, *, to: str = "original") -> pd.Series:
    """WordNet hierarchy distance of each reviewed mistake (index of `reviewed`): from
    its prediction to the image's original label (`to="original"`), or to the nearest
    correct label other than the prediction (`to="nearest_correct"`); NaN where the
    image has no such label."""
    if to == "original":
        rows = labels.positions(reviewed["image_id"].to_numpy())
        original = np.where(rows >= 0, labels.original[np.maximum(rows, 0)], -1).astype(np.int64)
        distance = [hierarchy_levels(int(p), int(o)) if o >= 0 and p != o else np.nan
                    for p, o in zip(reviewed["predicted"], original)]
        return pd.Series(distance, index=reviewed.index, dtype=float)
    if to != "nearest_correct":
        raise ValueError(f"unknown distance target {to!r}")
    pairs = _label_pairs(reviewed, labels)
    if not len(pairs):
        return pd.Series(np.nan, index=reviewed.index, dtype=float)
    distance = [hierarchy_levels(int(p), int(q)) for p, q in zip(pairs["predicted"], pairs["label"])]
    nearest = pd.Series(distance, index=pairs["item"].to_numpy()).groupby(level=0).min()
    return nearest.reindex(reviewed.index).astype(float)


# The paper's figures (§4.1, ViT-3B): the share of mistakes rated fine-grained at a distance.
PAPER_FINE_GRAINED_SHARE = {1: 0.809, 3: 0.543}


def category_by_distance(reviewed: pd.DataFrame, labels: LabelSet, *, to: str = "original") -> pd.DataFrame:
    """Share of each category among each model's reviewed mistakes at each hierarchy
    distance (see `mistake_distances` for `to`). Index: (model, distance); columns:
    the categories' shares and `mistakes`."""
    frame = reviewed.assign(distance=mistake_distances(reviewed, labels, to=to)).dropna(
        subset=["distance", "category"])
    columns = values(Category)
    if frame.empty:
        empty = pd.DataFrame(columns=columns + ["mistakes"], index=pd.MultiIndex.from_tuples(
            [], names=["model", "distance"]))
        return empty
    counts = pd.crosstab([frame["model"], frame["distance"].astype("int64")], frame["category"])
    counts = counts.reindex(columns=columns, fill_value=0)
    table = shares(counts)
    table["mistakes"] = counts.sum(axis=1)
    table.index.names = ["model", "distance"]
    table.columns.name = None
    return table


def titled(frame: pd.DataFrame) -> pd.DataFrame:
    """The same table with the categories' display titles as column names."""
    return frame.rename(columns={**{c.value: c.caption for c in Category}, **{s.value: s.caption for s in Severity}})
