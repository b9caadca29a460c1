"""Schema migrations with Alembic, run programmatically on open.

A project made with an older version of the app is upgraded to the current
schema when it is opened; a project made by a newer app is refused rather
than damaged.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


class SchemaTooNewError(RuntimeError):
    """The database was written by a newer version of the app."""


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def head_revision() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
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
    _upgrade(engine, revision, step=command.downgrade)


def _upgrade(engine: Engine, revision: str, *, step=command.upgrade) -> None:
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
