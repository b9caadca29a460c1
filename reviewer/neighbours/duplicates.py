"""Exact and near duplicates of the project's images, in the training folder and among
themselves (the paper's §4.5 and Appendix G; Flaws of ImageNet's pairs inside validation).

- exact: the same decoded pixels (store rows with equal pixel hashes, confirmed by
  comparing the pixels; `hashing`);
- perceptual: dHash within DHASH_MAX_DISTANCE bits (resizes, re-encodes), found through
  four 16-bit bands of the hash (two hashes within 3 bits agree on at least one band),
  so no pair of the two folders is compared unless a band matches;
- embedding: cosine similarity of the embeddings at least EMBEDDING_SIMILARITY (crops,
  the same shoot): against training, the nearest training image of each precomputed
  image (neighbours.json); inside the project, every pair.
A pair found exact is not reported again as near. Each entry names the other image,
where it is (train or project) and its label there.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from reviewer.neighbours.hashing import hamming, same_pixels
from reviewer.neighbours.search import knn
from reviewer.neighbours.store import IndexFiles

DHASH_MAX_DISTANCE = 3
EMBEDDING_SIMILARITY = 0.9
DUPLICATE_SETTINGS = {"dhash_max_distance": DHASH_MAX_DISTANCE, "embedding_duplicate_similarity": EMBEDDING_SIMILARITY}
BANDS = 4


def find_duplicates(files: IndexFiles, *, images_root: Path, file_names: list[str], neighbours: dict) -> list[dict]:
    """Every duplicate of a project image, as {"image", "kind", "other": {...}, "distance"|"similarity"}."""
    train_list, project_list = files.read_files("train"), files.read_files("project")
    train_rows, project_rows = files.read_rows("train"), files.read_rows("project")
    paths = {"train": [str(Path(images_root) / p) for p, _ in train_list], "project": [p for p, _ in project_list]}
    wnids = {"train": [w for _, w in train_list], "project": [w for _, w in project_list]}
    rows = {"train": train_rows, "project": project_rows}
    found: list[dict] = []
    seen: set[tuple[int, str, int]] = set()

    def other(collection: str, row: int) -> dict:
        return {"collection": collection, "row": row, "path": paths[collection][row],
                "file_name": Path(paths[collection][row]).name, "wnid": wnids[collection][row]}

    def add(row: int, kind: str, collection: str, other_row: int, **measure) -> None:
        if (row, collection, other_row) in seen:
            return
        seen.add((row, collection, other_row))
        found.append({"image": file_names[row], "kind": kind, "other": other(collection, other_row), **measure})

    # Exact: equal pixel hashes, confirmed pixel by pixel.
    by_sha: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for collection in ("train", "project"):
        for i, r in enumerate(rows[collection]):
            if r.get("sha"):
                by_sha[r["sha"]].append((collection, i))
    for members in by_sha.values():
        mine = [i for c, i in members if c == "project"]
        for row in mine:
            for collection, i in members:
                if (collection, i) != ("project", row) and same_pixels(paths["project"][row], paths[collection][i]):
                    add(row, "exact", collection, i)
    # Perceptual: dHash within DHASH_MAX_DISTANCE bits, candidates by equal 16-bit bands.
    bands: dict[tuple[int, int], list[tuple[str, int]]] = defaultdict(list)
    for collection in ("train", "project"):
        for i, r in enumerate(rows[collection]):
            if r.get("dhash") is not None:
                for b in range(BANDS):
                    bands[(b, (r["dhash"] >> (16 * b)) & 0xFFFF)].append((collection, i))
    for row, r in enumerate(project_rows):
        if r.get("dhash") is None:
            continue
        candidates = {m for b in range(BANDS) for m in bands[(b, (r["dhash"] >> (16 * b)) & 0xFFFF)]}
        for collection, i in sorted(candidates):
            if (collection, i) == ("project", row):
                continue
            distance = hamming(r["dhash"], rows[collection][i]["dhash"])
            if distance <= DHASH_MAX_DISTANCE:
                add(row, "perceptual", collection, i, distance=distance)
    # Embedding: the nearest training images of the precomputed images; all pairs inside the project.
    row_of = {name: i for i, name in enumerate(file_names)}
    for name, near in neighbours.get("images", {}).items():
        for i, similarity in near:
            if similarity >= EMBEDDING_SIMILARITY:
                add(row_of[name], "embedding", "train", i, similarity=round(similarity, 4))
    valid = np.array([not r.get("error") for r in project_rows], dtype=bool)
    if valid.sum() > 1:
        embeddings = files.open_embeddings("project")
        queries = np.flatnonzero(valid)
        near, sims = knn(np.asarray(embeddings[queries], dtype=np.float32), embeddings, min(6, int(valid.sum())),
                         valid=valid)
        for row, rs, ss in zip(queries, near, sims):
            for i, similarity in zip(rs, ss):
                if i >= 0 and i != row and similarity >= EMBEDDING_SIMILARITY:
                    add(int(row), "embedding", "project", int(i), similarity=round(float(similarity), 4))
    return found
