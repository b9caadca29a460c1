"""The panel's rules, headless: what a vote may say and what it implies (`votes`),
the current and standing decisions of items (`state`), locking and overriding a
final decision (`decisions`), the review phases (`phases`), the group view's rows
(`group`), agreement statistics (`agreement`), the review queue (`queue`),
discussion notes (`discussion`), resolving an item named on a command line
(`lookup`) and one consistent snapshot of every vote (`snapshot`).

Every function that touches the database takes `session=` (keyword-only): the
caller, `reviewer.app`, decides what is one unit of work."""
