"""Label sets and how reviews change them: the project's labels as numpy arrays
(`labelset`), the labels after published reviews and the panel's decisions
(`reviewed`), and each model's reviewed mistakes (`reviewed_mistakes`).

May import `classes`, `panel.state` (the current decisions) and `db`.
"""
