"""Qt-free services for any front end: one function per user act (each one unit
of work, returning what changed), and what the window shows and keeps that is
not a domain rule of its own: a mistake's details, the key map, the user's
preferences, the demo project.

Sits above the domain packages; `reviewer.ui` and `reviewer.cli` call it.
Imports no Qt.
"""
