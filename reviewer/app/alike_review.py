"""Alike mistakes reviewed side by side, for any front end (issue 26): the run's mistakes
in sets of alike ones, by confusion pair or by embedding neighbourhood (`reviewer.review.alike`),
with the panelist's votes on them and their image files, read in one unit of work. The votes
a set takes are cast through `reviewer.app.panel.vote_batch` (one transaction, a vote
row per item, each undone alone by `reviewer.app.panel.undo`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.votes import VoteState
from reviewer.project import Project
from reviewer.review.alike import NEIGHBOURHOOD_SIMILARITY, AlikeBy, AlikeMistakes, find_alike

NO_INDEX = ("finding alike mistakes by similar images needs the project's images embedded: run 'reviewer index "
            "PROJECT --images TRAIN_DIR' first (or choose Same confusion)")


@dataclass(frozen=True)
class AlikeSets:
    alike_by: AlikeBy
    sets: list[AlikeMistakes]
    votes: dict[Item, VoteState]  # the panelist's current vote on each item of a set
    paths: dict[Item, Path | None]  # each such item's image file (None: the project has none)
    mistakes: int  # the mistakes the sets were found in (the run's, as the queue's filter shows them)


def alike_sets(project: Project, *, run_id: int, panelist_id: int, alike_by: AlikeBy | str,
               queue_filter=None, similarity: float = NEIGHBOURHOOD_SIMILARITY) -> AlikeSets:
    """The run's mistakes (as the panelist's queue filter shows them) in sets of alike ones
    (`similarity`: the threshold of an embedding neighbourhood)."""
    from sqlalchemy import select

    from db.tables import Image
    from reviewer.neighbours.lookup import NeighbourIndex
    from reviewer.panel.votes import current_vote
    from reviewer.review.queue_load import load_queue

    alike_by = AlikeBy(alike_by)
    with project.read() as session:
        queue = load_queue(session=session, run_id=run_id, panelist_id=panelist_id, queue_filter=queue_filter)
        entries = queue.shown()
        vectors = None
        if alike_by == AlikeBy.NEIGHBOURHOOD:
            index = NeighbourIndex.open(project.root)
            if index is None:
                raise UserError(NO_INDEX)
            vectors = index.image_vectors({e.file_name for e in entries})
        sets = find_alike(entries, alike_by, vectors=vectors, similarity=similarity)
        items = [item for alike in sets for item in alike.items]
        votes = {item: current_vote(session=session, panelist_id=panelist_id, item=item) for item in items}
        ids = {item.image_id for item in items}
        images = {row.id: row for row in session.execute(select(Image).where(Image.id.in_(ids))).scalars()} \
            if ids else {}
        paths = {item: project.image_file(images[item.image_id]) for item in items}
    return AlikeSets(alike_by, sets, votes, paths, len(entries))


def my_votes(project: Project, *, panelist_id: int, items) -> dict[Item, VoteState]:
    """The panelist's current vote on each of these items (after a set's votes are written)."""
    from reviewer.panel.votes import current_vote

    with project.read() as session:
        return {item: current_vote(session=session, panelist_id=panelist_id, item=item) for item in items}
