"""The review page's parts, each built alone on a small stand-in for the review (issue 35:
parts that own their state, each tested alone), not through the whole window:
`ReviewPageVotes` (the vote panel's display of the shown item's votes and decision, and
the keys that vote), `ReviewPageImage` (which decoded image the view waits for, the
decoding ahead) and `ReviewPageActions` (a key's action by name, given the acts it triggers)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from PySide6.QtCore import QObject, QSize, Signal
from PySide6.QtGui import QColor, QImage

from reviewer.app.keymap import ACTIONS, Keymap
from reviewer.items import Item
from reviewer.panel.final import DecidedHow, DecisionNote
from reviewer.panel.votes import VoteState
from reviewer.review.votes_in_flight import VoteStatus
from reviewer.ui.app import create_app
from reviewer.ui.image_loader import Decoded, full_key
from reviewer.ui.qt_image_view import QtImageView
from reviewer.ui.review.qt_vote_panel import QtVotePanel
from reviewer.ui.review.review_page_actions import REVIEW_MOVES, ReviewPageActions, view_acts
from reviewer.ui.review.review_page_image import ReviewPageImage
from reviewer.ui.review.review_page_votes import ReviewPageVotes

pytestmark = pytest.mark.gui

ITEM, OTHER, THIRD = Item(1, 5), Item(2, 7), Item(3, 9)
WRONG_MAJOR = DecisionNote(verdict="wrong", severity="major", category="fine_grained", problematic=False,
                           how=DecidedHow.UNANIMOUS, by=None, reason="")


class Review:
    """A ReviewState's answers about a queue of three items, set by hand; records what is asked."""

    def __init__(self):
        self.items, self.row = [ITEM, OTHER, THIRD], 0
        self.votes, self.status, self.failures, self.wrong = {}, {}, {}, set()
        self.others, self.names, self.blind = {}, {2: "bob"}, True
        self.details: dict = {}
        self.queue = Queue(self.items)
        self.cast, self.moves, self.requested = [], [], []

    def current_item(self):
        return self.items[self.row] if self.row is not None else None

    def my_vote(self, item):
        return self.votes.get(item, VoteState())

    def vote_status(self, item):
        return self.status.get(item, VoteStatus.NONE)

    def vote_failure(self, item):
        return self.failures.get(item)

    def judged_wrong(self, item):
        return item in self.wrong

    def detail(self, item):
        return self.details.get(item)

    def request_detail(self, item, *, priority=0):
        self.requested.append(item)

    def vote(self, **changes):
        item = self.current_item()
        self.votes[item] = replace(self.my_vote(item), **changes)
        self.cast.append((item, changes))
        return self.votes[item]

    def __getattr__(self, name):  # next, previous, next_unvoted, undo: recorded
        if name in REVIEW_MOVES:
            return lambda: self.moves.append(name)
        raise AttributeError(name)


class Queue:
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, row):
        return SimpleNamespace(item=self.items[row])

    def row_of(self, item):
        return self.items.index(item) if item in self.items else None

    def entry(self, item):
        return SimpleNamespace(item=item, decision=None) if item in self.items else None


class HeldReader:
    """A worker whose reads wait until the test finishes them (`done`)."""

    def __init__(self):
        self.jobs = []

    def submit(self, fn, *args, on_done=None, **kwargs):
        self.jobs.append(SimpleNamespace(fn=fn, args=args, kwargs=kwargs, on_done=on_done))

    def done(self, value=None):
        self.jobs.pop(0).on_done(value)


class Details:
    """The facts panel as the votes part uses it: whether the evidence waits, what it shows."""

    def __init__(self):
        self.evidence_hidden, self.shown = False, []

    def set_evidence_hidden(self, hidden: bool) -> None:
        self.evidence_hidden = hidden

    def show_detail(self, detail) -> None:
        self.shown.append((detail, self.evidence_hidden))


def facts(item, *, decision=None, image_path=None, image_exists=False, file_name="a.JPEG"):
    return SimpleNamespace(image_id=item.image_id, predicted=SimpleNamespace(index=item.predicted),
                           suggestion=None, decision=decision, image_path=image_path, image_exists=image_exists,
                           file_name=file_name)


# -- the votes -----------------------------------------------------------------------------
@pytest.fixture
def votes(qtbot):
    create_app()
    panel = QtVotePanel(Keymap(bindings={a.name: a.keys for a in ACTIONS}))
    qtbot.addWidget(panel)
    panel.show()
    part = ReviewPageVotes(panel, Details(), auto_advance="complete")
    review = Review()
    part.set_bridge(SimpleNamespace(state=review, reader=HeldReader(), project="the project"))
    return part


def test_the_vote_status_is_shown_as_the_review_says_it(votes):
    review = votes.review
    review.status[ITEM] = VoteStatus.SAVING
    votes.show_vote(ITEM)
    assert "saving" in votes.vote_panel.status.text()
    review.status[ITEM] = VoteStatus.RECORDED
    votes.vote_changed(ITEM)
    assert "recorded" in votes.vote_panel.status.text()
    review.status[ITEM], review.failures[ITEM] = VoteStatus.FAILED, "the disk is full"
    votes.vote_changed(ITEM)
    assert "the disk is full" in votes.vote_panel.status.text()
    review.status[OTHER] = VoteStatus.SAVING
    votes.vote_changed(OTHER)  # not the shown item: the panel keeps showing the shown one's
    assert "the disk is full" in votes.vote_panel.status.text()


def test_a_verdict_key_votes_and_moves_on_once_the_vote_is_complete(qtbot, votes):
    review = votes.review
    with qtbot.waitSignal(votes.voted):
        assert votes.trigger("verdict_correct")
    assert review.votes[ITEM] == VoteState(verdict="correct") and review.moves == ["next"]
    review.moves.clear()
    assert votes.trigger("verdict_wrong")  # wrong wants severity and category first
    assert review.moves == []
    assert votes.trigger("severity_major") and votes.trigger("category_fine_grained")
    assert review.moves == ["next"]
    votes.auto_advance = "off"
    review.row, review.moves = 1, []
    assert votes.trigger("verdict_unclear") and review.moves == []
    votes.auto_advance = "verdict"
    assert votes.trigger("verdict_wrong") and review.moves == ["next"]
    assert not votes.trigger("zoom_in")  # not a vote: the actions part's


def test_an_item_closed_to_votes_refuses_the_keys_that_vote_saying_why(qtbot, votes):
    votes.vote_panel.set_closed("Run #4 is outside the panel's scope")
    for name in ("verdict_wrong", "toggle_problematic", "edit_note", "category_fine_grained_oov"):
        with qtbot.waitSignal(votes.message) as said:
            assert votes.trigger(name)
        assert said.args == ["Run #4 is outside the panel's scope", False]
    assert votes.review.cast == [] and votes.vote_panel.asking() == ""


def test_a_note_is_asked_inline_and_recorded_on_enter(qtbot, votes):
    assert votes.trigger("edit_note") and votes.vote_panel.asking() == "note"
    with qtbot.waitSignal(votes.text_closed):  # the page takes the keys back
        votes.vote_panel.text_entered.emit("note", "the label is a crop")
    assert votes.review.cast == [(ITEM, {"note": "the label is a crop"})]


def test_an_out_of_vocabulary_category_needs_a_name(qtbot, votes):
    review = votes.review
    assert votes.trigger("category_fine_grained_oov") and votes.vote_panel.asking() == "oov_name"
    with qtbot.waitSignal(votes.message) as said:
        votes.vote_panel.text_entered.emit("oov_name", "")
    assert said.args[1] is True and "name" in said.args[0] and review.cast == []
    assert votes.vote_panel.asking() == "oov_name"  # asked again
    votes.vote_panel.text_entered.emit("oov_name", "teapot")
    assert review.cast == [(ITEM, {"category": "fine_grained_oov", "oov_name": "teapot", "verdict": "wrong"})]
    with qtbot.waitSignal(votes.message) as said:
        votes.vote_panel.text_cancelled.emit("oov_name")
    assert said.args[0].startswith("Not recorded")


def test_text_typed_for_the_item_before_is_said_not_recorded(qtbot, votes):
    votes.trigger("edit_note")
    votes.vote_panel.field.setText("half a thought")
    with qtbot.waitSignal(votes.message) as said:
        votes.drop_text_field()
    assert "not recorded" in said.args[0] and "half a thought" in said.args[0] and said.args[1] is True
    assert votes.vote_panel.asking() == "" and votes.review.cast == []


def test_the_decision_is_read_again_when_the_votes_change_and_stale_facts_go(votes):
    review, reader = votes.review, votes.bridge.reader
    review.details[ITEM] = facts(ITEM)  # read before the panel decided
    assert votes.decision_of(ITEM) is None
    votes.others_changed(OTHER)  # not the shown item: nothing read
    assert reader.jobs == []
    review.others[ITEM] = []
    votes.others_changed(ITEM)
    assert "No other votes yet" in votes.vote_panel.others.text()
    assert len(reader.jobs) == 1 and reader.jobs[0].kwargs["item"] == ITEM
    reader.done(WRONG_MAJOR)
    assert "Panel's decision" in votes.vote_panel.decision.text()
    assert ITEM not in review.details and review.requested == [ITEM]  # its top-5 read again
    review.details[ITEM] = facts(ITEM, decision=WRONG_MAJOR)  # read again, with the decision
    votes.facts_read(ITEM)
    assert votes.decision_of(ITEM) == WRONG_MAJOR
    votes.others_changed(ITEM)
    reader.done(None)  # reopened since: the panel says so before the facts follow
    assert votes.decision_of(ITEM) is None and not votes.vote_panel.decision.isVisible()
    review.details[ITEM] = facts(ITEM, decision=None)
    votes.others_changed(ITEM)
    reader.done(None)
    assert votes.decision_of(ITEM) is None and review.details[ITEM].decision is None  # fresh facts stay
    assert review.requested == [ITEM, ITEM]


def test_the_evidence_waits_for_the_verdict_where_the_preference_says_so(votes):
    review, details = votes.review, votes.details
    votes.evidence_before_vote = False
    review.details[ITEM] = facts(ITEM, decision=WRONG_MAJOR)
    votes.show_facts(review.details[ITEM])
    assert details.shown == [(review.details[ITEM], True)]
    assert "Panel's decision" in votes.vote_panel.decision.text()
    votes.trigger("verdict_unclear")
    votes.vote_changed(ITEM)
    assert not details.evidence_hidden
    votes.set_evidence_before_vote(True)
    review.row = 1
    votes.show_vote(OTHER)
    assert not details.evidence_hidden


# -- the image -----------------------------------------------------------------------------
class Loader(QObject):
    """An ImageLoader whose decodes arrive when the test says (`loaded`); `cache` answers at once."""

    loaded = Signal(object)

    def __init__(self):
        super().__init__()
        self.asked, self.cache = [], {}

    def request(self, key, *, priority=0, group=None):
        self.asked.append((key, priority))
        return self.cache.get(key)


def decoded(key, *, error=""):
    image = None
    if not error:
        image = QImage(40, 30, QImage.Format.Format_RGB32)
        image.fill(QColor("teal"))
    return Decoded(key=key, image=image, original_size=QSize(400, 300), error=error)


@pytest.fixture
def shown_image(qtbot):
    create_app()
    view = QtImageView(preferred=QSize(480, 300))
    qtbot.addWidget(view)
    view.resize(480, 300)
    view.show()
    part = ReviewPageImage(view, Loader())
    part.set_review(Review())
    return part


def test_an_item_without_an_image_says_why_at_once(qtbot, shown_image):
    with qtbot.waitSignal(shown_image.shown):
        shown_image.show(facts(ITEM, file_name="a.JPEG"))
    assert shown_image.view.message == "No image file" and shown_image.wanted is None
    with qtbot.waitSignal(shown_image.shown):
        shown_image.show(facts(ITEM, image_path=Path("/gone/a.JPEG")))
    assert shown_image.view.message == "Image file not found" and shown_image.loader.asked == []


def test_the_view_waits_for_its_own_decode_only(qtbot, shown_image, tmp_path):
    review, loader, view = shown_image.review, shown_image.loader, shown_image.view
    review.details[ITEM] = facts(ITEM, image_path=tmp_path / "a.JPEG", image_exists=True)
    with qtbot.assertNotEmitted(shown_image.shown):
        shown_image.show(review.details[ITEM])
    assert loader.asked == [(view.fit_key(tmp_path / "a.JPEG"), 2)] and view.message == "Loading…"
    with qtbot.assertNotEmitted(shown_image.shown):
        loader.loaded.emit(decoded(view.fit_key(tmp_path / "b.JPEG")))  # another item's
        loader.loaded.emit(decoded(replace(shown_image.wanted, width=10)))  # another size
    with qtbot.waitSignal(shown_image.shown):
        loader.loaded.emit(decoded(shown_image.wanted))
    assert view.has_image() and not view.message
    with qtbot.assertNotEmitted(shown_image.shown):  # the full resolution, zoomed in: no new item shown
        loader.loaded.emit(decoded(full_key(tmp_path / "a.JPEG")))
    assert view.has_image()
    with qtbot.waitSignal(shown_image.shown):
        loader.loaded.emit(decoded(shown_image.wanted, error="truncated"))
    assert view.message == "Cannot read this image"


def test_a_decode_in_the_cache_is_shown_at_once_and_the_coming_images_are_asked_nearest_first(
        qtbot, shown_image, tmp_path):
    review, loader, view = shown_image.review, shown_image.loader, shown_image.view
    for item in review.items:
        review.details[item] = facts(item, image_path=tmp_path / f"{item.image_id}.JPEG", image_exists=True)
    loader.cache[view.fit_key(tmp_path / "1.JPEG")] = decoded(view.fit_key(tmp_path / "1.JPEG"))
    with qtbot.waitSignal(shown_image.shown):
        shown_image.show(review.details[ITEM])
    loader.asked.clear()
    shown_image.prefetch()
    assert loader.asked == [(view.fit_key(tmp_path / "2.JPEG"), -1), (view.fit_key(tmp_path / "3.JPEG"), -2)]
    loader.asked.clear()
    shown_image.prefetch_of(review.details[THIRD])
    assert loader.asked == [(view.fit_key(tmp_path / "3.JPEG"), -2)]


def test_a_resize_decodes_the_shown_image_again_at_the_new_size(qtbot, shown_image, tmp_path):
    review, loader, view = shown_image.review, shown_image.loader, shown_image.view
    review.details[ITEM] = facts(ITEM, image_path=tmp_path / "1.JPEG", image_exists=True)
    shown_image.show(review.details[ITEM])
    before = shown_image.wanted
    loader.asked.clear()
    view.resize(300, 200)
    qtbot.waitUntil(lambda: shown_image.wanted != before, timeout=2_000)  # once the resizing stops
    assert shown_image.wanted == view.fit_key(tmp_path / "1.JPEG") and loader.asked[0] == (shown_image.wanted, 2)


# -- the actions -----------------------------------------------------------------------------
def test_an_action_is_the_review_s_move_a_given_act_or_a_vote():
    done, voted = [], []
    actions = ReviewPageActions({"zoom_in": lambda: done.append("zoom_in")},
                                vote=lambda name: voted.append(name) or name == "verdict_wrong")
    assert not actions.trigger("next") and not actions.trigger("zoom_in")  # no review: nothing applies
    review = Review()
    actions.set_review(review)
    assert all(actions.trigger(name) for name in REVIEW_MOVES) and review.moves == list(REVIEW_MOVES)
    assert actions.trigger("zoom_in") and done == ["zoom_in"]
    assert actions.trigger("verdict_wrong") and not actions.trigger("no_such_action")
    assert voted == ["verdict_wrong", "no_such_action"]


def test_the_view_acts_zoom_and_pan_the_image_and_step_the_probe(qtbot):
    create_app()
    view = QtImageView(preferred=QSize(480, 300))
    qtbot.addWidget(view)
    view.resize(480, 300)
    view.show()
    view.show_image(decoded(full_key("a.JPEG")).image, QSize(400, 300))
    probe = []
    zoom = SimpleNamespace(probe_or_toggle=lambda: probe.append("probe"), step_scale=probe.append)
    acts = view_acts(view, zoom)
    assert {"zoom_in", "zoom_out", "zoom_fit", "zoom_actual", "pan_left", "pan_right", "pan_up",
            "pan_down"} < set(acts)
    acts["zoom_probe"](), acts["zoom_scale_smaller"](), acts["zoom_scale_larger"]()
    assert probe == ["probe", -1, 1]
    assert view.is_fit()
    acts["zoom_in"]()
    assert not view.is_fit()
    acts["zoom_fit"]()
    assert view.is_fit()
