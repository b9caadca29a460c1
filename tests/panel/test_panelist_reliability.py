"""Each panelist's agreement with the final decisions and Dawid–Skene accuracy, on a panel
whose votes and decisions are counted by hand."""

from __future__ import annotations

import pytest
from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.panel.panelist_reliability import Match, panel_reliability

# Verdicts of ann (the chair), bob and cy on the six novel items; None: not voted.
VERDICTS = [("wrong", "wrong", "wrong"),  # unanimous: decided wrong
            ("wrong", "wrong", "correct"),  # locked: wrong
            ("correct", "correct", "correct"),  # unanimous: decided correct
            ("wrong", "correct", "correct"),  # locked: correct
            ("unclear", "wrong", "wrong"),  # locked: wrong
            ("wrong", "wrong", None)]  # cy has not voted: undecided
# Dawid–Skene on these votes (classes correct, wrong, unclear), Σ_k prior_k e[w, k, k] from crowd-kit 1.4.2's
# DawidSkene(n_iter=200).fit(...).priors_ and .errors_, computed apart (crowd-kit is not a dependency). On six
# items it takes ann's lone 'unclear' as the truth of item 4, so ann and bob tie: a small panel's estimate.
CROWD_KIT_ACCURACY = {"ann": 0.833333, "bob": 0.833333, "cy": 0.583333}


def test_agreement_with_the_decisions_and_dawid_skene_accuracy(panel):
    project, (ann, bob, cy), items = panel
    for item, votes in zip(items, VERDICTS):
        for who, verdict in zip((ann, bob, cy), votes):
            if verdict:
                acts.vote(project, panelist_id=who, item=item, verdict=verdict)
    for item in (items[1], items[3], items[4]):
        acts.lock(project, chair_id=ann, item=item)
    # Phase 2 on item 0 (unanimously wrong): cy rates apart; the chair locks the majority, major / fine-grained.
    for who, severity, category in ((ann, "major", "fine_grained"), (bob, "major", "fine_grained"),
                                    (cy, "minor", "spurious_correlation")):
        acts.vote(project, panelist_id=who, item=items[0], severity=severity, category=category)
    acts.lock(project, chair_id=ann, item=items[0])

    result = panel_reliability(snapshot_of(project))
    by_name = {p.name: p for p in result.panelists}
    assert result.decided == 5 and result.items == 6 and result.note == ""
    # Verdicts against the five decisions: ann misses items 3 and 4, cy item 1, bob none.
    assert by_name["ann"].matches["verdict"] == Match(3, 5)
    assert by_name["bob"].matches["verdict"] == Match(5, 5)
    assert by_name["cy"].matches["verdict"] == Match(4, 5)
    assert by_name["cy"].matches["severity"] == Match(0, 1) and by_name["cy"].matches["category"] == Match(0, 1)
    assert by_name["ann"].matches["severity"] == Match(1, 1)
    assert by_name["cy"].matches["verdict"].share == pytest.approx(0.8)
    assert {name: p.verdict_votes for name, p in by_name.items()} == {"ann": 6, "bob": 6, "cy": 5}
    for name, accuracy in CROWD_KIT_ACCURACY.items():
        assert by_name[name].accuracy == pytest.approx(accuracy, abs=1e-5), name
    # cy's confusion on the items the fit holds truly wrong (0, 1 and 5; item 4 it takes as unclear): cy voted
    # wrong on 0, correct on 1, nothing on 5; crowd-kit's errors_ for cy under 'wrong': 0.5 and 0.5.
    assert by_name["cy"].confusion[1] == pytest.approx((0.5, 0.5, 0.0), abs=1e-5)


def test_nothing_voted_says_why(panel):
    project, _, _ = panel
    result = panel_reliability(snapshot_of(project))
    assert [p.accuracy for p in result.panelists] == [None, None, None]
    assert result.note == "No verdict voted yet: nothing to estimate a panelist's reliability from."
    assert all(p.matches["verdict"] == Match(0, 0) and p.matches["verdict"].share is None for p in result.panelists)
