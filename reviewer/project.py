"""A review project: a folder holding its settings, its database (SQLite by
default, or a URL to a shared PostgreSQL server) and the runs' probability files.

    PROJECT/
      project.json     {"format": 1, "db_url": null | "postgresql://..."}
      project.db       the SQLite database (when db_url is null)
      runs/            run_<id>.probs.f16.npy, one per model run

Units of work: a user act opens one at the edge (a CLI command, an app act
for the window) and passes its session to the domain's functions, which take
it as a keyword argument and never open their own. `read()` is one consistent
snapshot; `write(work)` runs `work(session)` in one write transaction,
committed when it returns and retried whole on a transient lock.
"""

from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, TypeVar

from reviewer._files import atomic_write_text
from reviewer.errors import UserError
from reviewer.redact import register_url, scrub, unencoded_at

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine
    from sqlmodel import Session

    from db.tables import Image

# SQLAlchemy, SQLModel, Alembic and the tables (about 0.5 s to import) load when a project is
# connected, not when this module is: every command imports it, and a wrong path, name or
# option is answered before any of them is needed (issue 24: every command answers at once).

T = TypeVar("T")
PROJECT_FILE = "project.json"
FORMAT = 1


class ProjectError(UserError):
    """A project folder that cannot be created or opened; the message says why."""


@dataclass
class Project:
    root: Path
    db_url: str = field(repr=False)  # may hold a password: never shown
    engine: Engine
    _intact: bool = field(default=False, repr=False)  # the integrity check passed (before the first write)

    # -- opening -----------------------------------------------------------
    @classmethod
    def create(cls, root: str | Path, *, db_url: str | None = None) -> "Project":
        """Make a new project folder (or reuse an empty one) and its schema."""
        root = Path(root).expanduser().resolve()
        if (root / PROJECT_FILE).exists():
            raise ProjectError(f"{root} is already a project; add files to it with 'reviewer import-images' "
                               "or 'reviewer import-labels', or choose a new folder")
        made = [p for p in (*reversed(root.parents), root, root / "runs") if not p.exists()]
        database = [root / f"project.db{suffix}" for suffix in ("", "-wal", "-shm")]
        fresh = [f for f in database if not f.exists()]
        root.mkdir(parents=True, exist_ok=True)
        (root / "runs").mkdir(exist_ok=True)
        try:
            project = cls._connect(root, db_url)
            project.set_setting("name", root.name)
        except BaseException:
            # Nothing half-made stays behind (a database that does not exist, a URL of an
            # unsupported kind): the same 'reviewer init' works once the cause is fixed.
            for file in fresh:
                file.unlink(missing_ok=True)
            for folder in reversed(made):
                try:
                    folder.rmdir()  # only if empty
                except OSError:
                    pass
            raise
        # Written last: a folder with project.json always has its database.
        atomic_write_text(root / PROJECT_FILE, json.dumps({"format": FORMAT, "db_url": db_url}, indent=2))
        return project

    @classmethod
    def open(cls, root: str | Path) -> "Project":
        """Open an existing project, upgrading its schema if it is older."""
        root = check_project_folder(root)
        config_path = root / PROJECT_FILE
        try:
            config = json.loads(config_path.read_text())
        except PermissionError:
            raise ProjectError(f"{config_path} cannot be read by you (permission denied): the project's owner makes "
                               f"it readable (chmod a+r {config_path}); the file itself is fine") from None
        except (OSError, json.JSONDecodeError) as exc:
            raise ProjectError(f"{config_path} is unreadable ({exc}); restore it from a backup") from exc
        if not config.get("db_url"):
            database = root / "project.db"
            size = database.stat().st_size if database.exists() else None
            if not size:
                # Opening would make a new, empty schema in its place and take writes into it.
                raise ProjectError(
                    f"{database} is {'empty (0 bytes)' if size == 0 else 'missing'}, though {config_path} says "
                    f"this is a project: its records are gone (a copy cut short, a full disk?). Restore "
                    f"project.db from a backup; to start afresh, make a new project with 'reviewer init "
                    f"NEW_FOLDER'. Nothing was changed.")
        return cls._connect(root, config.get("db_url"))

    @classmethod
    def open_or_create(cls, root: str | Path, *, db_url: str | None = None) -> "Project":
        root = Path(root).expanduser()
        if (root / PROJECT_FILE).exists():
            return cls.open(root)
        return cls.create(root, db_url=db_url)

    @classmethod
    def _connect(cls, root: Path, db_url: str | None) -> "Project":
        from db import migrate
        from db.engine import create_engine, sqlite_url

        url = os.path.expandvars(db_url) if db_url else sqlite_url(root / "project.db")
        shown = register_url(url)  # its password never appears in a message (reviewer.redact)
        if not url.startswith(("sqlite:", "postgresql:", "postgresql+psycopg:")):
            raise ProjectError(scrub(f"{shown}: a project's database is SQLite (the default: leave out --db) or "
                                     "PostgreSQL (postgresql://USER@HOST/DATABASE)"))
        try:
            engine = create_engine(url)
            migrate.upgrade(engine)
        except migrate.SchemaTooNewError as exc:
            raise ProjectError(scrub(f"{root}: {exc}")) from None
        except Exception as exc:  # connection refused, bad URL, ...
            if refusal_error(exc) is not None:  # a panelist's role may not change the schema
                raise ProjectError(scrub(
                    f"the database of {root} ({shown}) has an older schema, and upgrading it needs its owner: "
                    f"ask the project's owner to open the project once with this version of the app (any "
                    f"'reviewer' command), then try again; nothing was changed")) from None
            damaged = damage_error(exc, root)
            if damaged is not None:
                raise damaged from None
            detail = " ".join(str(getattr(exc, "orig", None) or exc).split())
            if "CONNECT privilege" in detail:
                detail += ("; your database role is not on this project's panel: its owner adds you with "
                           "'reviewer panel-setup PROJECT --panelist ROLE'")
            if unencoded_at(url):
                detail += "; an @ in the URL's password is read as the end of it: write it as %40"
            raise ProjectError(scrub(f"cannot open the database of {root} ({shown}): {detail}")) from None
        return cls(root=root, db_url=url, engine=engine)

    def close(self) -> None:
        self.engine.dispose()

    # -- units of work ---------------------------------------------------------
    @contextmanager
    def read(self) -> Iterator[Session]:
        """One consistent read: every query in the block sees the same moment."""
        from db.engine import read_session

        with read_session(self.engine) as session:
            yield session

    def write(self, work: Callable[[Session], T]) -> T:
        """`work(session)` as one write transaction: all of it is committed, or none.
        A SQLite database that fails its integrity check takes no write (`check_integrity`)."""
        from db.engine import LockTimeout, lock_timeout_error, with_retry

        if not self._intact:
            self.check_integrity()
        try:
            return with_retry(self.engine, work)
        except Exception as exc:
            damaged = damage_error(exc, self.root)
            if damaged is not None:
                raise damaged from None
            refused = refusal_error(exc) or connection_lost_error(exc) or value_error(exc)
            if refused is not None:
                raise refused from None
            waited = exc if isinstance(exc, LockTimeout) else lock_timeout_error(exc)
            if waited is not None:
                raise ProjectError(str(waited)) from None
            raise

    # The tables of the panel's history and settings: what no rerun or re-import can give back.
    HISTORY_TABLES = ("vote", "decision", "discussion_note", "panelist", "project_setting", "app_lock", "zoom_probe")
    FULL_CHECK_BYTES = 32 * 1024 * 1024

    def check_integrity(self) -> None:
        """SQLite's quick check (every page and index readable and consistent), once per opened
        project before its first write: a damaged database refuses writes rather than take votes
        it may lose. Up to 32 MiB the whole file is checked (50-230 ms on a 20,000-image project);
        above, the tables of the panel's history and settings (`HISTORY_TABLES`), in milliseconds,
        where the whole file of 50,000 images and twenty runs' predictions took half a second at
        every `reviewer vote`: the predictions, mistakes and labels are recomputed by a rerun or an
        import, and a damaged page among them still stops the write that reads it (SQLite reports
        it, `damage_error` names the file). PostgreSQL keeps its own pages; nothing to do."""
        if self.engine.dialect.name == "sqlite":
            path = self.root / "project.db"
            whole = not path.exists() or path.stat().st_size <= self.FULL_CHECK_BYTES
            pragmas = (["PRAGMA quick_check"] if whole
                       else [f"PRAGMA quick_check({table})" for table in self.HISTORY_TABLES])
            try:
                with self.engine.connect() as conn:
                    tables = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table'")}
                    problems = []
                    for pragma in pragmas:
                        table = pragma[pragma.find("(") + 1:-1] if "(" in pragma else None
                        if table is None or table in tables:
                            problems += [row[0] for row in conn.exec_driver_sql(pragma).fetchall() if row[0] != "ok"]
            except Exception as exc:
                damaged = damage_error(exc, self.root)
                if damaged is not None:
                    raise damaged from None
                raise
            if problems:
                raise _damaged(self.root, f"{len(problems)} problem(s), first: {problems[0]}")
        self._intact = True

    # -- settings ----------------------------------------------------------
    def setting(self, key: str, default: str | None = None) -> str | None:
        from db.engine import read_session

        with read_session(self.engine) as session:
            return read_setting(session=session, key=key, default=default)

    def set_setting(self, key: str, value: str) -> None:
        from db.engine import write_session

        with write_session(self.engine) as session:
            write_setting(session=session, key=key, value=value)

    @property
    def name(self) -> str:
        return self.setting("name", self.root.name) or self.root.name

    @property
    def images_root(self) -> Path | None:
        value = self.setting("images_root")
        return Path(value) if value else None

    @property
    def runs_dir(self) -> Path:
        path = self.root / "runs"
        path.mkdir(exist_ok=True)
        return path

    # -- images --------------------------------------------------------------
    def image_file(self, image: Image) -> Path | None:
        """The image's file on disk, or None when the project has no file for it."""
        return self.stored_path_file(image.path)

    def stored_path_file(self, stored: str | None) -> Path | None:
        """The file of an image whose `Image.path` is `stored` (relative to the images' root)."""
        if not stored:
            return None
        path = Path(stored)
        if not path.is_absolute():
            base = self.images_root or self.root
            path = base / path
        return path

    def image_count(self) -> int:
        from sqlalchemy import func
        from sqlmodel import select

        from db.engine import read_session
        from db.tables import Image

        with read_session(self.engine) as session:
            return session.exec(select(func.count()).select_from(Image)).one()


def check_project_folder(root: str | Path) -> Path:
    """The project folder's resolved path, or a clear error when it holds no project:
    checked before anything heavy loads, so a wrong path is answered at once."""
    root = Path(root).expanduser().resolve()
    if not (root / PROJECT_FILE).exists():
        raise ProjectError(f"{root} is not a review project (no {PROJECT_FILE}); create one with "
                           f"'reviewer init {root}'")
    return root


def read_setting(*, session: Session, key: str, default: str | None = None) -> str | None:
    """A project setting ("name", "images_root", ...) within a unit of work."""
    from db.tables import ProjectSetting

    row = session.get(ProjectSetting, key)
    return row.value if row else default


def write_setting(*, session: Session, key: str, value: str) -> None:
    from db.tables import ProjectSetting

    row = session.get(ProjectSetting, key) or ProjectSetting(key=key)
    row.value = value
    session.add(row)


def _damaged(root: Path, detail: str) -> ProjectError:
    return ProjectError(
        f"the database of {root} is damaged ({detail}); nothing was written. Restore project.db from a backup, "
        f"or recover what is readable: sqlite3 project.db .recover | sqlite3 recovered.db, then replace "
        f"project.db by recovered.db (keep the damaged file)")


def refusal_error(exc: BaseException) -> ProjectError | None:
    """A clear error for a write the database refused by privilege (PostgreSQL SQLSTATE
    42501: no privilege, a row-level security policy, an append-only trigger), None
    for any other error. Nothing of the act was written: its transaction rolled back."""
    if getattr(getattr(exc, "orig", None), "sqlstate", None) != "42501":
        return None
    detail = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
    if "row-level security" in detail and "decision" in detail:
        why = "locking and overriding decisions needs the chair's database role"
    elif "row-level security" in detail:
        why = "a panelist adds only their own votes and notes, and undoes only their own votes"
    elif "append-only" in detail:
        why = "the panel's history is never changed or deleted"
    else:
        why = ("a panelist's role may add votes, notes and decisions; adding panelists, runs, images and labels "
               "is for the project's owner")
    return ProjectError(f"the database refused this act ({detail}): {why}; nothing was written")


def value_error(exc: BaseException) -> ProjectError | None:
    """A clear error for a value the database cannot store as given (PostgreSQL: text
    longer than its column, a NUL character in text), None for any other error. The
    app checks what a user types; this names what slipped past, not a traceback."""
    orig = getattr(exc, "orig", None) or exc
    text = " ".join(str(orig).split())
    if getattr(orig, "sqlstate", None) == "22001" or "value too long for type" in text:
        return ProjectError(scrub(f"a value is longer than the database holds ({text}): shorten it; nothing was "
                                  "written"))
    if "cannot contain NUL" in text or getattr(orig, "sqlstate", None) == "22021":
        return ProjectError(scrub(f"a text holds a NUL character (\\x00) or bytes that are not text ({text}): "
                                  "remove it; nothing was written"))
    return None


_LOST_SIGNS = ("server closed the connection", "terminating connection", "connection is closed",
               "consuming input failed", "connection is lost", "connection to server", "SSL connection has been closed")


def connection_lost_error(exc: BaseException) -> ProjectError | None:
    """A clear error for a database connection cut in the middle of an act (the server
    restarted or went away, a network drop, an administrator ended the session), None
    for any other error. PostgreSQL keeps a transaction whole or not at all: the act's
    transaction never committed, so nothing of it was written."""
    from sqlalchemy.exc import DBAPIError

    orig = getattr(exc, "orig", None) or exc
    sqlstate = getattr(orig, "sqlstate", None) or ""
    text = str(orig)
    lost = ((isinstance(exc, DBAPIError) and exc.connection_invalidated) or sqlstate.startswith("08")
            or sqlstate in ("57P01", "57P02", "57P03") or any(sign in text for sign in _LOST_SIGNS))
    if not lost or "sqlite" in type(orig).__module__:
        return None
    detail = " ".join(text.strip().splitlines()[0].split()) if text.strip() else type(orig).__name__
    return ProjectError(scrub(
        f"the connection to the database was lost ({detail}): this act's transaction did not complete, so "
        f"nothing of it was written. When the server answers again, run the same command again (a 'vote "
        f"--batch' sent again records each row once, even if the cut came as it committed)"))


def damage_error(exc: BaseException, root: Path | None) -> ProjectError | None:
    """A clear error for what SQLite reports about its file, None for any other error:
    a damaged file ('database disk image is malformed', 'file is not a database'), a
    full disk, a database or folder the user may not write. Nothing of the act was
    written: its transaction rolled back."""
    text = str(exc)
    root = root or Path(".")
    for sign in ("database disk image is malformed", "file is not a database"):
        if sign in text:
            return _damaged(root, sign)
    undecodable = re.search(r"Could not decode to UTF-8 column '([^']*)'", text)
    if undecodable:  # bytes another program (or a damaged page) wrote where the app writes UTF-8 text
        return ProjectError(
            f"the database of {root} is damaged: column '{undecodable.group(1)}' of a row holds text that is not "
            f"UTF-8 (written by another program, or a damaged page); nothing was written. Restore project.db "
            f"from a backup, or correct that row's text with the sqlite3 tool (keep a copy of the file first)")
    if "database or disk is full" in text:
        return ProjectError(
            f"the disk holding {root} is full: nothing of this act was written. Free some space and do it again "
            f"(a 'vote --batch' sent again records each row once: every row is keyed)")
    if "readonly database" in text or "unable to open database file" in text:
        return ProjectError(
            f"{root / 'project.db'} cannot be written by you ({'read-only database' if 'readonly' in text else 'cannot open it'}):"
            f" SQLite writes beside the database even to read (its journal), so you need write access to the project "
            f"folder and project.db; ask its owner, or copy the folder to read it; nothing was written")
    return None
