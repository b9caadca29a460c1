"""Every user act, for any front end: one function per act, one module per noun
(Anki's pylib collection operations), each one unit of work returning what it
made and what changed (`changes.Done`). The command line and the window call the
same acts (tests/app/test_acts_home.py checks every writing command), and read
through the same functions (tests/app/test_cli_reads_through_app.py: no command opens
a snapshot of its own):

- `panel`: panelists, votes (one, a batch, undo), notes, reopen, lock and override,
  the panel's rules; the panel's reads (the meeting, agreement, the poll); `review`:
  those the review page runs, bound to its panelist; `panel_status`: where the panel
  stands, per phase and per panelist;
- `project`: open a project as a panelist; `imports`: a new project, images, label
  files, published reviews; `runs`: run a model, import scores; `evidence`: import
  and adopt published relabelings; `report`, `export`, `split`: what the review
  produces; `leaderboard`: every run scored on a slice, and its trend plot; `index`:
  the nearest-neighbour index; `roles`: panelists as database roles; `demo`: the bundled demo;
- what the front ends show and keep that is no domain rule of its own: a mistake's
  details, `show` (one image's facts), the zoom probe, the key map, the user's preferences.

Who acts and on what may be named as the command line names them (`panel.ByName`,
`panel.ItemName`): they are resolved inside the act's unit of work.

Sits above the domain packages; `reviewer.ui` and `reviewer.cli` call it.
Imports no Qt.
"""
