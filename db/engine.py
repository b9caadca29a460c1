"""Engine and session factory: SQLite by default, any SQLAlchemy URL by choice.

SQLite is set up for several panelists on one file: WAL journal (readers never
block the writer), foreign keys on, a long busy timeout, and write
transactions that take the write lock up front (BEGIN IMMEDIATE), so two
processes never deadlock upgrading a read lock and "database is locked" does
not reach a user.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TypeVar

from sqlalchemy import create_engine as sa_create_engine
from sqlalchemy import event, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
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
    if url.startswith("sqlite"):
        engine = sa_create_engine(
            url,
            echo=echo,
            connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
        )
        _configure_sqlite(engine)
        return engine
    return sa_create_engine(url, echo=echo, pool_pre_ping=True)


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


# The scopes of `serialise`: what a read-then-write transaction reads first.
VOTES_OF_REVIEWER = 1  # key: the reviewer id (a vote merges into their latest; an undo takes their latest act)
DECISIONS = 2  # key 0: the chair's locks, overrides and reopenings read the standing decision first
EVIDENCE_SOURCES = 4  # key 0: an evidence import reads the stored sources, then replaces or adds one


def serialise(session: Session, scope: int, key: int) -> None:
    """Make transactions that read and then write the same state (`scope`, `key`) wait
    for each other, so that none writes from a read the other has made stale.

    PostgreSQL: a transaction-level advisory lock, held until commit or rollback.
    Writes run at READ COMMITTED, so every statement after the lock sees what the
    transaction before it committed (two windows of one panelist voting two fields
    of one item at once both count; five undos at once undo five acts). SQLite:
    nothing to do, a write transaction holds the database's one write lock from
    BEGIN IMMEDIATE on.
    """
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:scope, :key)"), {"scope": scope, "key": int(key)})


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
