"""Mistakes reviewed in groups, for any front end (issue 26): the run's mistakes grouped
by confusion pair or by embedding neighbourhood (`reviewer.review.groups`), with the
panelist's votes on them and their image files, read in one unit of work. The votes a
group takes are cast through `reviewer.app.panel.vote_batch` (one transaction, a vote
row per item, each undone alone by `reviewer.app.panel.undo`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.votes import VoteState
from reviewer.project import Project
from reviewer.review.groups import NEIGHBOURHOOD_SIMILARITY, GroupBy, MistakeGroup, group_mistakes

NO_INDEX = ("grouping by similar images needs the project's images embedded: run 'reviewer index PROJECT "
            "--images TRAIN_DIR' first (or group by confusion)")


@dataclass(frozen=True)
class GroupedMistakes:
    group_by: GroupBy
    groups: list[MistakeGroup]
    votes: dict[Item, VoteState]  # the panelist's current vote on each grouped item
    paths: dict[Item, Path | None]  # each grouped item's image file (None: the project has none)
    mistakes: int  # the mistakes grouped from (the run's, as the queue's filter shows them)


def mistake_groups(project: Project, *, run_id: int, panelist_id: int, group_by: GroupBy | str,
                   queue_filter=None, similarity: float = NEIGHBOURHOOD_SIMILARITY) -> GroupedMistakes:
    """The run's mistakes (as the panelist's queue filter shows them) in groups
    (`similarity`: the threshold of an embedding neighbourhood)."""
    from sqlalchemy import select

    from db.tables import Image
    from reviewer.neighbours.lookup import NeighbourIndex
    from reviewer.panel.votes import current_vote
    from reviewer.review.queue_load import load_queue

    group_by = GroupBy(group_by)
    with project.read() as session:
        queue = load_queue(session=session, run_id=run_id, panelist_id=panelist_id, queue_filter=queue_filter)
        entries = queue.shown()
        vectors = None
        if group_by == GroupBy.NEIGHBOURHOOD:
            index = NeighbourIndex.open(project.root)
            if index is None:
                raise UserError(NO_INDEX)
            vectors = index.image_vectors({e.file_name for e in entries})
        groups = group_mistakes(entries, group_by, vectors=vectors, similarity=similarity)
        items = [item for group in groups for item in group.items]
        votes = {item: current_vote(session=session, panelist_id=panelist_id, item=item) for item in items}
        ids = {item.image_id for item in items}
        images = {row.id: row for row in session.execute(select(Image).where(Image.id.in_(ids))).scalars()} \
            if ids else {}
        paths = {item: project.image_file(images[item.image_id]) for item in items}
    return GroupedMistakes(group_by, groups, votes, paths, len(entries))


def my_votes(project: Project, *, panelist_id: int, items) -> dict[Item, VoteState]:
    """The panelist's current vote on each of these items (after a group's votes are written)."""
    from reviewer.panel.votes import current_vote

    with project.read() as session:
        return {item: current_vote(session=session, panelist_id=panelist_id, item=item) for item in items}
