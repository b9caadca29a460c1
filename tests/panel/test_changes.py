"""Changes as records: every act says what it changed, and the poll reports what anyone
else did (another window, another process) as the same record, from a cursor."""

from __future__ import annotations

from review_data import add_images, add_run

from reviewer.app import panel as acts
from reviewer.app.changes import Changes


def test_acts_return_what_they_changed(panel):
    project, (ann, bob, cy), items = panel
    first, second = items[0], items[1]
    assert acts.vote(project, panelist_id=bob, item=first, verdict="wrong").changes == Changes(
        items=frozenset([first]), votes=True)
    assert acts.note(project, panelist_id=bob, item=first, text="a toy").changes == Changes(
        items=frozenset([first]), notes=True)
    assert acts.undo(project, panelist_id=bob).changes.items == {first}
    assert acts.undo(project, panelist_id=cy).changes.empty  # nothing to undo: nothing changed
    batch = acts.vote_batch(project, panelist_id=cy, votes=[(first, {"verdict": "wrong"}),
                                                            (second, {"verdict": "unclear"})])
    assert batch.changes.items == {first, second} and len(batch.value) == 2
    assert acts.add_panelist(project, "dee").changes == Changes(panel=True)


def test_the_poll_reports_anyones_acts_as_the_same_record(panel):
    project, (ann, bob, cy), items = panel
    seen, other = items[0], items[1]
    cursor = acts.cursor(project)
    changes, cursor = acts.poll(project, cursor=cursor)
    assert changes.empty  # nothing happened since the view loaded

    # Acts of another panelist, and one's own from another process, all come through.
    acts.vote(project, panelist_id=ann, item=seen, verdict="wrong")
    acts.note(project, panelist_id=cy, item=other, text="agreed")
    changes, cursor = acts.poll(project, cursor=cursor)
    assert changes == Changes(items=frozenset([seen, other]), votes=True, notes=True)
    assert acts.poll(project, cursor=cursor)[0].empty  # the returned cursor moves past them

    for who in (ann, bob, cy):
        acts.vote(project, panelist_id=who, item=other, verdict="wrong")
    acts.lock(project, chair_id=ann, item=other)
    changes, cursor = acts.poll(project, cursor=cursor)
    assert changes.items == {other} and changes.decisions and changes.votes

    # A new run, new labels, a new panelist and a change of chair are news too.
    ids = add_images(project, [300, 301], start=900)
    run_id = add_run(project, "model-B", {ids[0]: 5, ids[1]: 301})
    acts.add_panelist(project, "dee", chair=True)
    changes, cursor = acts.poll(project, cursor=cursor)
    assert changes.runs == {run_id} and changes.panel and changes.labels


def test_the_poll_leaves_out_only_the_votes_a_window_already_published(panel):
    project, (ann, bob, cy), items = panel
    first, second = items[0], items[1]
    cursor = acts.cursor(project)
    mine = acts.vote(project, panelist_id=bob, item=first, verdict="wrong").value.id  # published by the window
    acts.vote(project, panelist_id=bob, item=second, verdict="correct")  # bob again, from the command line
    changes, after = acts.poll(project, cursor=cursor, known_votes=frozenset([mine]))
    assert changes == Changes(items=frozenset([second]), votes=True)
    assert acts.poll(project, cursor=cursor, known_votes=frozenset([mine + 1, mine]))[0].empty
    assert after.vote_id == mine + 1  # the cursor still moves past the known rows


def test_the_record_holds_no_votes_so_blind_review_holds(panel):
    """A view refreshes the items it is told about through reads that apply blind review:
    the record itself carries no vote, so nothing leaks to a panelist who has not voted."""
    project, (ann, bob, _cy), items = panel
    cursor = acts.cursor(project)
    acts.vote(project, panelist_id=ann, item=items[2], verdict="correct", note="it is a toy")
    changes, _ = acts.poll(project, cursor=cursor)
    assert changes.items == {items[2]}
    assert acts.others(project, viewer_id=bob, item=items[2]) is None  # bob has not voted: hidden
