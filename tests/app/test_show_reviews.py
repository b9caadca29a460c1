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
