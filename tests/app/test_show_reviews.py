"""`reviewer show` lists what every imported published review says about the image
(issue 24: the README's own example, rated Fine-grained / Minor by both published reviews,
showed no review at all in a project made from label files)."""

from __future__ import annotations

import json

from reviewer.cli import main


def test_show_lists_each_published_review_of_the_image(tmp_path, shared_data, capsys):
    root = tmp_path / "p"
    assert main(["init", str(root), "--labels", str(shared_data / "formats" / "imagenet-annotatedval20k.json")]) == 0
    for model in ("vit3b", "greedy_soups"):
        assert main(["import-review", str(root), str(shared_data / "imagenet-mistakes" / f"{model}_mistakes.json"),
                     "--model", model]) == 0
    capsys.readouterr()
    argv = ["show", str(root), "--image", "ILSVRC2012_val_00001529.JPEG", "--predicted", "304"]
    assert main([*argv, "--json"]) == 0
    reviews = json.loads(capsys.readouterr().out)["imported_reviews"]
    assert [(r["model"], r["verdict"], r["category"], r["severity"], r["this_prediction"]) for r in reviews] == [
        ("vit3b", "wrong", "fine_grained", "minor", True), ("greedy_soups", "wrong", "fine_grained", "minor", True)]
    assert reviews[0]["category_published"] == "Fine-grained error" and reviews[0]["predicted"]["index"] == 304
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "    vit3b: wrong, Fine-grained error, Minor\n    greedy_soups: wrong, Fine-grained error, Minor" in text
    # Another class asked for: the reviews still show, saying which prediction they are about.
    assert main(["show", str(root), "--image", "ILSVRC2012_val_00001529.JPEG", "--predicted", "leaf beetle"]) == 0
    assert main(["show", str(root), "--image", "ILSVRC2012_val_00001529.JPEG", "--predicted", "303"]) == 0
    assert "vit3b: wrong, Fine-grained error, Minor (of its prediction leaf beetle (304, n02169497))" in \
        capsys.readouterr().out


def test_an_empty_leaderboard_says_why_and_what_to_do(tmp_path, shared_data, capsys):
    """Issue 24: `leaderboard` on a project of label files and reviews printed an empty table without a word."""
    root = tmp_path / "p"
    assert main(["init", str(root), "--labels", str(shared_data / "formats" / "imagenet-annotatedval20k.json")]) == 0
    assert main(["import-review", str(root), str(shared_data / "imagenet-mistakes" / "vit3b_mistakes.json"),
                 "--model", "vit3b"]) == 0
    capsys.readouterr()
    assert main(["leaderboard", str(root)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no complete model run in this project (20000 images, 0 with a file; published reviews "
                          "of vit3b): the leaderboard ranks runs")
    assert "'reviewer import-logits PROJECT FILE --model NAME'" in out and "reviewer split --runs" in out
    assert main(["leaderboard", str(root), "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.out.split() == ["[", "]"] and "no complete model run" in captured.err
