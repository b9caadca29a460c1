"""A run's work before its first batch does not grow by a database query per image (issue 34:
the image paths read the images' root setting once per image, 0.9 ms each, 18 s at 20,000
images on a busy machine). Counted, not timed: the statements each step sends, at two sizes;
bench/bench_predict_fixed_costs.py gives the seconds."""

from __future__ import annotations

from pathlib import Path

from project_data import new_project
from sqlalchemy import event, insert

from db.engine import write_session
from db.tables import Image
from reviewer.project import Project
from reviewer.runs.records import image_files


def project_of(root: Path, images: int, *, images_root: Path | None) -> tuple[Project, list[int]]:
    """Images stored as the importers store them: relative to the images' root (or the
    project), and one with an absolute path."""
    project = new_project(root)
    if images_root is not None:
        project.set_setting("images_root", str(images_root))
    with write_session(project.engine) as session:
        session.execute(insert(Image), [{"file_name": f"ILSVRC2012_val_{i:08d}.JPEG",
                                         "path": f"val/ILSVRC2012_val_{i:08d}.JPEG"} for i in range(1, images)]
                        + [{"file_name": "elsewhere.JPEG", "path": str(root.parent / "elsewhere.JPEG")}])
    with project.read() as session:
        ids = list(session.execute(Image.__table__.select().with_only_columns(Image.id).order_by(Image.id)).scalars())
    return project, ids


def statements_of(project: Project, work) -> tuple[object, int]:
    sent = []
    listener = lambda *args: sent.append(args[2])  # noqa: E731 - (conn, cursor, statement, ...)
    event.listen(project.engine, "before_cursor_execute", listener)
    try:
        return work(), len(sent)
    finally:
        event.remove(project.engine, "before_cursor_execute", listener)


def test_image_paths_take_the_same_queries_for_100_or_2000_images(tmp_path):
    counts = {}
    for images in (100, 2000):
        project, ids = project_of(tmp_path / f"p{images}", images, images_root=tmp_path / "photos")
        try:
            with project.read() as session:
                (paths, names), sent = statements_of(project, lambda: image_files(project, ids, session=session))
        finally:
            project.close()
        # Where Project.stored_path_file puts each image: under the images' root, or as it is when absolute.
        assert paths[0] == tmp_path / "photos" / "val" / "ILSVRC2012_val_00000001.JPEG"
        assert paths[-1] == tmp_path / "elsewhere.JPEG" and names[-1] == "elsewhere.JPEG"
        counts[images] = sent - (images + 899) // 900  # less the id lists' chunks (SQLite's bound-parameter limit)
    assert counts[100] == counts[2000] < 10, counts  # the setting read once (it was once per image)


def test_without_an_images_root_paths_are_under_the_project(tmp_path):
    project, ids = project_of(tmp_path / "p", 5, images_root=None)
    try:
        with project.read() as session:
            paths, _ = image_files(project, ids, session=session)
        assert paths[0] == project.root / "val" / "ILSVRC2012_val_00000001.JPEG"
        assert [project.stored_path_file(f"val/ILSVRC2012_val_{i:08d}.JPEG") for i in range(1, 5)] == paths[:4]
    finally:
        project.close()
