"""Per-user preferences of the review window, kept in the user config dir:
who the panelist is, the recent projects, and how the window behaves.

A damaged file never stops the app: it is set aside (renamed *.bad) and the
defaults are used, since nothing in it is review data.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from reviewer._files import atomic_write_text
from reviewer.paths import user_config

PREFERENCES_FILE = "preferences.json"
MAX_RECENT = 10
# When the window moves on after a vote: "complete" (a verdict of correct or
# unclear, or wrong with its severity and category), "verdict" (any verdict) or "off".
AUTO_ADVANCE = ("complete", "verdict", "off")


@dataclass
class Preferences:
    panelist_name: str = ""
    recent_projects: list[str] = field(default_factory=list)
    blind: bool = True
    auto_advance: str = "complete"
    last_run: dict[str, int] = field(default_factory=dict)  # project root -> run id last reviewed
    enlarge_small_images: bool = False  # fit blows a small file up to the view (else 100 %)
    evidence_before_vote: bool = True  # published relabelings shown before my verdict (else after it)
    window_geometry: str = ""  # the main window's size and place as last left (Qt's saveGeometry, base64)

    def add_recent(self, root: str | Path) -> None:
        """Put a project first in the recent list."""
        root = str(Path(root).expanduser().resolve())
        self.recent_projects = [root] + [p for p in self.recent_projects if p != root][:MAX_RECENT - 1]

    def existing_recent(self) -> list[str]:
        """The recent projects whose folder is still a project."""
        return [p for p in self.recent_projects if (Path(p) / "project.json").exists()]


def preferences_path() -> Path:
    return user_config() / PREFERENCES_FILE


def load_preferences(path: Path | None = None) -> Preferences:
    path = path or preferences_path()
    if not path.exists():
        return Preferences()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "reviewer_name" in data:  # its name before 2026-11 (a panelist's name)
            data.setdefault("panelist_name", data.pop("reviewer_name"))
        known = {f.name for f in fields(Preferences)}
        prefs = Preferences(**{k: v for k, v in data.items() if k in known})
        if prefs.auto_advance not in AUTO_ADVANCE:
            prefs.auto_advance = "complete"
        if not isinstance(prefs.window_geometry, str):
            prefs.window_geometry = ""  # a size is no reason to set the whole file aside
        if not isinstance(prefs.recent_projects, list) or not isinstance(prefs.last_run, dict):
            raise TypeError("recent_projects must be a list and last_run an object")
        return prefs
    except (OSError, ValueError, TypeError) as exc:
        path.replace(path.with_suffix(".json.bad"))
        print(f"note: {path} was unreadable ({exc}); set aside as {path.name}.bad, defaults in use")
        return Preferences()


def save_preferences(prefs: Preferences, path: Path | None = None) -> None:
    atomic_write_text(path or preferences_path(), json.dumps(asdict(prefs), indent=2) + "\n")
