"""Fine-grained errors per WordNet distance in the paper's sense (Vasudevan et al. 2022, §4.1:
fine-grained "either in-vocabulary or OOV"), beside the in-vocabulary category alone, on a
hand-built set of reviewed mistakes whose categories and distances are given here; the shares
are counted by hand."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from reviewer.analysis import tables
from reviewer.analysis.plots import LIGHT
from reviewer.analysis.report_json import distance_json
from reviewer.analysis.sections.distance import distance_section

FG, OOV, SPURIOUS, NONPROTO = "fine_grained", "fine_grained_oov", "spurious_correlation", "non_prototypical"

# (model, category, distance); None = no category yet / no distance (left out of every share).
MISTAKES = [
    ("m", FG, 1), ("m", FG, 1), ("m", FG, 1), ("m", OOV, 1), ("m", SPURIOUS, 1), ("m", None, 1),
    ("m", FG, 3), ("m", OOV, 3), ("m", OOV, 3), ("m", NONPROTO, 3), ("m", FG, None),
    ("n", OOV, 2), ("n", SPURIOUS, 2),
]
# By hand, model m: distance 1: 5 with a category, 3 fine-grained + 1 OOV -> 4/5 = 80%, in-vocabulary 3/5 = 60%;
# distance 3: 4, 1 fine-grained + 2 OOV -> 3/4 = 75%, in-vocabulary 1/4 = 25%. Model n, distance 2: 1/2 and 0/2.


@pytest.fixture
def by_distance(monkeypatch):
    reviewed = pd.DataFrame({"model": [m for m, _, _ in MISTAKES], "category": [c for _, c, _ in MISTAKES],
                             "image_id": np.arange(len(MISTAKES)), "predicted": np.arange(len(MISTAKES))})
    given = pd.Series([np.nan if d is None else float(d) for _, _, d in MISTAKES], index=reviewed.index)
    monkeypatch.setattr(tables, "mistake_distances", lambda frame, labels, to="original": given.loc[frame.index])
    return tables.category_by_distance(reviewed, labels=None)


def test_the_papers_fine_grained_share_counts_oov_and_the_category_alone_is_kept(by_distance):
    m = by_distance.loc["m"]
    assert list(m.index) == [1, 3] and list(m["mistakes"]) == [5, 4]
    assert m.loc[1, "fine_grained_incl_oov"] == pytest.approx(4 / 5)
    assert m.loc[3, "fine_grained_incl_oov"] == pytest.approx(3 / 4)
    assert m.loc[1, "fine_grained"] == pytest.approx(3 / 5) and m.loc[3, "fine_grained"] == pytest.approx(1 / 4)
    assert m.loc[1, "fine_grained_oov"] == pytest.approx(1 / 5) and m.loc[3, "non_prototypical"] == pytest.approx(1 / 4)
    n = by_distance.loc["n"]
    assert n.loc[2, "fine_grained_incl_oov"] == pytest.approx(1 / 2) and n.loc[2, "fine_grained"] == 0


def test_the_report_puts_the_papers_figures_beside_the_share_in_the_papers_sense(by_distance, tmp_path):
    report = SimpleNamespace(by_distance=by_distance, by_distance_nearest=by_distance.iloc[0:0])
    section = distance_section(report, tmp_path, style=LIGHT)
    caption, cells = section.tables[0]
    assert caption == "m, distance to the original label"
    columns = list(cells.columns)
    paper_sense = "Fine-grained incl. OOV (the paper's sense)"
    assert columns[1:4] == [paper_sense, "paper: fine-grained incl. OOV (ViT-3B)", "Fine-grained, in-vocabulary only"]
    assert list(cells[paper_sense]) == ["80.0% (4/5)", "75.0% (3/4)"]
    assert list(cells["paper: fine-grained incl. OOV (ViT-3B)"]) == ["80.9%", "54.3%"]  # §4.1: distances 1 and 3
    assert list(cells["Fine-grained, in-vocabulary only"]) == ["60.0% (3/5)", "25.0% (1/4)"]
    assert "Fine-grained" not in columns  # no column named ambiguously
    assert "either in-vocabulary or OOV" in section.text


def test_the_json_has_both_fine_grained_shares(by_distance):
    data = distance_json(by_distance)  # analysis.category_by_distance of `reviewer report --json`
    assert data["m"]["1"]["fine_grained_incl_oov"] == pytest.approx(0.8)
    assert data["m"]["1"]["fine_grained"] == pytest.approx(0.6)

