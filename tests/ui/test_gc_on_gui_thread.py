"""Cyclic garbage holding Qt objects is collected on the GUI thread only."""

from __future__ import annotations

import gc
import weakref

from reviewer.ui.app import GuiThreadCollector, create_app


def test_the_gui_thread_collects_cycles_and_nothing_collects_them_elsewhere(qtbot):
    app = create_app()
    (collector,) = app.findChildren(GuiThreadCollector)
    assert not gc.isenabled() and collector._timer.isActive() and collector._timer.interval() == GuiThreadCollector.INTERVAL_MS

    class Node:
        pass

    node = Node()
    node.self = node  # a cycle: only the cycle collector can free it
    gone = weakref.ref(node)
    del node
    for _ in range(2_000):  # past the youngest generation's threshold
        extra = Node()
        extra.self = extra
    del extra
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
