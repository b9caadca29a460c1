"""The acts one panelist's review page reads and writes through, bound to a project
and a panelist: the `ReviewBackend` of `reviewer.review.state.ReviewState`.

Each method is one of `reviewer.app.panel`'s acts (looked up when called, so a test
that replaces an act sees the page use it) or the facts of one mistake
(`reviewer.app.mistake_detail`); each is one unit of work and may run on any thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewer.app import panel
from reviewer.app.mistake_detail import DetailSource, MistakeDetail
from reviewer.items import Item
from reviewer.project import Project


@dataclass(frozen=True)
class ReviewActs:
    project: Project
    panelist_id: int

    def detail_source(self) -> DetailSource:
        return DetailSource(self.project)

    def detail(self, source: DetailSource, *, run_id: int, item: Item) -> MistakeDetail:
        return source.detail(run_id=run_id, image_id=item.image_id, predicted=item.predicted)

    def review_queue(self, *, run_id: int, queue_filter=None):
        return panel.review_queue(self.project, run_id=run_id, panelist_id=self.panelist_id,
                                  queue_filter=queue_filter)

    def names(self) -> dict[int, str]:
        return panel.names(self.project)

    def undo_available(self) -> bool:
        return panel.undo_available(self.project, panelist_id=self.panelist_id)

    def item_states(self, items: list[Item]):
        return panel.item_states(self.project, panelist_id=self.panelist_id, items=items)

    def item_votes(self, item: Item, *, blind: bool):
        return panel.item_votes(self.project, viewer_id=self.panelist_id, item=item, blind=blind)

    def others(self, item: Item, *, blind: bool):
        return panel.others(self.project, viewer_id=self.panelist_id, item=item, blind=blind)

    def my_vote(self, item: Item):
        return panel.my_vote(self.project, panelist_id=self.panelist_id, item=item)

    def vote(self, item: Item, **changes):
        return panel.vote(self.project, panelist_id=self.panelist_id, item=item, **changes)

    def undo(self):
        return panel.undo(self.project, panelist_id=self.panelist_id)
