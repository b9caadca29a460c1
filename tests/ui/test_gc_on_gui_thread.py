"""Cyclic garbage holding Qt objects is collected on the GUI thread only."""

from __future__ import annotations

import gc
import weakref

from reviewer.ui.app import GuiThreadCollector, create_app


def test_the_gui_thread_collects_cycles_and_nothing_collects_them_elsewhere(qtbot):
    app = create_app()
    (collector,) = app.findChildren(GuiThreadCollector)
    assert not gc.isenabled() and collector._timer.isActive() and collector._timer.interval() == 500

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
