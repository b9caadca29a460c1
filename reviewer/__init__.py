"""ImageNet mistake reviewer: the headless domain (no Qt outside reviewer.ui)."""

__version__ = "0.1.0"
