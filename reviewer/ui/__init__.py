"""The PySide6 review window: the only place Qt is imported (see ARCHITECTURE.md)."""

from reviewer.ui._pyside_compat import pin_singletons

# Before any widget exists: see _pyside_compat for the PySide6 refcount bug it guards against.
pin_singletons()
