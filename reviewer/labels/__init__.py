"""Label sets and how reviews change them: the project's labels as numpy arrays and
the two predicates on them, `accepted` and `evaluable` (`labelset`), and the labels
after published reviews and the panel's final decisions (`reviewed`).

Below `importers`, above `panel` (README.md, "Layout"): imports `panel` (the final
decisions), `classes` and `db`; never runs, the review or anything above.
"""
