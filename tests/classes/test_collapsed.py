"""The paper's collapsed class mappings (Appendix C)."""

from __future__ import annotations

import json
from itertools import permutations

import numpy as np
import pytest

from reviewer.classes import collapsed
from reviewer.classes.collapsed import acceptance_matrix, accepts, collapsed_pairs
from reviewer.classes.vocabulary import load_classes
from reviewer.paths import asset

# Class names as the paper lists them, checked against the vocabulary below.
NAMES = {248: "Eskimo dog", 249: "malamute", 250: "Siberian husky", 836: "sunglass", 837: "sunglasses",
         101: "tusker", 385: "Indian elephant", 386: "African elephant", 504: "coffee mug", 968: "cup",
         638: "maillot (tights)", 639: "maillot (tank suit)", 657: "missile", 744: "projectile",
         620: "laptop", 681: "notebook", 664: "monitor", 782: "screen", 482: "cassette player",
         848: "tape player", 356: "weasel", 357: "mink", 358: "polecat", 359: "black-footed ferret",
         435: "bathtub", 876: "tub"}
ONE_WAY = [(250, 248), (249, 248), (385, 101), (386, 101), (504, 968), (482, 848), (435, 876)]
BOTH_WAYS = [(836, 837), (638, 639), (657, 744), (620, 681), (664, 782)]
WEASELS = [356, 357, 358, 359]


def test_mapped_classes_are_the_named_ones():
    names = load_classes().names
    assert {i: names[i] for i in NAMES} == NAMES
    data = json.loads(asset("collapsed_mappings.json").read_text())
    refs = [ref for rule in data["one_way"] for ref in rule["labels"] + rule["accepts"]]
    refs += [ref for group in data["equivalent"] for ref in group["classes"]]
    assert all(names[ref["index"]] == ref["name"] for ref in refs)


def test_pairs_are_exactly_the_papers():
    expected = set(ONE_WAY) | set(BOTH_WAYS) | {(b, a) for a, b in BOTH_WAYS} | set(permutations(WEASELS, 2))
    assert set(collapsed_pairs()) == expected
    assert len(collapsed_pairs()) == 7 + 10 + 12


def test_one_way_mappings_go_one_way():
    assert accepts(250, 248)  # an image labelled Siberian husky accepts "Eskimo dog"
    assert not accepts(248, 250)  # ... but not the other way round
    assert accepts(504, 968) and not accepts(968, 504)
    assert not accepts(250, 249)  # husky and malamute do not accept each other


def test_equivalent_classes_accept_each_other():
    assert accepts(836, 837) and accepts(837, 836)
    assert all(accepts(a, b) for a in WEASELS for b in WEASELS)


def test_acceptance_matrix_is_identity_plus_pairs_and_read_only():
    matrix = acceptance_matrix()
    assert matrix.shape == (1000, 1000) and matrix.dtype == bool
    assert matrix.diagonal().all()
    assert int(matrix.sum()) == 1000 + len(collapsed_pairs())
    assert not matrix.flags.writeable
    with pytest.raises(ValueError):
        matrix[0, 1] = True
    assert acceptance_matrix() is matrix


def test_loader_rejects_an_index_that_disagrees_with_its_wnid(tmp_path, monkeypatch):
    data = json.loads(asset("collapsed_mappings.json").read_text())
    data["one_way"][0]["accepts"][0]["index"] = 247  # wnid still Eskimo dog's
    (tmp_path / "collapsed_mappings.json").write_text(json.dumps(data))
    collapsed_pairs.cache_clear()
    try:
        with monkeypatch.context() as patch:
            patch.setattr(collapsed, "asset", lambda *parts: tmp_path.joinpath(*parts))
            with pytest.raises(ValueError, match="index 247 is n02109525"):
                collapsed_pairs()
    finally:
        collapsed_pairs.cache_clear()
    assert (250, 248) in collapsed_pairs()  # the shipped file loads again


def test_accepted_predictions_in_batch():
    labels, predictions = np.array([250, 248, 356, 0]), np.array([248, 250, 359, 1])
    assert acceptance_matrix()[labels, predictions].tolist() == [True, False, True, False]
