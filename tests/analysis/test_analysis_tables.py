"""The report's tables on the real published reviews, checked against the files
by an independent computation (pandas straight from the JSON, chi-square by hand)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2

from reviewer.analysis.report import ReportOptions
from reviewer.analysis.report_json import report_json
from reviewer.analysis.tables import shares
from reviewer.app.imports import import_review, init_project
from reviewer.app.report import build_report
from reviewer.classes.vocabulary import load_classes

FILES = {"vit3b": "vit3b_mistakes.json", "greedy_soups": "greedy_soups_mistakes.json"}
# The files' spellings, mapped by hand from the README of the data (not through reviewer.terms).
RAW_CATEGORY = {"Fine-grained error": "fine_grained", "Fine-grained with Multilabel Options": "fine_grained",
                "Fine-grained error with OOV": "fine_grained_oov", "Fine-grained with OOV": "fine_grained_oov",
                "Spurious Correlation": "spurious_correlation", "Non-prototypical": "non_prototypical"}


@pytest.fixture(scope="module")
def published(tmp_path_factory, shared_data):
    """A project with the 20k annotated list (original labels) and both published reviews."""
    project, _ = init_project(tmp_path_factory.mktemp("analysis") / "p",
                              labels=[shared_data / "formats" / "imagenet-annotatedval20k.json"])
    for model, name in FILES.items():
        import_review(project, shared_data / "imagenet-mistakes" / name, model=model)
    raw = pd.concat([pd.DataFrame.from_dict(json.loads((shared_data / "imagenet-mistakes" / name).read_text()),
                                            orient="index").assign(model=model) for model, name in FILES.items()])
    return project, raw


@pytest.fixture(scope="module")
def report(published):
    return build_report(published[0])


def by_hand_chi_square(table: np.ndarray, *, yates: bool = False) -> tuple[float, int, float]:
    table = table[:, table.sum(axis=0) > 0].astype(float)
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    diff = np.abs(table - expected) - (0.5 if yates else 0.0)
    stat = float((diff ** 2 / expected).sum())
    dof = (table.shape[0] - 1) * (table.shape[1] - 1)
    return stat, dof, float(chi2.sf(stat, dof))


def test_category_and_severity_table_matches_the_files(published, report):
    project, raw = published
    expected = pd.crosstab(raw["model"], raw["failure category"].map(RAW_CATEGORY))
    assert report.categories.to_dict() == expected.reindex(columns=report.categories.columns).to_dict()
    severity = raw["failure severity"].str.lower().replace({"borderline": "minor"})
    assert report.severities.to_dict() == pd.crosstab(raw["model"], severity).to_dict()
    # The same figures, read off the files once by hand.
    assert report.categories.loc["vit3b"].tolist() == [241 + 1, 54, 52, 30]
    assert report.categories.loc["greedy_soups"].tolist() == [172, 17 + 9, 32, 19]
    assert report.severities.loc["vit3b"].tolist() == [154, 150 + 74]
    assert report.severities.loc["greedy_soups"].tolist() == [89, 111 + 49]
    assert shares(report.severities).loc["vit3b", "major"] == pytest.approx(154 / 378)
    kept = build_report(project, ReportOptions(keep_borderline=True)).severities
    assert kept.loc["vit3b"].tolist() == [154, 150, 74]


def test_chi_square_tests_match_a_computation_by_hand(published, report):
    project, _ = published
    for counts, tests in ((report.categories, report.chi_categories), (report.severities, report.chi_severities)):
        row = tests.iloc[0]
        stat, dof, p = by_hand_chi_square(counts.loc[[row["model_a"], row["model_b"]]].to_numpy())
        assert (row["chi2"], row["dof"], row["p_value"]) == (pytest.approx(stat), dof, pytest.approx(p))
        assert (row["n_a"], row["n_b"]) == (249, 378)
    # Categories: chi2 2.43 on 3 dof; severities: 1.58 on 1 dof -> neither is significant.
    assert report.chi_categories.iloc[0]["chi2"] == pytest.approx(2.4292, abs=1e-3)
    assert report.chi_severities.iloc[0]["p_value"] == pytest.approx(0.2088, abs=1e-3)
    yates = build_report(project, ReportOptions(yates=True)).chi_severities.iloc[0]
    stat, _, p = by_hand_chi_square(report.severities.to_numpy(), yates=True)
    assert (yates["chi2"], yates["p_value"]) == (pytest.approx(stat), pytest.approx(p))
    kept = build_report(project, ReportOptions(keep_borderline=True))
    stat, dof, p = by_hand_chi_square(kept.severities.to_numpy())
    assert (kept.chi_severities.iloc[0]["chi2"], kept.chi_severities.iloc[0]["dof"]) == (pytest.approx(stat), 2)
    assert report_json(kept)["chi_square"]["severities"][0]["p_value"] == pytest.approx(p)


def test_confused_pairs_against_the_published_vit3b_list(report, shared_data):
    """The published pairs link each ViT-3B mistake's prediction to every correct
    label of its image (unordered, smaller wnid first). The project knows only the
    original label of these images (the full TFDS annotation file is not here), so
    its 378 links must all be in the published list, with no pair more frequent than
    published; the remaining 545 - 378 = 167 published links come from the images'
    other correct labels."""
    ours = report.confusions
    ours = ours[ours["model"] == "vit3b"]
    theirs = {(a, b): n for a, b, n in json.loads(
        (shared_data / "imagenet-mistakes" / "class_confusion_wnids.json").read_text())}
    assert all(a < b for a, b in theirs)  # the published orientation, which we follow
    assert (ours["wnid_a"] < ours["wnid_b"]).all()
    assert ours["frequency"].sum() == 378 and len(ours) == 323
    for a, b, n in zip(ours["wnid_a"], ours["wnid_b"], ours["frequency"]):
        assert (a, b) in theirs and n <= theirs[(a, b)]
    assert sum(theirs.values()) - ours["frequency"].sum() == 167
    # Every published pair holds a class ViT-3B predicted: pairs are (prediction, label), not (label, label).
    vit3b = json.loads((shared_data / "imagenet-mistakes" / FILES["vit3b"]).read_text())
    predicted = {load_classes().wnids[r["top_prediction"]] for r in vit3b.values()}
    assert all(a in predicted or b in predicted for a, b in theirs)
    # Most frequent first, as a long-tailed list.
    assert ours["frequency"].is_monotonic_decreasing and ours["frequency"].iloc[-1] == 1
    synsets = json.loads((shared_data / "imagenet-mistakes" / "class_confusion_synsets.json").read_text())
    assert Counter(n for _, _, n in synsets) == Counter(theirs.values())


@pytest.fixture(scope="module")
def with_v3_labels(tmp_path_factory, shared_data):
    """Both published reviews on the official TFDS v3 labels (original and correct labels)."""
    csv_path = shared_data / "published" / "tfds-multilabel-v3" / "imagenet2012_multilabel_validation.csv"
    project, _ = init_project(tmp_path_factory.mktemp("v3") / "p", labels=[csv_path])
    for model, name in FILES.items():
        import_review(project, shared_data / "imagenet-mistakes" / name, model=model)
    rows = pd.read_csv(csv_path, dtype=str, keep_default_na=False).set_index("id")
    return build_report(project), rows


def test_categories_by_distance_to_the_original_label_per_model(with_v3_labels, shared_data):
    """Per model, as the paper's §4.1 (ViT-3B's): levels from the prediction and the original
    label up to their nearest common ancestor, counted here from the files."""
    from reviewer.classes.wordnet import hierarchy_distance

    report, rows = with_v3_labels
    for model, name in FILES.items():
        records = json.loads((shared_data / "imagenet-mistakes" / name).read_text())
        counts: dict[int, Counter] = {}
        for image, record in records.items():
            d = hierarchy_distance(record["top_prediction"], int(rows.loc[image, "original_label"])).distance
            counts.setdefault(d, Counter())[RAW_CATEGORY[record["failure category"]]] += 1
        table = report.by_distance.loc[model]
        assert sorted(table.index) == sorted(counts)
        for d, counter in counts.items():
            assert table.loc[d, "mistakes"] == sum(counter.values())
            assert table.loc[d, "fine_grained"] == pytest.approx(counter["fine_grained"] / sum(counter.values()))
            assert table.loc[d, "fine_grained_incl_oov"] == pytest.approx(
                (counter["fine_grained"] + counter["fine_grained_oov"]) / sum(counter.values()))
    vit = report.by_distance.loc["vit3b"]
    # The paper: 80.9% fine-grained (in-vocabulary or OOV, §4.1) at distance 1, 54.3% at 3. The published
    # review and the v3 labels give 92.7% (98 + 3 OOV of 109) and 76.6% (32 + 4 of 47), in-vocabulary
    # alone 89.9% and 68.1%: the same fall with distance, not the same figures (the paper's analysis
    # predates its final review; its distance is not spelled out).
    assert vit.loc[1, "fine_grained_incl_oov"] == pytest.approx(101 / 109)
    assert vit.loc[3, "fine_grained_incl_oov"] == pytest.approx(36 / 47)
    assert vit.loc[1, "fine_grained"] == pytest.approx(98 / 109) and vit.loc[3, "fine_grained"] == pytest.approx(32 / 47)
    assert report_json(report)["paper_fine_grained_share"] == {"1": 0.809, "3": 0.543}
    assert report_json(report)["paper_fine_grained_share_compares_with"] == "fine_grained_incl_oov"
    nearest = report.by_distance_nearest.loc["vit3b"]
    assert nearest["mistakes"].sum() == 378 and nearest.loc[1, "mistakes"] == 118  # the variant, named apart


def test_confused_pairs_with_the_v3_labels_against_the_published_list(with_v3_labels, shared_data):
    """With every correct label known, 475 of the 481 published ViT-3B pairs come out with the
    same frequency (540 of 545 links); the list was made from the labels of its time."""
    report, _ = with_v3_labels
    ours = report.confusions[report.confusions["model"] == "vit3b"]
    mine = {(a, b): n for a, b, n in zip(ours["wnid_a"], ours["wnid_b"], ours["frequency"])}
    theirs = {(a, b): n for a, b, n in json.loads(
        (shared_data / "imagenet-mistakes" / "class_confusion_wnids.json").read_text())}
    same = [k for k in theirs if mine.get(k) == theirs[k]]
    assert len(same) == 475 and sum(mine.values()) == 540 and sum(theirs.values()) == 545
