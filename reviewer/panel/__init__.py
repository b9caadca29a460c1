"""The panel's ledger and rules, headless: what a vote may say and what it implies
(`votes`), the current and standing decisions of items (`state`), the one meaning of
decided (`final`), locking and overriding a final decision (`decisions`), the review
phases (`phases`, `terms.Phase`), the rules the chair sets (`rules`) and who is on the
panel (`membership`), the meeting's rows (`meeting`), agreement statistics
(`agreement`), discussion notes (`discussion`), resolving an item named on a command
line (`lookup`) and one consistent snapshot of every vote (`snapshot`).

Below `labels`, above `classes` (README.md, "Layout"): it knows items (`reviewer.items`)
and the vocabularies, never a run, the queue (`reviewer.review`) or evidence.

Every function that touches the database takes `session=` (keyword-only): the
caller, `reviewer.app`, decides what is one unit of work."""
