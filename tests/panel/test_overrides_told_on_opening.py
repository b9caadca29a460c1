"""Which of a panelist's votes the chair's overrides contradict, and which of them he has not
been shown yet (issue 35, 4): a panelist who opens his window after the chair overrode him is
told at once. Headless: reviewer.panel.overridden, read through reviewer.app.overrides."""

from __future__ import annotations

from review_data import snapshot_of

from reviewer.app import panel as acts
from reviewer.app.overrides import overrides_of_my_votes, overrides_to_tell
from reviewer.items import Item


def panel_of(project):
    ann = acts.add_panelist(project, "ann", chair=True).value
    bob = acts.add_panelist(project, "bob").value
    items = [Item(i.image_id, i.predicted) for i in snapshot_of(project).items]
    return ann, bob, items


def test_overrides_made_since_his_last_act_are_told_oldest_first(review_project):
    ann, bob, items = panel_of(review_project)
    acts.vote(review_project, panelist_id=bob.id, item=items[0], verdict="correct")
    acts.vote(review_project, panelist_id=bob.id, item=items[1], verdict="wrong", severity="minor",
              category="fine_grained")
    acts.vote(review_project, panelist_id=bob.id, item=items[2], verdict="wrong")
    acts.vote(review_project, panelist_id=ann.id, item=items[3], verdict="correct")
    assert overrides_to_tell(review_project, panelist_id=bob.id) == []
    acts.override(review_project, chair_id=ann.id, item=items[1], verdict="wrong", severity="major",
                  category="fine_grained", reason="a major one")
    acts.override(review_project, chair_id=ann.id, item=items[0], verdict="wrong", reason="not a junco")
    acts.override(review_project, chair_id=ann.id, item=items[2], verdict="wrong", reason="as bob says")
    acts.override(review_project, chair_id=ann.id, item=items[3], verdict="wrong", reason="bob never voted")
    told = overrides_to_tell(review_project, panelist_id=bob.id)
    assert [(o.item, o.decision.reason, o.decision.by, o.vote.verdict) for o in told] == [
        (items[1], "a major one", "ann", "wrong"), (items[0], "not a junco", "ann", "correct")]
    assert told[0].vote.severity == "minor" and told[0].decision.severity == "major"
    # The chair is not told of her own override of her vote.
    assert overrides_to_tell(review_project, panelist_id=ann.id) == []


def test_an_act_since_the_override_means_it_was_shown(review_project):
    """Shown already: any vote or note of his since the override (in the window that told him)."""
    ann, bob, items = panel_of(review_project)
    acts.vote(review_project, panelist_id=bob.id, item=items[0], verdict="correct")
    acts.override(review_project, chair_id=ann.id, item=items[0], verdict="wrong", reason="so")
    assert [o.item for o in overrides_to_tell(review_project, panelist_id=bob.id)] == [items[0]]
    acts.note(review_project, panelist_id=bob.id, item=items[1], text="seen it")
    assert overrides_to_tell(review_project, panelist_id=bob.id) == []
    # A newer override is news again; the older one is not.
    acts.vote(review_project, panelist_id=bob.id, item=items[2], verdict="unclear")
    acts.override(review_project, chair_id=ann.id, item=items[2], verdict="correct", reason="so")
    assert [o.item for o in overrides_to_tell(review_project, panelist_id=bob.id)] == [items[2]]


def test_a_vote_cast_after_the_override_is_not_overridden_by_it(review_project):
    """He voted against a decision he could see: no override of his vote to tell, now or live."""
    ann, bob, items = panel_of(review_project)
    acts.override(review_project, chair_id=ann.id, item=items[0], verdict="wrong", reason="so")
    acts.vote(review_project, panelist_id=bob.id, item=items[0], verdict="correct")
    assert overrides_of_my_votes(review_project, panelist_id=bob.id, items=[items[0]]) == []
    assert overrides_to_tell(review_project, panelist_id=bob.id) == []


def test_the_live_read_names_only_the_items_asked_about(review_project):
    ann, bob, items = panel_of(review_project)
    for item in items[:2]:
        acts.vote(review_project, panelist_id=bob.id, item=item, verdict="correct")
        acts.override(review_project, chair_id=ann.id, item=item, verdict="wrong", reason="so")
    assert [o.item for o in overrides_of_my_votes(review_project, panelist_id=bob.id, items=[items[1]])] == [items[1]]
    assert overrides_of_my_votes(review_project, panelist_id=bob.id, items=[]) == []
