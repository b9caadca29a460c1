"""The major-error split for any front end (`reviewer split`): the rule applied to
the project's runs and reviews (`reviewer.evaluation.split`, ImageNet-M's rule,
Vasudevan et al. 2022, 5.1), its images stored as a slice when asked, and its
candidates written to a file when asked.

Imports nothing heavy at module level: the command line's help names `DEFAULT_K`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reviewer.app.changes import Done
    from reviewer.evaluation.split import SplitResult
    from reviewer.project import Project

DEFAULT_K = 3  # k when none is given: at least 3 of the members, as ImageNet-M


@dataclass(frozen=True)
class SplitOutcome:
    result: SplitResult
    saved: int | None  # images stored as the slice (`save`), else None


def apply_split(project: Project, *, runs: list[str], k: int | None = None, anchor: str | None = None,
                save: str | None = None, replace: bool = False, export: str | Path | None = None
                ) -> Done[SplitOutcome]:
    """The split of `runs` (run ids, model names, run:ID or review:ID): candidates are the
    `anchor`'s (default the first member's) major mistakes, kept where at least `k` members
    made a major mistake. One unit of work: a read, or with `save` the write that also
    stores the selected images as that slice. `export`: the rule and every candidate
    written to this JSON file."""
    from reviewer.app.changes import Changes, Done
    from reviewer.errors import UserError
    from reviewer.evaluation.split import SplitRule, apply_split_rule, resolve_members, save_split

    def work(session) -> SplitOutcome:
        members = resolve_members(session=session, specs=runs)
        first = 0
        if anchor:
            (wanted,) = resolve_members(session=session, specs=[anchor])
            if wanted not in members:
                raise UserError(f"the anchor {wanted.label} is not one of --runs; add it to them")
            first = members.index(wanted)
        need = DEFAULT_K if k is None else k
        if not 1 <= need <= len(members):
            given = f"{len(members)} --runs ({', '.join(m.label for m in members)})"
            if k is None:
                raise UserError(f"--k is {DEFAULT_K} by default, more than the {given}: name at least "
                                f"{DEFAULT_K} runs or reviews with --runs, or pass --k "
                                + ("1" if len(members) == 1 else f"1 to {len(members)}"))
            raise UserError(f"--k {need}: between 1 and the number of {given}")
        result = apply_split_rule(session=session, rule=SplitRule(members, k=need, anchor=first))
        size = save_split(session=session, result=result, name=save, replace=replace) if save else None
        return SplitOutcome(result, size)

    outcome = run_split(project, work, save=bool(save))
    if export:
        from reviewer.evaluation.split import SELECTED

        write_candidates(outcome.result, export, kept=SELECTED)
    return Done(outcome, Changes(labels=True) if save else Changes())


def run_split(project, work, *, save: bool):
    """A split's one unit of work: written when it saves a slice, else a read snapshot."""
    if save:
        return project.write(work)
    with project.read() as session:
        return work(session)


def write_candidates(result, path: str | Path, *, kept: str) -> None:
    """A split's candidates file: its rule, counts, the images kept (status `kept`) and every
    candidate with its status (the major-error split, the zoom-hard split)."""
    import json

    from reviewer._files import atomic_write_text
    from reviewer.errors import UserError

    data = {"rule": result.rule.as_dict(), "counts": result.counts(), "images": result.images(kept),
            "candidates": json.loads(result.table.to_json(orient="records"))}
    try:
        atomic_write_text(path, json.dumps(data, indent=2) + "\n")
    except OSError as exc:
        raise UserError(f"could not write {path}: {exc.strerror or exc}") from exc
