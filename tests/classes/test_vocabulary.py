"""The ImageNet-1k vocabulary read from the shipped WordNet asset."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.classes.vocabulary import load_classes

REPO = Path(__file__).resolve().parents[2]


def test_thousand_sorted_wnids_with_known_names():
    classes = load_classes()
    assert len(classes) == 1000
    assert list(classes.wnids) == sorted(classes.wnids) and len(set(classes.wnids)) == 1000
    assert classes.wnids[0] == "n01440764" and classes.names[0] == "tench"
    assert classes.names[1] == "goldfish"
    assert classes.names[248] == "Eskimo dog" and classes.wnids[248] == "n02109961"
    assert classes.names[250] == "Siberian husky"
    assert classes.names[404] == "airliner"
    assert classes.names[999] == "toilet tissue"
    assert classes.label(248) == "248 Eskimo dog"


def test_lemmas_and_definitions_from_wordnet():
    classes = load_classes()
    assert classes.lemmas[0] == ("tench", "Tinca tinca")  # underscores become spaces
    assert classes.lemmas[249] == ("malamute", "malemute", "Alaskan malamute")
    assert "freshwater dace-like game fish" in classes.definitions[0]


def test_display_names_are_unique_and_disambiguated():
    classes = load_classes()
    assert len({name.lower() for name in classes.names}) == 1000
    # Classes sharing a first lemma get a second lemma or their parent in parentheses.
    assert classes.names[134] == "crane (wading bird)"
    assert classes.names[517] == "crane (lifting device)"
    assert classes.names[638] == "maillot (tights)"
    assert classes.names[639] == "maillot (tank suit)"
    # Same first lemma up to case: the corgi breed and the sweater.
    assert classes.names[264] == "Cardigan (Cardigan Welsh corgi)"
    assert classes.names[474] == "cardigan (sweater)"


def test_index_round_trips_and_explains_unknown_wnids():
    classes = load_classes()
    assert all(classes.index(w) == i for i, w in enumerate(classes.wnids))
    with pytest.raises(KeyError, match="not one of the 1000 ImageNet-1k class wnids"):
        classes.index("n00004475")  # organism: in WordNet, not an ImageNet class
    with pytest.raises(KeyError, match="'n' and 8 digits"):
        classes.index("tench")


def test_vocabulary_needs_no_timm_torch_or_nltk():
    code = ("import sys\n"
            "from reviewer.classes.vocabulary import load_classes\n"
            "from reviewer.classes.wordnet import hierarchy_distance, organism_mask\n"
            "from reviewer.classes.collapsed import acceptance_matrix\n"
            "load_classes(); organism_mask(); acceptance_matrix(); hierarchy_distance(0, 1)\n"
            "print(sorted(m for m in ('timm', 'torch', 'nltk') if m in sys.modules))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
