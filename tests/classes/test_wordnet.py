"""WordNet hierarchy over the shipped asset, and the builder that makes the asset."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from reviewer.classes.vocabulary import load_classes
from reviewer.classes.wordnet import ORGANISM, hierarchy_distance, is_organism, load_hierarchy, organism_mask
from reviewer.paths import asset

REPO = Path(__file__).resolve().parents[2]
TENCH, GOLDFISH, GREAT_WHITE_SHARK, EEL = 0, 1, 2, 390
CHIHUAHUA, GOLDEN_RETRIEVER, LABRADOR = 151, 207, 208
ESKIMO_DOG, MALAMUTE, HUSKY = 248, 249, 250
TABBY, EGYPTIAN_CAT = 281, 285
AIRLINER = 404
SLED_DOG, DOG, WORKING_DOG = "n02109811", "n02084071", "n02103406"


def _load_builder():
    spec = importlib.util.spec_from_file_location("build_wordnet_assets", REPO / "scripts" / "build_wordnet_assets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- hierarchy ---------------------------------------------------------------

def test_ancestors_are_min_levels_up_including_itself():
    tench = load_classes().wnids[TENCH]
    up = load_hierarchy().ancestors(tench)
    assert up[tench] == 0
    assert up["n01439121"] == 1  # cyprinid
    assert up[ORGANISM] == 11
    assert up["n00001740"] == 16  # entity, the root of all nouns
    assert load_hierarchy().ancestors(load_classes().wnids[MALAMUTE])[WORKING_DOG] == 2  # via sled dog


def test_identical_classes_are_at_distance_zero():
    d = hierarchy_distance(TENCH, TENCH)
    assert d.distance == 0 and d.path_a == d.path_b == ("n01440764",)


def test_siblings_are_at_distance_one():
    # Both retrievers sit directly under retriever.n.01; malamute and husky under sled dog.
    d = hierarchy_distance(GOLDEN_RETRIEVER, LABRADOR)
    assert d.distance == 1 and d.common_ancestors == ("n02099029",)
    assert hierarchy_distance(MALAMUTE, HUSKY).distance == 1
    assert hierarchy_distance(TENCH, GOLDFISH).distance == 1  # both cyprinids


def test_parent_and_child_are_at_distance_one():
    d = hierarchy_distance(SLED_DOG, MALAMUTE)
    assert d.distance == 1
    assert d.path_a == (SLED_DOG,) and d.path_b == (load_classes().wnids[MALAMUTE], SLED_DOG)
    assert hierarchy_distance(DOG, CHIHUAHUA).distance == 2  # Chihuahua -> toy dog -> dog


def test_distance_is_levels_from_the_farther_class():
    # Eskimo dog is directly under working dog; malamute is under sled dog under working dog.
    d = hierarchy_distance(ESKIMO_DOG, MALAMUTE)
    assert d.distance == 2 and d.common_ancestors == (WORKING_DOG,)
    assert len(d.path_a) == 2 and len(d.path_b) == 3
    # Tench: 6 levels up to fish; great white shark -> mackerel shark -> shark ->
    # elasmobranch -> cartilaginous fish -> fish: 5.
    assert hierarchy_distance(TENCH, GREAT_WHITE_SHARK).distance == 6
    # Eel is a soft-finned fish, 3 levels up from tench, 1 from eel.
    assert hierarchy_distance(TENCH, EEL).distance == 3


def test_nearest_common_ancestor_over_all_hypernym_paths():
    # Through carnivore both are 4 levels up; but dog and domestic cat are both
    # domestic animals: Chihuahua -> toy dog -> dog -> domestic animal (3),
    # tabby -> domestic cat -> domestic animal (2).
    d = hierarchy_distance(CHIHUAHUA, TABBY)
    assert d.distance == 3
    assert d.common_ancestors == ("n01317541",)  # domestic_animal.n.01
    assert d.describe() == "Chihuahua -> toy dog -> dog -> domestic animal <- domestic cat <- tabby (distance 3)"
    assert hierarchy_distance(CHIHUAHUA, EGYPTIAN_CAT).distance == 3


def test_organism_and_object_are_far_apart():
    # Tench is 13 levels below whole.n.02; airliner 9.
    d = hierarchy_distance(TENCH, AIRLINER)
    assert d.distance == 13 and d.common_ancestors == ("n00003553",)


def test_distance_is_symmetric_and_accepts_wnids_and_numpy_ints():
    wnids = load_classes().wnids
    for a, b in [(TENCH, AIRLINER), (CHIHUAHUA, TABBY), (ESKIMO_DOG, MALAMUTE)]:
        assert hierarchy_distance(a, b).distance == hierarchy_distance(b, a).distance
        assert hierarchy_distance(wnids[a], np.int64(b)) == hierarchy_distance(a, b)
    with pytest.raises(IndexError):
        hierarchy_distance(0, 1000)
    with pytest.raises(KeyError, match="not a synset of the shipped WordNet asset"):
        hierarchy_distance("n99999999", 0)


def test_named_pairs_from_the_review():
    # Siberian husky sits under sled dog, Eskimo dog directly under working dog.
    d = hierarchy_distance(ESKIMO_DOG, HUSKY)
    assert d.distance == 2 and d.common_ancestors == (WORKING_DOG,)
    assert d.describe() == "Eskimo dog -> working dog <- sled dog <- Siberian husky (distance 2)"
    assert hierarchy_distance(TABBY, 282).describe() == "tabby -> domestic cat <- tiger cat (distance 1)"
    assert hierarchy_distance(GOLDEN_RETRIEVER, 817).distance == 9  # sports car: through whole.n.02


def test_organism_and_object_counts():
    mask = organism_mask()
    organisms, objects = int(mask.sum()), int((~mask).sum())
    print(f"organism classes: {organisms}, object classes: {objects}")
    assert (organisms, objects) == (410, 590)
    assert mask.shape == (1000,) and mask.dtype == bool and not mask.flags.writeable
    assert is_organism(TENCH) and is_organism("n01440764")
    assert not is_organism(AIRLINER)
    # People and fungi descend from organism.n.01 too.
    assert is_organism(983)  # scuba diver
    assert is_organism(992)  # agaric
    assert load_classes().names[983] == "scuba diver" and load_classes().names[992] == "agaric"
    # 398 animals (classes 0-397), three people, two flowers and seven fungi.
    animals = [i for i in range(1000) if load_hierarchy().is_descendant(load_classes().wnids[i], "n00015388")]
    assert animals == list(range(398))
    others = {load_classes().names[i] for i in np.flatnonzero(mask) if i >= 398}
    assert others == {"ballplayer", "groom", "scuba diver", "daisy", "yellow lady's slipper", "coral fungus",
                      "agaric", "gyromitra", "stinkhorn", "earthstar", "hen-of-the-woods", "bolete"}


# --- the asset and its builder -------------------------------------------------

def test_shipped_asset_covers_classes_and_all_ancestors():
    data = json.loads(asset("wordnet", "imagenet_wordnet.json").read_text())
    assert data["wordnet_version"] == "3.0"
    synsets = data["synsets"]
    assert all(p in synsets for entry in synsets.values() for p in entry["parents"])
    assert [w for w, entry in synsets.items() if not entry["parents"]] == ["n00001740"]
    assert synsets["n02084071"]["name"] == "dog.n.01"
    assert synsets["n02084071"]["lemmas"] == ["dog", "domestic dog", "Canis familiaris"]


@pytest.fixture(scope="module")
def builder():
    return _load_builder()


@pytest.fixture(scope="module")
def built(builder):
    try:
        return builder.build_asset()
    except builder.WordNetUnavailable as exc:
        pytest.skip(f"neither /usr/share/wordnet (Debian wordnet-base) nor nltk's wordnet is installed: {exc}")


@pytest.mark.slow
def test_shipped_asset_is_what_the_script_builds(builder, built):
    shipped = asset("wordnet", "imagenet_wordnet.json").read_text(encoding="utf-8")
    assert builder.serialize(built) == shipped, "run: python scripts/build_wordnet_assets.py"
    assert built["classes"] == list(load_classes().wnids)


@pytest.mark.slow
def test_distances_and_organisms_agree_with_nltk_wordnet(builder, built):
    """The asset's hierarchy against nltk's own WordNet reader: distances of random
    class pairs (levels up to the nearest common hypernym, from the farther class)
    and which classes descend from organism.n.01."""
    rng = np.random.default_rng(0)
    with builder.open_wordnet() as wn:
        synsets = [wn.synset_from_pos_and_offset("n", int(w[1:])) for w in load_classes().wnids]

        def levels_up(synset):  # fewest levels to every ancestor, breadth first
            levels, frontier = {synset: 0}, [synset]
            while frontier:
                reached = []
                for child in frontier:
                    for parent in child.hypernyms() + child.instance_hypernyms():
                        if parent not in levels:
                            levels[parent] = levels[child] + 1
                            reached.append(parent)
                frontier = reached
            return levels

        up = [levels_up(s) for s in synsets]
        for a, b in rng.integers(0, 1000, size=(1500, 2)).tolist():
            expected = min(max(up[a][c], up[b][c]) for c in up[a].keys() & up[b].keys())
            assert hierarchy_distance(a, b).distance == expected, (a, b)
        organism = wn.synset("organism.n.01")
        assert organism_mask().tolist() == [organism in levels for levels in up]


@pytest.mark.slow
def test_check_mode_reports_a_stale_asset(builder, built, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(builder, "build_asset", lambda wordnet_dir=None: built)
    out = tmp_path / "imagenet_wordnet.json"
    assert builder.main(["--output", str(out)]) == 0
    assert builder.main(["--check", "--output", str(out)]) == 0
    out.write_text(out.read_text().replace('"dog.n.01"', '"hound.n.01"'))
    assert builder.main(["--check", "--output", str(out)]) == 1
    assert "out of date" in capsys.readouterr().err


def test_builder_explains_a_missing_wordnet(builder, tmp_path, capsys):
    assert builder.main(["--wordnet-dir", str(tmp_path), "--output", str(tmp_path / "x.json")]) == 2
    assert "not a WordNet dict directory" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_without_debian_wordnet_the_builder_falls_back_to_nltk(builder, tmp_path, monkeypatch):
    monkeypatch.setattr(builder, "DEBIAN_WORDNET_DIR", tmp_path / "absent")
    try:
        with builder.open_wordnet() as wordnet:
            assert wordnet.get_version() == "3.0"
    except builder.WordNetUnavailable as exc:  # no nltk data either: say how to get WordNet
        assert "wordnet-base" in str(exc) and "nltk.download('wordnet')" in str(exc)


def test_distance_without_paths_is_the_length_of_the_longer_path():
    """`hierarchy_levels` (what the analysis tables use) against the paths of the full
    distance: the farther class's path up to the nearest common ancestor."""
    from reviewer.classes.wordnet import hierarchy_distance, hierarchy_levels

    rng = np.random.default_rng(1)
    for a, b in [*rng.integers(0, 1000, (300, 2)), (248, 250)]:  # + Eskimo dog, husky
        full = hierarchy_distance(int(a), int(b))
        assert hierarchy_levels(int(a), int(b)) == max(len(full.path_a), len(full.path_b)) - 1
