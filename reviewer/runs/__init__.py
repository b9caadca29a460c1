"""A model run end to end: computing it (`compute`: predict over the images,
resumable), importing precomputed scores (`logits`), its records on disk and
in the database (`records`), its stored predictions (`predictions`) and its
mistakes (`mistakes`: found, stored, and the one reader of a run's mistakes).

Below `review`, beside `evidence` and `neighbours` (README.md, "Layout"): imports
`models`, `db`, `classes`, `labels` and `items`; never the panel, the review, the
UI or the command line.
"""
