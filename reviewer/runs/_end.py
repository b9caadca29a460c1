"""The step that ends a complete run, computed (`reviewer.runs.compute`) or imported
(`reviewer.runs.logits`): `end_run`, one unit of work. Private to those two; it imports
no model code, so an import of scores loads neither torch nor timm."""

from __future__ import annotations

from reviewer.errors import UserError
from reviewer.project import Project
from reviewer.runs.records import store_run_mistakes


def end_run(project: Project, run_id: int) -> tuple[int | None, str | None]:
    """The step that ends a complete run, one unit of work: its mistakes found and stored,
    their count kept in its report. (count, None), or (None, why not)."""
    try:
        return project.write(lambda session: store_run_mistakes(session=session, run_id=run_id)), None
    except UserError as exc:
        return None, f"mistakes not computed: {exc}"
