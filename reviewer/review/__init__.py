"""One panelist's review of one run, without Qt: the queue with its filters and
sorts, the state of each item, the reviewed mistakes, alike mistakes in sets (`alike`,
`alike_review`), and the optimistic vote state the review page shows while writes are on
their way (`state`).

Below `evaluation`, above `runs`, `evidence` and `panel` (README.md, "Layout"): it
puts a run's mistakes, the evidence and the panel's ledger together for one panelist.
"""
