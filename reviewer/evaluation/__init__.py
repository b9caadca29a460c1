"""Scoring runs: the metrics (`metrics`: top-1, MLA, ReaL; `topk`: variable
top-k and ASMA), named image slices, the major-error split rule, the
leaderboard on a slice, and the per-run summary behind `reviewer report --json`.

May import `classes`, `labels`, `runs` and `panel.state`; no Qt, no CLI.
"""
