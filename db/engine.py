"""Engine and session factory: SQLite by default, any SQLAlchemy URL by choice.

SQLite is set up for several panelists on one file: WAL journal (readers never
block the writer), foreign keys on, a long busy timeout, and write
transactions that take the write lock up front (BEGIN IMMEDIATE), so two
processes never deadlock upgrading a read lock and "database is locked" does
not reach a user.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from sqlalchemy import create_engine as sa_create_engine
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlmodel import Session

T = TypeVar("T")

BUSY_TIMEOUT_MS = 60_000


def sqlite_url(path: str | Path) -> str:
    return f"sqlite:///{Path(path).resolve()}"


def create_engine(url: str, *, echo: bool = False) -> Engine:
    """Create the project's engine for a database URL (sqlite:/// or postgresql://)."""
    if url.startswith("postgresql://"):
        # psycopg 3 is the maintained driver; plain postgresql:// would ask for psycopg2.
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    if url.startswith("postgresql+psycopg"):
        _require_psycopg()
    if url.startswith("sqlite"):
        engine = sa_create_engine(
            url,
            echo=echo,
            connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
        )
        _configure_sqlite(engine)
        return engine
    engine = sa_create_engine(url, echo=echo, pool_pre_ping=True)
    if engine.dialect.name == "postgresql":
        _configure_postgres(engine)
    return engine


def _require_psycopg() -> None:
    """The PostgreSQL driver, or an error that says how to install it (it is an extra of the app)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise ModuleNotFoundError(
            'the PostgreSQL driver (psycopg) is not installed: install the app\'s postgres extra, pip install -e '
            '".[postgres]" in its folder (or pip install "imagenet-mistake-reviewer[postgres]")', name="psycopg"
        ) from None


def _configure_postgres(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):
        # Every lock wait is bounded: a session holding a lock we need ends in LockTimeout.
        with dbapi_conn.cursor() as cur:
            cur.execute(f"SET lock_timeout = {int(LOCK_TIMEOUT_S * 1000)}")
        dbapi_conn.commit()


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):  # pragma: no cover - exercised by every test
        # Take transaction control from pysqlite so BEGIN is ours (see below).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # FULL: a committed vote survives a power cut, not only an app crash.
        cur.execute("PRAGMA synchronous=FULL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        immediate = conn.get_execution_options().get("sqlite_immediate", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


@contextmanager
def read_session(engine: Engine) -> Iterator[Session]:
    """A session for reading, one consistent snapshot: every query in it sees the
    database as of its first query (SQLite: one read transaction of the WAL;
    PostgreSQL: REPEATABLE READ). It never takes the write lock."""
    bind = engine if is_sqlite(engine) else engine.execution_options(isolation_level="REPEATABLE READ")
    with Session(bind, expire_on_commit=False) as session:
        yield session


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """One unit of work: commits on success, rolls back on any error.

    On SQLite the transaction starts with BEGIN IMMEDIATE, so it waits for
    other writers (busy timeout) instead of failing later with a lock error.
    """
    bind = engine.execution_options(sqlite_immediate=True) if is_sqlite(engine) else engine
    with Session(bind, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


# The scopes of `serialise`: what a read-then-write transaction reads first (rows of app_lock).
VOTES_OF_PANELIST = 1  # key: the panelist id (a vote merges into their latest; an undo takes their latest act)
DECISIONS = 2  # key 0: the chair's locks, overrides and reopenings read the standing decision first
MIGRATION = 3  # key 0: one process upgrades the schema, the others wait and find it current
EVIDENCE_SOURCES = 4  # key 0: an evidence import reads the stored sources, then replaces or adds one

# How long a PostgreSQL statement waits for a lock before it gives up with LockTimeout
# (REVIEWER_LOCK_TIMEOUT_S overrides it): a lock held by a stuck or hostile session
# must end in a message, never in a hang.
LOCK_TIMEOUT_S = float(os.environ.get("REVIEWER_LOCK_TIMEOUT_S", "30"))

# Why a role may not take a scope's lock: whose act it is.
_SCOPE_WORDS = {VOTES_OF_PANELIST: "a panelist votes and undoes only as themselves",
                DECISIONS: "locking, overriding and reopening decisions is the chair's act",
                MIGRATION: "upgrading the schema is the project owner's act",
                EVIDENCE_SOURCES: "importing evidence is the project owner's act"}


class LockTimeout(RuntimeError):
    """A lock the act needs stayed held by another session past LOCK_TIMEOUT_S (or a row
    lock the connection's role may not take). Nothing of the act was written."""


def serialise(session: Session, scope: int, key: int) -> None:
    """Make transactions that read and then write the same state (`scope`, `key`) wait
    for each other, so that none writes from a read the other has made stale.

    PostgreSQL: the row (scope, key) of app_lock locked FOR UPDATE, held until commit
    or rollback. Writes run at READ COMMITTED, so every statement after the lock sees
    what the transaction before it committed (two windows of one panelist voting two
    fields of one item at once both count; five undos at once undo five acts). A row,
    not an advisory key: any role can hold any advisory key, while app_lock's
    row-level security lets a panelist's role lock only its own row and the chair the
    decisions' (reviewer.panel.roles). The wait is bounded by the connection's
    lock_timeout. SQLite: nothing to do, a write transaction holds the database's one
    write lock from BEGIN IMMEDIATE on.
    """
    if session.get_bind().dialect.name != "postgresql":
        return
    params = {"scope": scope, "key": int(key)}
    try:
        locked = session.execute(text("SELECT 1 FROM app_lock WHERE scope = :scope AND key = :key FOR UPDATE"),
                                 params).first()
        if locked is None:  # a panelist made before its row, or a row this role may not lock
            session.execute(text("INSERT INTO app_lock (scope, key) VALUES (:scope, :key) ON CONFLICT DO NOTHING"),
                            params)
            locked = session.execute(text("SELECT 1 FROM app_lock WHERE scope = :scope AND key = :key "
                                          "FOR UPDATE"), params).first()
    except DBAPIError as exc:
        timeout = lock_timeout_error(exc)
        if timeout is not None:
            raise timeout from None
        if getattr(getattr(exc, "orig", None), "sqlstate", None) == "42501":
            raise _not_yours(scope) from None
        raise
    if locked is None:
        raise _not_yours(scope)


def _not_yours(scope: int) -> LockTimeout:
    return LockTimeout(f"the database refused your role the lock this act takes: "
                       f"{_SCOPE_WORDS.get(scope, 'not your act on this panel')}; nothing was written")


def lock_timeout_error(exc: BaseException) -> LockTimeout | None:
    """LockTimeout for PostgreSQL's 'canceling statement due to lock timeout' (SQLSTATE
    55P03), None for any other error."""
    if getattr(getattr(exc, "orig", exc), "sqlstate", None) != "55P03":
        return None
    return LockTimeout(f"another session has held a lock this act needs for over {LOCK_TIMEOUT_S:g} s (another "
                       "panelist's long transaction, or a stuck process): nothing was written; retry in a moment, "
                       "and if it persists ask the project's owner to end the holding session (pg_stat_activity, "
                       "pg_terminate_backend)")


def with_retry(engine: Engine, work: Callable[[Session], T], *, attempts: int = 5) -> T:
    """Run `work(session)` in a write transaction, retrying transient lock errors.

    SQLite's busy timeout already waits for other writers; this covers the rare
    case it gives up (very long foreign transactions), and PostgreSQL
    serialization failures.
    """
    delay = 0.05
    for attempt in range(attempts):
        try:
            with write_session(engine) as session:
                return work(session)
        except OperationalError as exc:
            transient = "locked" in str(exc).lower() or "serializ" in str(exc).lower()
            if not transient or attempt == attempts - 1:
                raise
            time.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")
