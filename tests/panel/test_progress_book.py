"""The progress book (`reviewer.panel.progress_book`) counts what `progress` counts, working
the rules once per item shape (`PanelSnapshot.shape`): checked on in-memory snapshots of
many items in every kind of state, against the rules applied item by item."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy.orm import configure_mappers

from reviewer.items import Item
from reviewer.panel.phases import item_progress, progress
from reviewer.panel.progress_book import open_book
from reviewer.panel.snapshot import ItemFacts, Panelist, PanelSnapshot
from reviewer.panel.standing import Standing, panel_standing
from reviewer.terms import Category, DecisionMethod, Severity, Verdict

VERDICTS = [None, Verdict.CORRECT, Verdict.WRONG, Verdict.UNCLEAR]
SEVERITIES = [None, Severity.MAJOR, Severity.MINOR]
CATEGORIES = [None, Category.FINE_GRAINED, Category.SPURIOUS_CORRELATION, Category.FINE_GRAINED_OOV]

configure_mappers()  # the rules build unsaved Decision rows for unanimous items (reviewer.panel.final)


def _when(rng: random.Random) -> datetime:
    return datetime(2026, 11, 1) + timedelta(minutes=rng.randrange(10_000))


def _vote(rng: random.Random, panelist: int):
    verdict = rng.choice(VERDICTS)
    rated = verdict == Verdict.WRONG and rng.random() < 0.7
    return SimpleNamespace(panelist_id=panelist, verdict=verdict, problematic=rng.random() < 0.2,
                           severity=rng.choice(SEVERITIES) if rated else None,
                           category=rng.choice(CATEGORIES) if rated else None,
                           oov_name="a name" if rng.random() < 0.3 else None, retracted=False, note="",
                           created_at=_when(rng))


def _decision(rng: random.Random, item: Item):
    method = rng.choice([DecisionMethod.MAJORITY, DecisionMethod.OVERRIDE, DecisionMethod.REOPENED])
    if method == DecisionMethod.REOPENED:
        return SimpleNamespace(image_id=item.image_id, predicted=item.predicted, verdict=None,
                                        method=method, problematic=False, severity=None, category=None,
                                        reason="look again", decided_by=1, created_at=_when(rng), oov_name=None)
    verdict = rng.choice(VERDICTS[1:])
    rated = verdict == Verdict.WRONG and rng.random() < 0.5
    return SimpleNamespace(image_id=item.image_id, predicted=item.predicted, verdict=verdict,
                                    method=method, problematic=rng.random() < 0.2,
                                    severity=rng.choice(SEVERITIES[1:]) if rated else None,
                                    category=rng.choice(CATEGORIES[1:]) if rated else None,
                                    reason="the chair's", decided_by=1, created_at=_when(rng), oov_name=None)


def _snapshot(seed: int, *, unanimous_final: bool) -> PanelSnapshot:
    """Some hundreds of items: untouched, voted by some or all of three panelists (often alike,
    so that shapes repeat), decided, reopened."""
    rng = random.Random(seed)
    panel = [Panelist(1, "ann", True), Panelist(2, "bob", False), Panelist(3, "cy", False)]
    facts, votes, decisions, reopened = {}, {}, {}, set()
    for n in range(600):
        item = Item(n, rng.randrange(5))
        facts[item] = ItemFacts(item, rng.random() < 0.7, (1,), 0.5, None)
        kind = rng.random()
        if kind < 0.3:
            continue  # untouched
        voters = [p.id for p in panel if rng.random() < 0.85]
        if rng.random() < 0.7 and voters:  # alike: one vote copied
            first = _vote(rng, voters[0])
            votes[item] = {p: SimpleNamespace(**{**vars(first), "panelist_id": p}) for p in voters}
        elif voters:
            votes[item] = {p: _vote(rng, p) for p in voters}
        if rng.random() < 0.2:
            decisions[item] = _decision(rng, item)
            if decisions[item].method == DecisionMethod.REOPENED:
                reopened.add(item)
        elif rng.random() < 0.05:
            reopened.add(item)
    return PanelSnapshot(panelists=panel, facts=facts, votes=votes, decisions=decisions, reopened=reopened,
                         unanimous_final=unanimous_final)


def _counts(reports) -> list:
    return [(r.phase, r.items, r.voting, r.awaits_group, r.decided,
             [(p.panelist_id, p.done, p.to_do, p.awaits_group) for p in r.panelists]) for r in reports]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("unanimous_final", [True, False])
def test_the_book_counts_what_the_rules_count_item_by_item(seed, unanimous_final):
    snapshot = _snapshot(seed, unanimous_final=unanimous_final)
    book = open_book(snapshot)
    # Fresh snapshots for the references: the rules' per-item cache is not shared with the book's.
    reference = _snapshot(seed, unanimous_final=unanimous_final)
    assert _counts(book.reports) == _counts(progress(reference))
    touched = [i for i in reference.facts if i in reference.votes or i in reference.decisions
               or i in reference.reopened]
    assert book.standings == {i: panel_standing(reference, i).standing for i in touched}
    assert {i: book.parts[i] for i in touched} == {i: item_progress(reference, i) for i in touched}
    expected = {s: 0 for s in Standing}
    for item in reference.facts:
        expected[panel_standing(reference, item).standing] += 1
    assert book.standing_counts(len(reference.facts)) == expected
    # The case is not trivial: shapes repeat, and every standing occurs.
    shapes = {reference.shape(i) for i in touched}
    assert len(shapes) < len(touched) * 0.8
    assert max(Counter(reference.shape(i) for i in touched).values()) >= 5
    assert all(expected[s] for s in Standing)


def test_items_of_one_shape_follow_the_rules_alike_and_a_value_changes_the_shape():
    snapshot = _snapshot(7, unanimous_final=True)
    by_shape: dict[tuple, list[Item]] = {}
    for item in snapshot.facts:
        by_shape.setdefault(snapshot.shape(item), []).append(item)
    shared = [items for items in by_shape.values() if len(items) > 1]
    assert shared
    for items in shared:
        first = items[0]
        for other in items[1:]:
            assert item_progress(snapshot, other) == item_progress(snapshot, first)
            assert panel_standing(snapshot, other).standing == panel_standing(snapshot, first).standing
    voted = next(i for i in snapshot.facts if len(snapshot.votes.get(i, {})) == 3)
    before = snapshot.shape(voted)
    vote = snapshot.votes[voted][2]
    for name, value in (("verdict", "unclear" if vote.verdict != "unclear" else "correct"),
                        ("problematic", not vote.problematic), ("severity", "minor" if vote.severity != "minor" else "major"),
                        ("category", "fine_grained" if vote.category != "fine_grained" else "spurious_correlation")):
        old = getattr(vote, name)
        setattr(vote, name, value)
        assert snapshot.shape(voted) != before, name
        setattr(vote, name, old)
    assert snapshot.shape(voted) == before


def _status_fields(status) -> tuple:
    return (status.phases, status.standing, status.scope_items, status.no_longer_mistakes, status.outside_scope)


def test_the_counts_from_the_items_with_a_history_equal_those_of_the_whole_snapshot(panel, add_mistakes):
    """`panel-status` counts from a snapshot of the items with a history and the scope's novelty
    counted in the database (`load_snapshot(history_only=True)`, `scoped_novelty`): the same
    counts as the whole snapshot's, with undone votes, locks, a reopening and a scope that
    leaves a voted item out."""
    from sqlalchemy import select

    from db.tables import Run
    from reviewer.app import panel as acts
    from reviewer.app.panel_status import _compute
    from reviewer.app.scope import set_panel_scope
    from reviewer.panel.snapshot import load_snapshot

    project, (ann, bob, cy), items = panel
    other = add_mistakes(project, [(70, True), (71, False)])  # a second run's mistakes
    for who in (ann, bob, cy):
        acts.vote(project, panelist_id=who, item=items[0], verdict="wrong", severity="minor", category="fine_grained")
        acts.vote(project, panelist_id=who, item=items[1], verdict="correct" if who == cy else "wrong")
    acts.vote(project, panelist_id=bob, item=items[2], verdict="unclear")
    acts.vote(project, panelist_id=cy, item=items[3], verdict="wrong")
    acts.undo(project, panelist_id=cy)  # items[3]: a history, no current vote
    acts.lock(project, chair_id=ann, item=items[1], force=True)
    acts.override(project, chair_id=ann, item=items[6], verdict="correct", reason="looked again")
    acts.reopen_item(project, panelist_id=ann, item=items[7], reason="look again")
    acts.vote(project, panelist_id=bob, item=other[0], verdict="wrong")

    def compare() -> None:
        with project.read() as session:
            whole, _ = _compute(session, items=True)
            counted, _ = _compute(session, items=False)
            snapshot = load_snapshot(session=session)
        assert _status_fields(counted) == _status_fields(whole)
        assert counted.scope_items == len(snapshot.facts)
        assert counted.phases == progress(snapshot)

    compare()
    with project.read() as session:
        first_run = min(session.execute(select(Run.id)).scalars())
    set_panel_scope(project, chair_id=ann, runs=[first_run])
    with project.read() as session:
        assert _compute(session, items=False)[0].outside_scope == 1
    compare()


def test_final_decisions_of_given_items_equal_the_whole_snapshots(panel, add_mistakes):
    """`read_final_decisions(items=...)` reads only the items with a vote or a decision row into its
    snapshot (the review page asks it of every top-5 class of an image): the same decisions as the
    whole snapshot's, for unanimous items, a lock, an override, a reopening, an undone vote and
    items nobody voted on."""
    from reviewer.app import panel as acts
    from reviewer.panel.final import final_decisions, read_final_decisions
    from reviewer.panel.snapshot import load_snapshot

    project, (ann, bob, cy), items = panel
    for who in (ann, bob, cy):
        acts.vote(project, panelist_id=who, item=items[0], verdict="wrong", severity="minor", category="fine_grained")
        acts.vote(project, panelist_id=who, item=items[1], verdict="correct" if who == cy else "wrong")
    acts.lock(project, chair_id=ann, item=items[1], force=True)
    acts.override(project, chair_id=ann, item=items[6], verdict="correct", reason="looked again")
    acts.vote(project, panelist_id=cy, item=items[3], verdict="wrong")
    acts.undo(project, panelist_id=cy)
    acts.reopen_item(project, panelist_id=ann, item=items[1], reason="look again")
    acts.override(project, chair_id=ann, item=items[2], verdict="unclear", reason="both hold")
    never = [Item(item.image_id, (item.predicted + 500) % 1000) for item in items]  # classes nobody voted on
    asked = [*items, *never]
    with project.read() as session:
        whole = final_decisions(load_snapshot(session=session))
        read = read_final_decisions(session=session, items=asked)
        alone = read_final_decisions(session=session, items=never)
    def values(decisions):
        return {item: (d.id, d.verdict, d.severity, d.category, d.method) for item, d in decisions.items()}

    assert values(read) == {item: v for item, v in values(whole).items() if item in asked}
    assert set(read) >= {items[0], items[2], items[6]} and items[1] not in read  # reopened: undecided
    assert alone == {}
