"""The class filter's search: index, wnid, whole name, part of names."""

from __future__ import annotations

from timm.data import ImageNetInfo

from reviewer.classes.search import search_classes
from reviewer.classes.vocabulary import load_classes

INFO = ImageNetInfo()  # timm's own tables: an independent source of the wnids


def test_index_wnid_and_whole_name_each_pick_one_class():
    assert INFO.index_to_label_name(248) == "n02109961"
    for text in ("248", "n02109961", "Eskimo dog", "  eskimo DOG "):
        found = search_classes(text)
        assert found.classes == {248}, text
        assert "Eskimo dog (n02109961)" in found.description


def test_a_whole_name_inside_other_names_is_that_class_only():
    goose = INFO.label_names().index("n01855672")  # goose; "mongoose" contains it
    assert search_classes("goose").classes == {goose}


def test_part_of_names_is_every_class_containing_it():
    found = search_classes("crane")  # the bird and the machine
    assert found.classes == {INFO.label_names().index("n02012849"), INFO.label_names().index("n03126707")}
    assert found.description.startswith("Predicted or labelled, any of 2 classes")
    terriers = search_classes("terrier")
    names = load_classes().names  # the display names the filter searches
    assert terriers.classes == {i for i, name in enumerate(names) if "terrier" in name.lower()}
    assert len(terriers.classes) > 4 and f"and {len(terriers.classes) - 4} more." in terriers.description


def test_empty_text_is_no_filter_and_nonsense_matches_nothing_visibly():
    assert search_classes("  ").classes is None and search_classes("").description == ""
    nothing = search_classes("qwertyuiop")
    assert nothing.classes == frozenset() and "No class matches" in nothing.description
    assert search_classes("1000").classes == frozenset()  # not an index: read as a name, matching none
