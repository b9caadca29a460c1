"""Opening a project, for any front end: the window's "open" act (the command line
opens a project per command, `Project.open`).

Opening is one act: the project's database connected, the panelist entered
(`reviewer.panel.membership`: a known name, the connection's database role, or a
new name joining an open panel when asked), then what the window shows first,
read from one snapshot: how the project knows who acts, its runs and the panel's
rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from db.tables import Panelist
    from reviewer.app.changes import Done
    from reviewer.panel.rules import PanelRules
    from reviewer.project import Project


@dataclass(frozen=True)
class OpenedProject:
    project: Project  # open: the caller closes it
    panelist: Panelist  # who acts in this window
    runs: list[tuple[int, str, str, int]]  # (run id, model name, status, images), newest first
    identity: str  # how the project knows who acts, in words (reviewer.panel.identity.describe_identity)
    database_roles: bool  # the panelists are database roles (reviewer panel-setup)
    rules: PanelRules  # the panel's rules in force


def open_project(root: str | Path, panelist: str, *, join: bool = False) -> Done[OpenedProject]:
    """Open the project at `root` as `panelist` (`join`: a new name joins an open panel;
    NotOnPanel says when it may). On failure nothing stays open."""
    from reviewer.app.changes import Done
    from reviewer.app.panel import join_panel
    from reviewer.app.runs import runs_in
    from reviewer.panel.identity import describe_identity, uses_database_roles
    from reviewer.panel.rules import read_rules
    from reviewer.project import Project

    project = Project.open(root)
    try:
        joined = join_panel(project, panelist, join=join)
        with project.read() as session:
            opened = OpenedProject(project, joined.value, runs_in(session=session), describe_identity(session),
                                   uses_database_roles(session), read_rules(session))
    except BaseException:
        project.close()
        raise
    return Done(opened, joined.changes)
