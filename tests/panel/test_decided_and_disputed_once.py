"""Decided and disputed from one function (issue 35, 2): the queue's header, its rows and its
Show filters, the meeting's rows and header, and `panel-status` all read
`reviewer.panel.standing.panel_standing`. A verdict the panel decided unanimously whose
severity it then splits on is disputed in phase 2, and named so; it is counted disputed only,
never in the Decided filter as well."""

from __future__ import annotations

import json

from reviewer.app import panel as acts
from reviewer.cli import main
from reviewer.panel.standing import Standing
from reviewer.review.queue_filter import QueueFilter, QueueStatus


def _meeting(panel):
    """ann chairs bob and cy. 0: verdict wrong by all, severity split (phase 2 disputed);
    1: verdicts split (phase 1 disputed); 2: correct by all (decided); 3: split, then locked
    (decided); 4, 5: nobody voted (open)."""
    project, (ann, bob, cy), items = panel
    for who, severity in ((ann, "major"), (bob, "minor"), (cy, "major")):
        acts.vote(project, panelist_id=who, item=items[0], verdict="wrong", severity=severity,
                  category="fine_grained")
    for who, verdict in ((ann, "wrong"), (bob, "correct"), (cy, "wrong")):
        acts.vote(project, panelist_id=who, item=items[1], verdict=verdict)
        acts.vote(project, panelist_id=who, item=items[2], verdict="correct")
        acts.vote(project, panelist_id=who, item=items[3], verdict="correct" if who == bob else "unclear")
    acts.lock(project, chair_id=ann, item=items[3])
    return project, ann, items


def test_the_queue_counts_shows_and_filters_one_standing(panel):
    project, ann, items = _meeting(panel)
    run_id = acts.meeting_state(project, viewer_id=ann).snapshot.facts[items[0]].runs[0]
    queue = acts.review_queue(project, run_id=run_id, panelist_id=ann)
    states = [queue.entry(item).state for item in items[:6]]
    assert [s.standing for s in states] == [Standing.DISPUTED, Standing.DISPUTED, Standing.DECIDED,
                                            Standing.DECIDED, Standing.OPEN, Standing.OPEN]
    assert states[0].decision.verdict == "wrong"  # the verdict stands; the rating is the meeting's
    assert states[0].dispute.words() == "disputed in phase 2: severity"
    assert states[1].dispute.words() == "disputed in phase 1: verdict"
    # Every row marked disputed is counted disputed, and the header adds up.
    assert all((s.dispute is not None) == (s.standing == Standing.DISPUTED) for s in states)
    assert queue.counts().describe().startswith("8 mistakes: 2 decided · 2 disputed · 4 open")
    shown = {}
    for status in (QueueStatus.DECIDED, QueueStatus.DISPUTED, QueueStatus.UNDECIDED):
        queue.apply(QueueFilter(status=status))
        shown[status] = {items.index(e.item) for e in queue.shown()}
    assert shown[QueueStatus.DECIDED] == {2, 3} and shown[QueueStatus.DISPUTED] == {0, 1}
    assert not shown[QueueStatus.DECIDED] & shown[QueueStatus.DISPUTED]
    assert shown[QueueStatus.UNDECIDED] == set(range(8)) - {2, 3}


def test_the_meeting_and_panel_status_read_the_same_standing(panel, capsys):
    project, ann, items = _meeting(panel)
    state = acts.meeting_state(project, viewer_id=ann)
    rows = {items.index(r.item): r for r in state.rows}
    assert sorted(rows) == [0, 1, 3]  # voted by all, not unanimous
    assert {i: (r.standing, r.open) for i, r in rows.items()} == {
        0: (Standing.DISPUTED, True), 1: (Standing.DISPUTED, True), 3: (Standing.DECIDED, False)}
    assert rows[0].dispute.words() == "disputed in phase 2: severity" and rows[0].decision == "wrong (unanimous)"
    assert state.counts() == {Standing.DECIDED: 1, Standing.DISPUTED: 2, Standing.OPEN: 0}
    assert main(["panel-status", str(project.root)]) == 0
    assert "Items: 2 decided · 2 disputed · 4 open" in capsys.readouterr().out
    assert main(["panel-status", str(project.root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["standing"] == {"decided": 2, "disputed": 2, "open": 4}
    # a vote since: the kept counts follow it (panel-status keeps a book between calls)
    for who in (ann, panel[1][2]):  # ann and cy agree with bob: minor by all
        acts.vote(project, panelist_id=who, item=items[0], severity="minor")
    assert main(["panel-status", str(project.root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["standing"] == {"decided": 3, "disputed": 1, "open": 4}
