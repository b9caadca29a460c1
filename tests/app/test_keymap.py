"""Key bindings and preferences: defaults, the user's changes, conflicts, bad files."""

from __future__ import annotations

import json

import pytest

from reviewer.app.keymap import DEFAULTS, Keymap, find_conflicts, keymap_path, load_keymap, normalise_key, save_keymap
from reviewer.app.preferences import load_preferences, preferences_path, save_preferences
from reviewer.errors import InputError


def test_defaults_have_one_key_per_vote_and_no_conflicts():
    keymap = load_keymap()
    assert keymap.action_for("w") == "verdict_wrong" and keymap.action_for("2") == "verdict_wrong"
    assert keymap.action_for("ctrl+z") == "undo"
    assert keymap.action_for("Space") == "next_unvoted"
    assert keymap.action_for("O") == "category_fine_grained_oov"
    assert find_conflicts(DEFAULTS) == []


def test_changed_keys_are_stored_in_the_user_config_and_reloaded():
    keymap = load_keymap()
    keymap.bindings["verdict_wrong"] = ("Q",)
    path = save_keymap(keymap)
    assert path == keymap_path() and json.loads(path.read_text()) == {"verdict_wrong": ["Q"]}
    again = load_keymap()
    assert again.action_for("Q") == "verdict_wrong" and again.action_for("W") is None
    assert again.keys("verdict_correct") == DEFAULTS["verdict_correct"]


def test_a_key_bound_twice_is_refused_naming_both_actions():
    bindings = dict(DEFAULTS, verdict_wrong=("C",))
    with pytest.raises(InputError, match="key C is bound to both 'Prediction is correct' and 'Prediction is wrong'"):
        save_keymap(Keymap(bindings=bindings))
    keymap_path().write_text('{"verdict_unclear": "1"}')
    with pytest.raises(InputError, match="keymap.json.*key 1 is bound to both"):
        load_keymap()
    keymap_path().write_text("{not json")
    with pytest.raises(InputError, match="delete it to go back to the default keys"):
        load_keymap()


def test_key_spellings_are_normalised():
    assert normalise_key("ctrl+shift+z") == "Ctrl+Shift+Z"
    assert normalise_key("shift+ctrl+Z") == "Ctrl+Shift+Z"
    assert normalise_key("Ctrl++") == "Ctrl++" and normalise_key("+") == "+"
    assert normalise_key("space") == "Space"


def test_preferences_remember_name_and_recent_projects(tmp_path):
    prefs = load_preferences()
    assert prefs.panelist_name == "" and prefs.blind
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "project.json").write_text("{}")
    prefs.panelist_name = "Ann"
    prefs.add_recent(tmp_path / "gone")
    prefs.add_recent(tmp_path / "a")
    prefs.add_recent(tmp_path / "gone")
    save_preferences(prefs)
    again = load_preferences()
    assert again.panelist_name == "Ann"
    assert again.recent_projects == [str(tmp_path / "gone"), str(tmp_path / "a")]
    assert again.existing_recent() == [str(tmp_path / "a")]


def test_damaged_preferences_are_set_aside_not_fatal(capsys):
    preferences_path().write_text("[1, 2")
    assert load_preferences().panelist_name == ""
    assert preferences_path().with_suffix(".json.bad").exists()
    assert "set aside" in capsys.readouterr().out
