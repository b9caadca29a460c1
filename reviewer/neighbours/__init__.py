"""Nearest training images and duplicates beside each mistake (issue 26; the paper's §4.5
and Appendix G): an embedding index of a training folder and of the project's own
images, stored beside the project (`reviewer index`), the K nearest training images of
every mistake of every complete run precomputed there, and exact and near duplicates.

Headless: `build.build_index` writes the index, `lookup.read_neighbour_evidence` reads
what the review page and `reviewer show` say about one image. The index checks its own
files (`integrity`): a damaged one is named with the command that rebuilds it, and a
rebuild computes it again (`repair`).
"""
