"""`reviewer suggest`: every mistake of a run or of an imported review with its suggested category
and severity and their reasons (`reviewer.review.categorise`); nothing is stored."""

from __future__ import annotations

from reviewer.project import Project


def suggest_mistakes(project: Project, *, run_id: int | None = None, review: str | None = None) -> dict:
    """{"run_id" or "review", "mistakes": [...], "shares": ...} for the run (default: the newest run,
    or the only imported review where the project has no run)."""
    from reviewer.app.runs import runs_in
    from reviewer.review.categorise import categorise, error_type_shares

    with project.read() as session:
        if run_id is None and review is None:
            runs = runs_in(session=session)
            if runs:
                run_id = runs[0][0]
            else:
                from reviewer.review.reviewed_mistakes import imported_review_items

                models = sorted(set(imported_review_items(session=session)["model"]))
                if len(models) != 1:
                    raise KeyError("the project has no run" + (f"; give --review, one of {', '.join(models)}"
                                                               if models else " and no imported review"))
                review = models[0]
        rows = categorise(session=session, run_id=run_id, review=review)
    return {"run_id": run_id, "review": review, "mistakes": [r.as_dict() for r in rows],
            "shares": error_type_shares(rows)}


def format_suggestions(result: dict) -> str:
    """The suggestions as text: one line per mistake, then the shares."""
    from reviewer.review.suggest import ErrorType

    what = f"run {result['run_id']}" if result["run_id"] is not None else f"review {result['review']}"
    lines = [f"{what}: {len(result['mistakes'])} mistakes (suggestions, never votes; 'panel' or 'published' where "
             "decided)"]
    for m in result["mistakes"]:
        s = m["suggestion"]
        said = "no label to compare with" if s is None else f"{s['line']} [{s['category_rule']}/{s['severity_rule']}]"
        decided = "" if m["source"] == "suggested" else f"  ({m['source']}: {m['error_type']}, {m['severity']})"
        if not m["counted"]:
            decided += "  (not counted: judged no mistake, or the image's ground truth is problematic)"
        lines.append(f"{m['file_name']}  {m['predicted']} {m['predicted_name']}: {said}{decided}")
    shares = result["shares"]
    sources = ", ".join(f"{k} {v}" for k, v in shares["sources"].items())
    types = ", ".join(f"{ErrorType(t).caption} {100 * v['share']:.1f} %" for t, v in shares["error_types"].items()
                      if v["share"])
    severity = ", ".join(f"{k} {100 * v['share']:.1f} %" for k, v in shares["severity"].items() if v["share"] is not None)
    lines += ["", f"error types: {types or 'none'}", f"severity: {severity or 'none'}",
              f"answers from: {sources}" + (f"; {shares['not_counted']} not counted" if shares["not_counted"] else "")]
    return "\n".join(lines)
