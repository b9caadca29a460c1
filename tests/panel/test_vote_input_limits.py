"""`vote` given input past what the csv module or the database takes (issue 29,
findings 7 and 8): a clear error naming the input and what to do, exit status 2 and
not one vote recorded, on SQLite and PostgreSQL alike; a UTF-8 byte-order mark (Excel's
"CSV UTF-8") is read like any UTF-8 file."""

from __future__ import annotations

import io
import sys

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
    return project, names, tmp_path


TOO_MUCH = {
    "a cell over the csv limit": ("image,predicted,verdict,note\n{0},10,wrong,fine\n{1},11,wrong," + "x" * 131_073
                                  + "\n", "a cell longer than 131,072 characters"),
    "a NUL in a note": ("image,predicted,verdict,note\n{0},10,wrong,fine\n{1},11,wrong,a\x00b\n",
                        "line 3: the note holds a NUL character"),
    "an object's name of 256 characters": (
        "image,predicted,category,oov_name\n{0},10,fine_grained,\n{1},11,fine_grained_oov," + "n" * 256 + "\n",
        "line 3: the object's name (oov_name) holds at most 255 characters; this one has 256"),
}


@pytest.mark.parametrize("case", sorted(TOO_MUCH))
def test_input_past_the_limits_records_nothing(voting, capsys, case):
    project, names, tmp_path = voting
    text, message = TOO_MUCH[case]
    batch = tmp_path / "votes.csv"
    batch.write_text(text.format(*names), encoding="utf-8")
    assert main(["vote", str(project.root), "--panelist", "bob", "--batch", str(batch)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "votes.csv" in err and "Traceback" not in err
    assert "nothing of this file was recorded" in err
    assert vote_rows(project) == 0


def test_binary_data_on_stdin_is_refused(voting, capsys, monkeypatch):
    project, _names, _ = voting
    data = b"image,predicted,verdict\n\xff\xfe\x00\x81PNG\x89\r\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape"))
    assert main(["vote", str(project.root), "--panelist", "bob", "--batch", "-"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: stdin: is not UTF-8 text") and "save it as UTF-8 CSV" in err
    assert vote_rows(project) == 0


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_a_byte_order_mark_is_read_as_utf8(voting, capsys, monkeypatch, source):
    project, names, tmp_path = voting
    data = f"\ufeffimage,predicted,verdict,note\r\n{names[0]},10,wrong,café\r\n{names[1]},11,correct,\r\n".encode()
    if source == "file":
        (tmp_path / "excel.csv").write_bytes(data)
        given = str(tmp_path / "excel.csv")
    else:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        given = "-"
    assert main(["vote", str(project.root), "--panelist", "bob", "--batch", given]) == 0
    assert vote_rows(project) == 2
    with read_session(project.engine) as session:
        assert session.execute(select(Vote.note).order_by(Vote.id)).scalars().all() == ["café", ""]
    capsys.readouterr()


def test_an_out_of_vocabulary_category_needs_the_objects_name(voting, capsys):
    project, names, _ = voting
    vote = ["vote", str(project.root), "--panelist", "bob", "--image", names[0], "--predicted", "10"]
    assert main([*vote, "--category", "fine_grained_oov"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: category fine_grained_oov") and "--oov-name" in err
    assert vote_rows(project) == 0
    assert main([*vote, "--category", "fine_grained_oov", "--oov-name", "a toy robin"]) == 0
    assert main([*vote, "--severity", "minor"]) == 0  # the name stays with the category
    assert vote_rows(project) == 2
    capsys.readouterr()


def test_a_nul_in_a_discussion_note_is_refused(voting, capsys):
    from reviewer.panel.discussion import NoteError, check_note

    with pytest.raises(NoteError, match="NUL character"):
        check_note("see \x00 here")


def test_a_panelists_name_past_its_column_or_with_a_newline_is_refused(voting, capsys):
    project, _names, _ = voting
    for name in ("x" * 129, "eve\nmallory", "tab\there"):
        assert main(["panelist", str(project.root), name]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: a panelist's name is at most 128 printable characters") and "Traceback" not in err
    assert main(["panelist", str(project.root), "x" * 128]) == 0
    capsys.readouterr()


def test_an_override_with_an_overlong_object_name_is_a_clear_error(voting, capsys):
    project, names, _ = voting
    for who in ("ann", "bob"):
        assert main(["vote", str(project.root), "--panelist", who, "--image", names[0], "--predicted", "10",
                     "--verdict", "wrong", "--not-problematic"]) == 0
    capsys.readouterr()
    assert main(["decide", str(project.root), "--chair", "ann", "--image", names[0], "--predicted", "10",
                 "--override", "--verdict", "wrong", "--severity", "major", "--category", "fine_grained_oov",
                 "--oov-name", "n" * 300, "--reason", "a toy", "--force"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err and ("255" in err or "longer" in err)


def test_a_note_past_the_servers_bound_is_a_clear_error_before_the_server(voting, capsys):
    """Issue 36, H2: the database bounds a vote's note at a batch cell's 131,072 characters
    (migration 0013); the app says so first, and records nothing."""
    project, names, _ = voting
    vote = ["vote", str(project.root), "--panelist", "bob", "--image", names[0], "--predicted", "10",
            "--verdict", "wrong"]
    assert main([*vote, "--note", "n" * 131_073]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the note holds at most 131,072 characters") and "Traceback" not in err
    assert vote_rows(project) == 0
    assert main([*vote, "--note", "n" * 131_072]) == 0
    assert vote_rows(project) == 1
    capsys.readouterr()
