"""Shared fixtures: real data from ../shared/data, temp projects."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# GUI tests run offscreen; set before anything imports Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("REVIEWER_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(f"real test data not found at {SHARED_DATA}: clone the repo next to shared/ "
                    "or set REVIEWER_SHARED_DATA")
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path_factory, monkeypatch):
    """Keep per-user state (recent projects, reviewer name) out of the real home."""
    base = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("REVIEWER_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(base / "config"))


# PostgreSQL: a server URL whose database is the maintenance one (CREATE DATABASE runs there).
POSTGRES_ADMIN_URL = os.environ.get("REVIEWER_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


@pytest.fixture
def postgres_url():
    """URL of a fresh, uniquely named PostgreSQL database, dropped after the test.

    Skips (saying why) when no server answers at REVIEWER_TEST_POSTGRES
    (default 127.0.0.1:5432)."""
    import uuid

    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -e '.[postgres]')")
    from sqlalchemy.engine import make_url

    admin_url = make_url(POSTGRES_ADMIN_URL)
    try:
        admin = psycopg.connect(admin_url.set(drivername="postgresql").render_as_string(hide_password=False),
                                autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL server answers at {admin_url.render_as_string()} "
                    f"({str(exc).strip().splitlines()[0]}); set REVIEWER_TEST_POSTGRES to a server URL")
    name = f"reviewer_test_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield admin_url.set(database=name).render_as_string(hide_password=False)
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
