"""The review window's key bindings: defaults, the user's changes, conflicts.

Keys are written in Qt's portable key-sequence text ("W", "Ctrl+Z", "Space",
"Right"), so this module needs no Qt. The user's bindings live in
`keymap.json` in the user config dir as {action: [keys]}; actions missing
there keep their defaults, unknown actions are ignored, and a key bound to
two actions is refused with the names of both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from reviewer._files import atomic_write_text
from reviewer.errors import InputError
from reviewer.paths import user_config

KEYMAP_FILE = "keymap.json"


@dataclass(frozen=True)
class Action:
    name: str
    title: str
    group: str
    keys: tuple[str, ...]


ACTIONS: tuple[Action, ...] = (
    Action("verdict_correct", "Prediction is correct", "Verdict", ("1", "C")),
    Action("verdict_wrong", "Prediction is wrong", "Verdict", ("2", "W")),
    Action("verdict_unclear", "Prediction is unclear", "Verdict", ("3", "U")),
    Action("toggle_problematic", "Ground truth is problematic (toggle)", "Verdict", ("P",)),
    Action("severity_major", "Major mistake", "Severity (wrong)", ("M",)),
    Action("severity_minor", "Minor mistake", "Severity (wrong)", ("N",)),
    Action("category_fine_grained", "Fine-grained", "Category (wrong)", ("F",)),
    Action("category_fine_grained_oov", "Fine-grained, out-of-vocabulary object (asks its name)",
           "Category (wrong)", ("O",)),
    Action("category_spurious_correlation", "Spurious correlation", "Category (wrong)", ("S",)),
    Action("category_non_prototypical", "Non-prototypical", "Category (wrong)", ("T",)),
    Action("edit_note", "Write a note", "Verdict", ("E",)),
    Action("next", "Next mistake", "Move", ("J", "Right")),
    Action("previous", "Previous mistake", "Move", ("K", "Left")),
    Action("next_unvoted", "Next mistake I have not voted on", "Move", ("Space",)),
    Action("undo", "Undo my last vote", "Move", ("Ctrl+Z",)),
    Action("zoom_in", "Zoom in", "Image", ("+", "=")),
    Action("zoom_out", "Zoom out", "Image", ("-",)),
    Action("zoom_fit", "Fit to window", "Image", ("0",)),
    Action("zoom_actual", "Full resolution (1:1)", "Image", ("Z",)),
    Action("zoom_probe", "Zoom probe: the model over 324 crops (again: show or hide it)", "Image", ("X",)),
    Action("zoom_scale_smaller", "Zoom probe: draw a smaller scale", "Image", ("[",)),
    Action("zoom_scale_larger", "Zoom probe: draw a larger scale", "Image", ("]",)),
    Action("pan_left", "Pan left", "Image", ("Shift+Left",)),
    Action("pan_right", "Pan right", "Image", ("Shift+Right",)),
    Action("pan_up", "Pan up", "Image", ("Shift+Up",)),
    Action("pan_down", "Pan down", "Image", ("Shift+Down",)),
    Action("focus_filter", "Filter the queue", "Window", ("/", "Ctrl+F")),
    Action("toggle_blind", "Show or hide others' votes (blind mode)", "Window", ("Ctrl+B",)),
    Action("run_model", "Run a model…", "Window", ("Ctrl+R",)),
    Action("open_project", "Open a project…", "Window", ("Ctrl+O",)),
    # The meeting and the review of alike mistakes keep the names keymap.json stores (issue 35 renamed
    # what they open, not a user's saved keys).
    Action("group_view", "Meeting (panel discussion)", "Window", ("Ctrl+G",)),
    Action("group_review", "Review alike mistakes (same confusion, similar images)", "Window",
           ("Ctrl+Shift+G",)),
    Action("analysis_view", "Analysis (report tables and plots)", "Window", ("Ctrl+Shift+A",)),
    Action("edit_keys", "Change keys…", "Window", ("Ctrl+K",)),
    Action("help", "Show or hide this help", "Window", ("?", "F1")),
    # The meeting's own keys (it also takes next, previous and write a note from above).
    Action("lock_decision", "Lock the majority decision (chair)", "Meeting", ("L",)),
    Action("close_window", "Close the meeting or the analysis", "Meeting", ("Escape", "Ctrl+W")),
)
ACTION_NAMES = tuple(a.name for a in ACTIONS)
DEFAULTS: dict[str, tuple[str, ...]] = {a.name: a.keys for a in ACTIONS}


def action(name: str) -> Action:
    for a in ACTIONS:
        if a.name == name:
            return a
    raise KeyError(f"unknown action {name!r}")


# Qt's portable names for keys also written out in full (what the window reads from a press).
KEY_ALIASES = {"Escape": "Esc", "Delete": "Del", "Insert": "Ins", "Pageup": "PgUp", "Pagedown": "PgDown",
               "Pgup": "PgUp", "Pgdown": "PgDown"}


def normalise_key(key: str) -> str:
    """One spelling per key ("ctrl+z" -> "Ctrl+Z", "escape" -> "Esc"): modifiers in Qt's
    order, names as Qt's portable key names."""
    key = key.replace(" ", "")
    if key == "+":
        mods, base = [], "+"
    elif key.endswith("++"):  # "Ctrl++"
        mods, base = key[:-2].split("+"), "+"
    else:
        *mods, base = key.split("+")
    order = ["Ctrl", "Alt", "Shift", "Meta"]
    mods = sorted({m.capitalize() for m in mods if m}, key=lambda m: order.index(m) if m in order else len(order))
    base = base.upper() if len(base) == 1 else base[:1].upper() + base[1:]
    base = KEY_ALIASES.get(base, KEY_ALIASES.get(base.capitalize(), base))
    return "+".join([*mods, base])


def find_conflicts(bindings: dict[str, tuple[str, ...]]) -> list[tuple[str, str, str]]:
    """(key, action, other action) for every key bound to two actions."""
    owner: dict[str, str] = {}
    conflicts = []
    for name in ACTION_NAMES:
        for key in bindings.get(name, ()):
            key = normalise_key(key)
            if key in owner and owner[key] != name:
                conflicts.append((key, owner[key], name))
            owner.setdefault(key, name)
    return conflicts


@dataclass
class Keymap:
    """The bindings in force: action -> keys."""

    bindings: dict[str, tuple[str, ...]]

    def keys(self, name: str) -> tuple[str, ...]:
        return self.bindings.get(name, ())

    def action_for(self, key: str) -> str | None:
        key = normalise_key(key)
        return next((n for n, keys in self.bindings.items() if key in map(normalise_key, keys)), None)

    def changed(self) -> dict[str, list[str]]:
        """The bindings that differ from the defaults (what the file stores)."""
        return {n: list(k) for n, k in self.bindings.items() if tuple(k) != DEFAULTS[n]}


def default_keymap() -> Keymap:
    return Keymap(bindings=dict(DEFAULTS))


def keymap_path() -> Path:
    return user_config() / KEYMAP_FILE


def load_keymap(path: Path | None = None) -> Keymap:
    """The defaults with the user's changes from `keymap.json` applied."""
    path = path or keymap_path()
    bindings = dict(DEFAULTS)
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InputError(str(path), f"unreadable key bindings ({exc})",
                             hint="fix the file or delete it to go back to the default keys") from exc
        if not isinstance(data, dict):
            raise InputError(str(path), "expected {action: [keys]}", hint="delete it to use the default keys")
        for name, keys in data.items():
            if name not in DEFAULTS:
                continue  # an action of another version of the app
            if isinstance(keys, str):
                keys = [keys]
            if not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
                raise InputError(str(path), f"keys of {name} must be a list of strings, got {keys!r}",
                                 record=name, hint="delete it to use the default keys")
            bindings[name] = tuple(normalise_key(k) for k in keys if k.strip())
    _check(bindings, source=str(path))
    return Keymap(bindings=bindings)


def save_keymap(keymap: Keymap, path: Path | None = None) -> Path:
    """Store the user's changes (only what differs from the defaults)."""
    _check(keymap.bindings, source="the new key bindings")
    path = path or keymap_path()
    atomic_write_text(path, json.dumps(keymap.changed(), indent=2) + "\n")
    return path


def _check(bindings: dict[str, tuple[str, ...]], *, source: str) -> None:
    conflicts = find_conflicts(bindings)
    if conflicts:
        key, first, second = conflicts[0]
        raise InputError(source, f"key {key} is bound to both '{action(first).title}' and '{action(second).title}'",
                         hint="give one of them another key")
