"""Keep None, True and False alive under PySide6 builds that under-count them.

PySide6 6.12 on Python 3.11 drops one reference to the object a Python
override returns to C++ when that object is None, True or False: every
`paintEvent`, `resizeEvent`, `eventFilter`, or item-model `data()` returning
None takes one reference from the singleton (measured: -1 per call; str,
int and Qt values are counted right). After some ten thousand paints CPython
aborts with "Fatal Python error: none_dealloc". Python 3.12 made these
singletons immortal, which is what the bindings assume; on older CPython we
give them a reference count they cannot run out of. They are never freed
anyway, so this changes nothing else.
"""

from __future__ import annotations

import ctypes
import sys

_PINNED = 1 << 40  # a trillion calls' worth


def pin_singletons() -> None:
    """Make None, True and False effectively immortal on CPython < 3.12 (idempotent)."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return
    for obj in (None, True, False):
        refcount = ctypes.c_ssize_t.from_address(id(obj))  # ob_refcnt is a PyObject's first field
        if refcount.value < _PINNED // 2:
            refcount.value += _PINNED
