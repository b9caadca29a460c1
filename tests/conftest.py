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
