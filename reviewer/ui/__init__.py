"""The PySide6 review window: the only place Qt is imported (see ARCHITECTURE.md)."""
