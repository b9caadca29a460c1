"""The meeting's content, headless: the split items, a pair's disagreements, one item as a panelist sees it."""

from __future__ import annotations

from review_data import read_with

from reviewer.app import panel as acts
from reviewer.panel.meeting import load_meeting


def vote(project, reviewer, item, **fields):
    return acts.vote(project, panelist_id=reviewer, item=item, **fields).value


def test_meeting_list_pair_filter_and_one_item_as_seen(panel):
    project, (ann, bob, cy), items = panel
    for k, (a, b, c) in enumerate([("wrong", "wrong", "wrong"), ("wrong", "correct", "wrong"),
                                   ("unclear", "correct", "wrong")]):
        for who, verdict in ((ann, a), (bob, b), (cy, c)):
            vote(project, who, items[k], verdict=verdict, note=f"{verdict} says {who}")
    vote(project, bob, items[3], verdict="wrong", severity="major")
    vote(project, cy, items[3], verdict="correct")  # ann has not voted items[3]

    state = read_with(project, load_meeting, viewer_id=ann)
    assert [r.item for r in state.rows] == [items[1], items[2]]
    assert state.rows[0].split_fields == ("verdict",) and state.rows[0].phases == (1,)
    assert state.rows[0].file_name == f"ILSVRC2012_val_{items[1].image_id:08d}.JPEG"
    assert read_with(project, load_meeting, viewer_id=ann, field="severity").rows == []

    # bob and cy disagree on items 1, 2 and 3; ann has not voted 3: it stays hidden from her.
    pair = read_with(project, load_meeting, viewer_id=ann, field="verdict", pair=(bob, cy))
    assert [r.item for r in pair.rows] == [items[1], items[2]] and pair.hidden == 1
    bobs = read_with(project, load_meeting, viewer_id=bob, field="verdict", pair=(bob, cy)).rows
    # "Split on" says what the pair differs on, even where the rest of the panel has not voted (item 3).
    assert [r.split_fields for r in bobs] == [("verdict",)] * 3

    panel_view = acts.meeting_item(project, snapshot=state.snapshot, item=items[1], viewer_id=ann)
    assert [(c.name, c.vote.verdict, c.mine) for c in panel_view.columns] == [
        ("ann", "wrong", True), ("bob", "correct", False), ("cy", "wrong", False)]
    assert panel_view.majority.verdict == "wrong" and panel_view.unanimity["verdict"] is False
    assert [h.who for h in panel_view.history] == ["ann", "bob", "cy"]

    # Ann has not voted item 3: she sees none of its votes, no majority, no history.
    seen = acts.meeting_item(project, snapshot=state.snapshot, item=items[3], viewer_id=ann)
    assert [c.vote.verdict if c.vote else None for c in seen.columns] == [None, None, None]
    assert seen.majority is None and seen.history == []


def test_history_is_blind_per_field_like_the_votes(panel):
    """A verdict does not reveal, through the History tab, the severity and category
    another panelist gave before one's own."""
    project, (ann, bob, cy), items = panel
    item = items[0]
    vote(project, bob, item, verdict="wrong", severity="major", category="fine_grained", note="a toy")
    vote(project, bob, item, severity="minor")
    vote(project, cy, item, verdict="wrong", problematic=True, category="non_prototypical")
    vote(project, ann, item, verdict="wrong")

    def history(viewer):
        snapshot = read_with(project, load_meeting, viewer_id=viewer).snapshot
        panel = acts.meeting_item(project, snapshot=snapshot, item=item, viewer_id=viewer)
        return [(h.who, h.text) for h in panel.history]

    columns = acts.meeting_item(project, snapshot=read_with(project, load_meeting, viewer_id=ann).snapshot, item=item,
                                viewer_id=ann).columns
    assert [(c.name, c.vote.severity, c.vote.category) for c in columns] == [
        ("ann", None, None), ("bob", None, None), ("cy", None, None)]
    # The same mask in the history: bob's severity change is no news to ann yet.
    assert history(ann) == [("bob", "verdict: Wrong, note: 'a toy'"),
                            ("cy", "verdict: Wrong, flagged problematic"),
                            ("ann", "verdict: Wrong")]
    # Once ann rates severity, the severity changes show, the category still does not.
    vote(project, ann, item, severity="major")
    assert history(ann) == [("bob", "verdict: Wrong, severity: Major, note: 'a toy'"),
                            ("bob", "severity: Major → Minor"), ("cy", "verdict: Wrong, flagged problematic"),
                            ("ann", "verdict: Wrong"), ("ann", "severity: Major")]
    # The author sees their own acts in full.
    # In the vocabularies' captions, not their stored values (issue 23's walk: "fine_grained", "- -> wrong").
    assert history(bob)[:2] == [("bob", "verdict: Wrong, severity: Major, category: Fine-grained, "
                                        "note: 'a toy'"), ("bob", "severity: Major → Minor")]
