"""Cyclic garbage holding Qt objects is collected on the GUI thread only."""

from __future__ import annotations

import gc
import weakref

from reviewer.ui.app import GuiThreadCollector, create_app, hold_collections, release_collections, settle_heap


def _cycle():
    class Node:
        pass

    node = Node()
    node.self = node  # a cycle: only the cycle collector can free it
    gone = weakref.ref(node)
    del node
    return gone


def _cycles():
    """A weak reference to one cycle, made before 2,000 more (past the youngest generation's threshold)."""
    gone = _cycle()
    for _ in range(2_000):
        _cycle()
    return gone


def test_the_gui_thread_collects_cycles_and_nothing_collects_them_elsewhere(qtbot):
    app = create_app()
    (collector,) = app.findChildren(GuiThreadCollector)
    assert not gc.isenabled() and collector._timer.isActive() and collector._timer.interval() == GuiThreadCollector.INTERVAL_MS
    release_collections()  # (a new collector holds while the window starts: the last test)
    gone = _cycles()
    assert gone() is not None  # no automatic collection on whatever thread allocates
    collector.check()  # what the GUI thread's timer calls
    assert gone() is None


def test_settling_leaves_what_is_alive_out_of_later_collections_and_still_collects_new_cycles(qtbot):
    create_app()

    class Node:
        pass

    kept = Node()
    kept.self = kept
    before = gc.get_freeze_count()
    GuiThreadCollector.settle()
    try:
        assert gc.get_freeze_count() > before
        assert not any(obj is kept for obj in gc.get_objects())  # frozen: no generation holds it
        cycle = Node()
        cycle.self = cycle
        gone = weakref.ref(cycle)
        del cycle
        gc.collect(0)
        assert gone() is None  # made after the freeze: collected as before
    finally:
        gc.unfreeze()


def test_no_collection_while_a_project_opens_until_it_settles_or_the_hold_runs_out(qtbot, monkeypatch):
    app = create_app()
    (collector,) = app.findChildren(GuiThreadCollector)
    hold_collections()  # what opening a project does
    try:
        gone = _cycles()
        collector.check()
        assert collector.holding and gone() is not None  # held: the timer's check collects nothing
        settle_heap()  # the queue loaded: one full collection, the survivors frozen, collections resume
        assert not collector.holding and gone() is None
        hold_collections()
        gone = _cycles()
        now = __import__("time").monotonic()
        monkeypatch.setattr("reviewer.ui.app.time.monotonic", lambda: now + GuiThreadCollector.HOLD_S + 1)
        collector.check()  # an opening that never settles holds no longer than HOLD_S
        assert gone() is None
    finally:
        release_collections()
        gc.unfreeze()
