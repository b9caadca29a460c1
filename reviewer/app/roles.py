"""Panelists as PostgreSQL roles, for any front end (`reviewer panel-setup`): the
owner of the project's database makes the panel's roles and grants, and records
the panel (`reviewer.panel.roles` holds the SQL and its rules)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from reviewer.app.changes import Changes, Done
from reviewer.project import Project


@dataclass(frozen=True)
class RoleSetup:
    chair: str
    panelists: tuple[str, ...]
    revoked: tuple[str, ...]
    statements: list[str]  # the SQL run (or, with print_only, to be run)
    applied: bool
    # What the panel's roles may still store beyond their bounded rows (temporary tables, large
    # objects), each with the SQL that closes it: only a superuser may refuse large objects.
    left_open: tuple[str, ...] = ()


def set_up_roles(project: Project, *, chair: str, panelists: list[str] = (), revoke: list[str] = (),
                 print_only: bool = False) -> Done[RoleSetup]:
    """Make (or extend) the panel's database roles, or with `print_only` only say the SQL.
    Refused on SQLite, which has no users."""
    from reviewer.panel import roles as panel_roles

    if project.engine.dialect.name != "postgresql":
        raise panel_roles.PanelSetupError(
            f"{project.root} keeps its database in SQLite, which has no users: whoever can write project.db can act "
            "under any name (the history stays append-only). Panelists as database roles need a PostgreSQL project "
            "('reviewer init PROJECT --db postgresql://HOST/DB')")
    roles = panel_roles.plan(project.engine.url.database, list(panelists), chair)
    statements = panel_roles.setup_statements(roles)
    if revoke:
        if set(revoke) & set(roles.panelists):
            raise panel_roles.PanelSetupError("a role cannot be both added and revoked: "
                                              + ", ".join(sorted(set(revoke) & set(roles.panelists))))
        statements += panel_roles.revoke_statements(roles, list(revoke))
    setup = RoleSetup(roles.chair, tuple(roles.panelists), tuple(revoke), statements, applied=not print_only)
    if print_only:
        return Done(setup, Changes())
    panel_roles.check_login_roles(project.engine, list(roles.panelists))
    panel_roles.apply(project.engine, statements)
    left_open = tuple(panel_roles.storage_left_open(project.engine, roles))
    return Done(replace(setup, left_open=left_open), Changes(panel=True))
