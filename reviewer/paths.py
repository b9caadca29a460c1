"""Where the app finds its shipped data and keeps per-user state."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_config_dir, user_data_dir

REPO_ROOT = Path(__file__).resolve().parent.parent
ASSETS_DIR = Path(os.environ.get("REVIEWER_ASSETS", REPO_ROOT / "assets"))


def asset(*parts: str) -> Path:
    """Path of a shipped asset; a clear error when the install lacks it."""
    path = ASSETS_DIR.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(
            f"shipped asset {path} is missing; reinstall the app from its repository "
            "('pip install -e .') or rebuild it with the scripts in scripts/"
        )
    return path


def user_data() -> Path:
    path = Path(os.environ.get("REVIEWER_DATA_DIR", user_data_dir("imagenet-mistake-reviewer")))
    path.mkdir(parents=True, exist_ok=True)
    return path


def user_config() -> Path:
    path = Path(os.environ.get("REVIEWER_CONFIG_DIR", user_config_dir("imagenet-mistake-reviewer")))
    path.mkdir(parents=True, exist_ok=True)
    return path
