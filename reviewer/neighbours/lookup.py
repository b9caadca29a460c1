"""What the index says about one project image: its K nearest training images, its
duplicates, and the evidence lines the review page and `reviewer show` print
("8 of 10 nearest training images labelled cassette player"; "exact duplicate of
n02085620_1234.JPEG, labelled Chihuahua in training")."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from reviewer.neighbours.precompute import read_neighbours
from reviewer.neighbours.store import IndexFiles, find_indexes

KIND_WORDS = {"exact": "exact duplicate", "perceptual": "near duplicate (perceptual hash)",
              "embedding": "near duplicate (embedding)"}
WHERE = {"train": "in training", "project": "in this project"}


def _class_name(wnid: str) -> str | None:
    from reviewer.classes.vocabulary import load_classes

    classes = load_classes()
    try:
        return classes.names[classes.index(wnid)]
    except KeyError:
        return None


def read_neighbour_evidence(project_root: Path, file_name: str, *, predicted: int | None = None) -> dict:
    """{"index": model or None, "neighbours": [...], "duplicates": [...], "lines": [...]} for one image,
    from the most recently built complete index beside the project (empty when there is none)."""
    indexes = find_indexes(project_root)
    if not indexes:
        return {"index": None, "neighbours": [], "duplicates": [], "lines": []}
    files: IndexFiles = indexes[0]
    manifest = files.read_manifest()
    train = files.read_files("train")
    root = Path(manifest["images"])
    stored = read_neighbours(files)["images"].get(file_name)
    neighbours = [] if stored is None else [
        {"rank": rank, "path": str(root / train[row][0]), "file_name": Path(train[row][0]).name,
         "wnid": train[row][1], "name": _class_name(train[row][1]), "similarity": similarity}
        for rank, (row, similarity) in enumerate(stored, start=1)]
    try:
        pairs = json.loads(files.duplicates_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        pairs = []
    duplicates = [{"kind": p["kind"], **{k: v for k, v in p["other"].items() if k != "row"},
                   "name": _class_name(p["other"]["wnid"]),
                   **{k: p[k] for k in ("distance", "similarity") if k in p}}
                  for p in pairs if p["image"] == file_name]
    return {"index": manifest["model"], "k": manifest["k"], "computed": stored is not None,
            "neighbours": neighbours, "duplicates": duplicates,
            "lines": evidence_lines(neighbours, duplicates, predicted=predicted)}


def evidence_lines(neighbours: list[dict], duplicates: list[dict], *, predicted: int | None = None) -> list[str]:
    """The evidence lines for an image's neighbours and duplicates."""
    lines = []
    if neighbours:
        counts = Counter(n["name"] or n["wnid"] or "no label" for n in neighbours)
        top, count = counts.most_common(1)[0]
        line = f"{count} of {len(neighbours)} nearest training images labelled {top}"
        if predicted is not None:
            from reviewer.classes.vocabulary import load_classes

            name = load_classes().names[predicted]
            if name != top:
                line += f"; {counts.get(name, 0)} labelled {name} (the prediction)"
        lines.append(line)
    order = {"exact": 0, "perceptual": 1, "embedding": 2}
    for d in sorted(duplicates, key=lambda d: (order[d["kind"]], d["collection"] != "train")):
        label = d["name"] or d["wnid"] or "no label"
        measure = (f" (similarity {d['similarity']:.3f})" if "similarity" in d
                   else f" ({d['distance']} bits apart)" if "distance" in d else "")
        lines.append(f"{KIND_WORDS[d['kind']]} of {d['file_name']}, labelled {label} {WHERE[d['collection']]}"
                     + measure)
    return lines
