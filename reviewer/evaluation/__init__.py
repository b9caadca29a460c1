"""Scoring runs: the metrics (`metrics`: top-1, MLA, ReaL; `topk`: variable
top-k and ASMA), named image slices, the major-error split rule, the
leaderboard on a slice, and the per-run summary behind `reviewer report --json`.

Below `analysis` and `export`, above `review` (README.md, "Layout"): imports
`review` (the reviewed mistakes), `runs`, `labels`, `panel` and `classes`; no Qt, no CLI.
"""
