"""Schema migrations with Alembic, run programmatically on open.

A project made with an older version of the app is upgraded to the current
schema when it is opened; a project made by a newer app is refused rather
than damaged.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import Engine

if TYPE_CHECKING:  # alembic loads only when a schema changes (0.3-1 s of every command's start)
    from alembic.config import Config
    from alembic.script import ScriptDirectory

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


class SchemaTooNewError(RuntimeError):
    """The database was written by a newer version of the app."""


def alembic_config() -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def _known(script: ScriptDirectory, revision: str) -> bool:
    try:
        return script.get_revision(revision) is not None
    except Exception:  # alembic raises for an unknown revision id
        return False


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database to `revision` (default: the newest schema).

    Several processes opening one older project at once take turns: on SQLite a
    lock file beside the database, on PostgreSQL a transaction-level advisory lock;
    the first upgrades, the others find the schema current and go on.
    """
    if revision == "head" and _at_head(engine):
        return  # the usual open, decided without loading alembic
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config())
    current = current_revision(engine)
    _check_known(script, current)
    if revision == "head" and current == script.get_current_head():
        return  # the usual open: nothing to migrate, no lock to take
    if engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        from filelock import FileLock

        with FileLock(f"{engine.url.database}.migrate.lock", timeout=600):
            _check_known(script, current_revision(engine))
            _upgrade(engine, revision)
    else:
        _upgrade(engine, revision)


def _at_head(engine: Engine) -> bool:
    """Whether the database's one recorded revision is the newest migration file's, read
    as text: alembic itself is not needed for the usual open. False whenever unsure (no
    version table, several heads or rows, files it cannot read), and alembic decides."""
    versions = MIGRATIONS_DIR / "versions"
    try:
        head = _file_head(versions, versions.stat().st_mtime_ns)
        if head is None:
            return False
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    except Exception:  # noqa: BLE001 - a new database has no version table: alembic makes it
        return False
    return rows == [head]


_REVISION = re.compile(r"^revision\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", re.MULTILINE)
_DOWN_REVISION = re.compile(r"^down_revision\s*(?::[^=]*)?=\s*(.*)$", re.MULTILINE)


@lru_cache(maxsize=4)
def _file_head(versions: Path, _changed: int) -> str | None:
    """The one revision no migration file revises (as alembic's head), or None when the
    files name several heads or one cannot be read. `_changed`: the folder's mtime, so an
    added file is seen."""
    revisions, revised = set(), set()
    for path in versions.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        revision, down = _REVISION.search(source), _DOWN_REVISION.search(source)
        if revision is None:
            if path.name == "__init__.py":
                continue
            return None
        revisions.add(revision.group(1))
        if down is not None:
            revised.update(re.findall(r"['\"]([^'\"]+)['\"]", down.group(1)))
    heads = revisions - revised
    return heads.pop() if len(heads) == 1 else None


def _check_known(script: ScriptDirectory, current: str | None) -> None:
    if current is not None and not _known(script, current):
        raise SchemaTooNewError(
            f"the project's database has schema revision {current}, which this version "
            "of the app does not know; update the app to open it"
        )


def _migration_lock(conn) -> None:
    """PostgreSQL: the row (MIGRATION, 0) of app_lock, which no panelist's role may lock
    (revision 0009 on); before that table exists, the advisory key it replaced. Waits
    at most the connection's lock_timeout (db.engine.LOCK_TIMEOUT_S)."""
    from db.engine import MIGRATION

    if conn.exec_driver_sql("SELECT to_regclass('app_lock')").scalar() is not None:
        conn.exec_driver_sql(f"SELECT 1 FROM app_lock WHERE scope = {MIGRATION} AND key = 0 FOR UPDATE")
    else:
        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION}, 0)")


def downgrade(engine: Engine, revision: str) -> None:
    """Take the database back to an older `revision` (for going back to an older app).
    A step that would lose data refuses, and then nothing at all is changed (one
    transaction)."""
    from alembic import command

    _upgrade(engine, revision, step=command.downgrade)


def _upgrade(engine: Engine, revision: str, *, step=None) -> None:
    from alembic import command

    step = step or command.upgrade
    cfg = alembic_config()
    sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as conn:
        raw = conn.connection.driver_connection if sqlite else None
        if sqlite:
            # Alembic rebuilds a SQLite table to change its constraints (copy, drop, rename);
            # dropping a table others reference needs foreign keys off, and the pragma only
            # takes effect outside a transaction (so on the driver's connection, before SQLAlchemy
            # begins one). They are checked once the schema is done.
            raw.execute("PRAGMA foreign_keys=OFF")
        try:
            with conn.begin():
                if engine.dialect.name == "postgresql":  # the others wait here, then find nothing to do
                    _migration_lock(conn)
                cfg.attributes["connection"] = conn
                step(cfg, revision)
                if sqlite:
                    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise RuntimeError(f"the schema upgrade left {len(broken)} broken references "
                                           f"(first: {tuple(broken[0])}); the database is unchanged")
        finally:
            if sqlite:
                raw.execute("PRAGMA foreign_keys=ON")
