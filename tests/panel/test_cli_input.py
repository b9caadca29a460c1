"""A panelist's command line given wrong input: a clear error naming the problem,
exit status 2, and not one vote recorded."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from db.engine import read_session
from db.tables import Vote
from reviewer.app import panel as acts
from reviewer.cli import main


def vote_rows(project) -> int:
    with read_session(project.engine) as session:
        return session.execute(select(func.count(Vote.id))).scalar_one()


@pytest.fixture
def voting(project, add_mistakes, tmp_path):
    items = add_mistakes(project, [(10, True), (11, True)])
    acts.add_panelist(project, "ann", chair=True)
    acts.add_panelist(project, "bob")
    names = [f"ILSVRC2012_val_{i.image_id:08d}.JPEG" for i in items]
    return project, items, names, tmp_path


BAD_BATCHES = {
    # a good first row, then the bad one: the good one must not be recorded either
    "short row": ("image,predicted,verdict\n{0},10,wrong\n{1},11\n", "line 3: fewer cells than the header"),
    "surplus cell": ("image,predicted,verdict\n{0},10,wrong\n{1},11,wrong,oops\n",
                     "line 3: 1 more cell(s) than the header"),
    "nothing to vote": ("image,predicted,verdict,note\n{0},10,wrong,\n{1},11,,\n", "line 3: nothing to vote"),
    "bad verdict": ("image,predicted,verdict\n{0},10,wrong\n{1},11,Wrong\n", "verdict must be one of"),
    "contradiction": ("image,predicted,verdict,severity\n{0},10,wrong,major\n{1},11,correct,major\n",
                      "leave them out of a 'correct' verdict"),
    "not a mistake": ("image,predicted,verdict\n{0},10,wrong\n{1},12,wrong\n", "is not a mistake of any run"),
    "bad flag": ("image,predicted,problematic\n{0},10,yes\n{1},11,perhaps\n", "problematic must be yes or no"),
    "unknown column": ("image,predicted,verdikt\n{0},10,wrong\n", "unknown: verdikt"),
    "a class of 6000 digits": ("image,predicted,verdict\n{0},10,wrong\n{1}," + "9" * 6000 + ",wrong\n",
                               "class 999999999999…: a class index is 0..999"),
    "an image of 6000 digits": ("image,predicted,verdict\n{0},10,wrong\n" + "9" * 6000 + ",11,wrong\n",
                                "is not in the project"),
}


@pytest.mark.parametrize("case", sorted(BAD_BATCHES))
def test_a_bad_batch_records_nothing(voting, capsys, case):
    project, _items, names, tmp_path = voting
    text, message = BAD_BATCHES[case]
    batch = tmp_path / "votes.csv"
    batch.write_text(text.format(*names))
    assert main(["vote", str(project.root), "--panelist", "bob", "--batch", str(batch)]) == 2
    err = capsys.readouterr().err
    assert message in err and "votes.csv" in err
    assert vote_rows(project) == 0


def test_wrong_single_votes_are_refused_clearly(voting, capsys):
    project, _items, names, _ = voting
    root = str(project.root)
    cases = [
        (["--panelist", "dave", "--image", names[0], "--predicted", "10", "--verdict", "wrong"],
         "no panelist named 'dave' (panelists: ann, bob)"),
        (["--panelist", "bob", "--image", "nothere.JPEG", "--predicted", "10", "--verdict", "wrong"],
         "image 'nothere.JPEG' is not in the project"),
        (["--panelist", "bob", "--image", names[0], "--predicted", "n99999999", "--verdict", "wrong"],
         "give an index 0-999, a wnid or a whole class name"),
        (["--panelist", "bob", "--image", names[0], "--predicted", "10"], "nothing to vote"),
        (["--panelist", "bob", "--image", names[0], "--predicted", "10", "--verdict", "unclear",
          "--category", "fine_grained"], "leave them out of a 'unclear' verdict"),
        (["--panelist", "bob", "--undo", "--image", names[0]], "--undo takes no other vote options"),
        (["--panelist", "bob", "--batch", "x.csv", "--verdict", "wrong"], "--batch takes no other vote options"),
    ]
    for args, message in cases:
        assert main(["vote", root, *args]) == 2, args
        assert message in capsys.readouterr().err, args
    assert vote_rows(project) == 0
    # The same vote, right: recorded and attributed.
    assert main(["vote", root, "--panelist", "bob", "--image", names[0], "--predicted", "10",
                 "--verdict", "wrong", "--severity", "major"]) == 0
    assert "vote 1: bob on" in capsys.readouterr().out
    assert vote_rows(project) == 1
