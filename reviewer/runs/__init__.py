"""A model run end to end: computing it (`compute`: predict over the images,
resumable), importing precomputed scores (`logits`), its records on disk and
in the database (`records`), its stored predictions (`predictions`) and its
mistakes (`mistakes`: found, stored, and the one reader of a run's mistakes).

May import `models`, `db`, `classes` and `labels`; never the panel, the UI or
the command line.
"""
