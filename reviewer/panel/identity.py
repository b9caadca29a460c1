"""Who is acting: the panelist a vote, a note or a decision belongs to.

Two ways a project knows it, and the README says which holds where:

- **Database roles** (PostgreSQL, after `reviewer panel-setup`): every panelist
  connects as their own database role and the panelist *is* that role
  (`current_user`); a name on the command line or in the window cannot change
  it. The server enforces it as well (`reviewer.panel.roles`: row-level security and
  privileges), so even raw SQL cannot vote as someone else.
- **Trust** (SQLite, or PostgreSQL without panel roles): whoever can write the
  database file or holds its URL may act under any name. The name is the one
  given (`--panelist`, the window's name box), by default the OS user's login
  name. History rows are append-only either way (triggers, migration 0005).
"""

from __future__ import annotations

import getpass
from typing import TYPE_CHECKING

from reviewer.errors import UserError

if TYPE_CHECKING:  # the window asks default_name() before its first paint, before any database is open
    from sqlmodel import Session

    from db.tables import Panelist

IDENTITY_SETTING = "identity"
DATABASE_ROLES = "database-roles"


class IdentityError(UserError):
    """An act under a name the connection is not, or by a role that is not a panelist."""


def default_name() -> str:
    """The OS user's login name: the panelist's name when none is given (trust mode)."""
    try:
        return getpass.getuser()
    except Exception:  # no login name in this environment (some containers)
        return ""


def uses_database_roles(session: Session) -> bool:
    """The project's panelists are database roles (set by `reviewer panel-setup`)."""
    if session.get_bind().dialect.name != "postgresql":
        return False
    from db.tables import ProjectSetting

    row = session.get(ProjectSetting, IDENTITY_SETTING)
    return row is not None and row.value == DATABASE_ROLES


def session_role(session: Session) -> str:
    from sqlalchemy import text

    return session.execute(text("SELECT current_user")).scalar_one()


def acting_panelist(*, session: Session, name: str | None) -> Panelist:
    """The panelist acting in this session.

    Database roles: the connection's role; a different `name` is refused (it would
    be a claim the database does not back). Trust: the panelist called `name`
    (default: the OS user), who must be on the panel already (a typo does not add one).
    """
    from sqlalchemy import select

    from db.tables import Panelist
    from reviewer.panel.lookup import require_panelist

    if uses_database_roles(session):
        role = session_role(session)
        if name and name.strip() and name.strip() != role:
            raise IdentityError(
                f"you are connected to the panel's database as {role!r}, and on this panel an act is recorded "
                f"under the role that makes it, so it cannot be made as {name.strip()!r}; leave out the name, "
                f"or connect as that panelist's role (PGUSER={name.strip()} with their password in ~/.pgpass)")
        row = session.execute(select(Panelist).where(Panelist.name == role)).scalar_one_or_none()
        if row is None:
            raise IdentityError(
                f"the database role {role!r} you are connected as is not on this project's panel; the project's "
                f"owner adds it with 'reviewer panel-setup PROJECT --panelist {role}'")
        return row
    name = (name or "").strip() or default_name()
    if not name:
        raise IdentityError("give your name on the panel (--panelist NAME); the OS reports no login name")
    return require_panelist(session=session, name=name)


def describe_identity(session: Session) -> str:
    """One line for the window and `reviewer panelists`: how this project knows who acts."""
    if uses_database_roles(session):
        return (f"signed in as the database role {session_role(session)!r}: the server records every act "
                "under it and refuses changes to others' votes")
    if session.get_bind().dialect.name == "sqlite":
        return ("SQLite project: anyone who can write the project's file can act under any name "
                "(trust by file permissions); the history is append-only")
    return ("shared PostgreSQL login: anyone with the project's URL can act under any name; "
            "'reviewer panel-setup' gives each panelist their own database role")
