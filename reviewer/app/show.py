"""Everything the review page shows about one (image, predicted class), as plain data:
for `reviewer show` (scripts, support) and for anything else that wants one record.

Works with or without a model run: the image's labels (original, multi-label
correct / wrong / unclear, ReaL), the predicted class and the nearest label in
WordNet, every run's top-5 on the image (with the labels' or the panel's word on
each class), whether the prediction is a mistake of a run, the panel's votes,
decisions and notes (all of them, unless the panel's blind rule is on: reviewer.panel.rules), what the imported
evidence sources say (`reviewer.evidence`), the zoom probe's result where computed, and the
suggested category and severity with its reasons (`reviewer.review.suggest`; never a vote).
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
from sqlalchemy import select

from db.tables import Image, ImportedReview, ImportedReviewItem, Mistake, Model, Prediction, Run
from reviewer.app.mistake_detail import ClassInfo, DetailSource, label_kind, wordnet_relation
from reviewer.app.zoom import ZoomView, stored_zooms
from reviewer.errors import UserError
from reviewer.items import Item
from reviewer.panel.discussion import notes, shown_text
from reviewer.panel.final import read_final_decisions
from reviewer.panel.lookup import ItemStanding, item_standing, resolve_class, resolve_image
from reviewer.panel.state import current_votes, decision_history, describe_decision
from reviewer.panel.votes import panelist_names
from reviewer.project import Project
from reviewer.terms import Verdict


def _cls(info: ClassInfo | None) -> dict | None:
    return None if info is None else {"index": info.index, "wnid": info.wnid, "name": info.name,
                                       "definition": info.definition}


HIDDEN = "hidden until you vote"


def show_mistake(project: Project, *, image: str, predicted: str | int, viewer: str | None = None) -> dict:
    """The record of one (image, predicted class): see the module's docstring. Under the
    panel's blind rule (reviewer.panel.rules) the votes are those the panelist `viewer`
    (default: who is acting, reviewer.panel.identity) may see: their own, and the
    others' once they voted or once the item is decided."""
    predicted_index = resolve_class(predicted)
    with project.read() as session:
        image_id = resolve_image(session=session, text=image)
    source = DetailSource(project, image_ids=[image_id])  # the image's labels, read once (also for the runs' top-5)
    labels = source.labels
    with project.read() as session:
        row = session.get(Image, image_id)
        item = Item(image_id, predicted_index)
        runs = session.execute(select(Prediction.run_id).where(Prediction.image_id == image_id)
                               .order_by(Prediction.run_id)).scalars().all()
        mistakes = {r.run_id: r for r in session.execute(select(Mistake).where(
            Mistake.image_id == image_id, Mistake.predicted == predicted_index)).scalars()}
        statuses = dict(session.execute(select(Run.id, Run.status)).all())
        names = panelist_names(session=session)
        votes = current_votes(session=session, item=item)
        hidden = _blind_filter(session, item, viewer)
        history = decision_history(session=session, item=item)
        item_place, making_runs = item_standing(session=session, item=item)
        standing = read_final_decisions(session=session, items=[item]).get(item)
        item_notes = notes(session=session, item=item)
        reviews = _imported_reviews(session, image_id, predicted_index)
    position = int(labels.positions(np.array([image_id]))[0])
    own = labels.labels_of(position) if position >= 0 else {"correct": [], "wrong": [], "unclear": []}
    real = sorted(int(c) for c in labels.real_classes[labels.real_rows == position]) if position >= 0 else []
    patchml = sorted(int(c) for c in labels.patchml_classes[labels.patchml_rows == position]) if position >= 0 else []
    original = ClassInfo.of(row.original_label) if row.original_label is not None else None
    # The ground truth the prediction is compared with: the correct labels, else the original, else ReaL's,
    # else (a PatchML image) its patches' classes.
    targets = own["correct"] or ([original.index] if original else []) or real or patchml
    relation = wordnet_relation(predicted_index, targets)
    record = {
        "image": {"file_name": row.file_name, "path": str(project.image_file(row) or "") or None,
                  "file_exists": bool(project.image_file(row) and project.image_file(row).is_file()),
                  "in_multilabel_set": bool(labels.multilabel[position]) if position >= 0 else False,
                  "problematic": bool(labels.problematic[position]) if position >= 0 else bool(row.problematic)},
        "predicted": _cls(ClassInfo.of(predicted_index)),
        "labels": {"original": _cls(original),
                   **{kind: [_cls(ClassInfo.of(c)) for c in own[kind]] for kind in ("correct", "wrong", "unclear")},
                   "real": [_cls(ClassInfo.of(c)) for c in real],
                   "patchml": [_cls(ClassInfo.of(c)) for c in patchml],  # a PatchML image's patches' classes
                   "prediction_is": label_kind(own, predicted_index),
                   # The panel's standing final decision on this prediction, which the labels give way to.
                   "prediction_decided": (standing.verdict or None) if standing is not None else None},
        "wordnet": None if relation is None else {
            "nearest_label": _cls(relation.label), "distance": relation.distance,
            "common_ancestor": relation.common_ancestor, "common_ancestor_wnid": relation.common_ancestor_wnid,
            "predicted_path": list(relation.predicted_path), "label_path": list(relation.label_path)},
        "runs": [],
        "panel": {
            # Where the item stands for the panel: under review, outside the panel's scope, or no longer a
            # mistake under the current labels (its history below is kept, and counts nowhere).
            "standing": str(item_place), "made_by_runs": list(making_runs),
            "decision": describe_decision(standing, full=True) or None,
            "decision_history": [{"method": str(d.method), "verdict": d.verdict, "severity": d.severity,
                                  "category": d.category, "problematic": d.problematic, "reason": d.reason,
                                  "by": names.get(d.decided_by), "at": d.created_at.isoformat()} for d in history],
            "votes": [_masked({"panelist": names.get(v.panelist_id), "verdict": v.verdict,
                               "problematic": v.problematic, "severity": v.severity, "category": v.category,
                               "oov_name": v.oov_name, "note": v.note, "at": v.created_at.isoformat()},
                              hidden.get(v.panelist_id)) for v in votes],
            "notes": [{"by": names.get(n.panelist_id), "text": n.text, "at": n.created_at.isoformat()}
                      for n in item_notes],
        },
        # Published reviews (reviewer import-review) of any model's prediction on this image.
        "imported_reviews": reviews,
        "evidence": _evidence(project, row.file_name, predicted_index, original),
        "zoom": [],
    }
    top5 = source.runs_top5(image_id)
    zooms = stored_zooms(project, run_ids=runs, item=item)
    for run_id in runs:
        ranked = top5[run_id]
        mistake = mistakes.get(run_id)
        record["runs"].append({
            "run_id": run_id, "model": source.model_name(run_id), "status": str(statuses.get(run_id, "")),
            "top1": _cls(ranked[0].cls), "top1_probability": ranked[0].probability,
            "top5": [{"rank": r.rank, **_cls(r.cls), "probability": r.probability, "label": r.label_kind,
                      "decided_by_panel": r.decided} for r in ranked],
            "mistake": None if mistake is None else {"novel": mistake.novel,
                                                     "probability": mistake.probability,
                                                     "hierarchy_distance": mistake.hierarchy_distance},
        })
        if run_id in zooms:
            record["zoom"].append(_zoom(run_id, zooms[run_id]))
    record.update(_neighbours(project, row.file_name, predicted_index))
    record["suggestion"] = _suggestion(project, source, Item(image_id, predicted_index), targets, row.file_name,
                                       original, [zooms[r] for r in runs if r in zooms])
    return record


def _suggestion(project: Project, source: DetailSource, item: Item, targets: list[int], file_name: str,
                original: ClassInfo | None, zooms: list[ZoomView]) -> dict | None:
    """The suggestion the review page shows beside the vote, from the same facts: the labels, the
    evidence, the first stored zoom probe of a run predicting the class, the neighbours."""
    from reviewer.evidence import evidence_for
    from reviewer.review.suggest import SuggestionFacts, suggest

    lines = evidence_for(project, file_name, predicted=item.predicted, original=original.index if original else None)
    zoom = zooms[0].summary if zooms else None
    found = suggest(SuggestionFacts(item.predicted, tuple(targets), tuple(lines), zoom,
                                    source.neighbour_facts(file_name, item.predicted)))
    return None if found is None else found.as_dict()


def _neighbours(project: Project, file_name: str, predicted: int) -> dict:
    """The nearest training images and duplicates of the image, from `reviewer index` (issue 26)."""
    from reviewer.neighbours.lookup import read_neighbour_evidence

    found = read_neighbour_evidence(project.root, file_name, predicted=predicted)
    return {"neighbours": found["neighbours"], "duplicates": found["duplicates"],
            "neighbour_evidence": found["lines"], "neighbour_index": found["index"]}


VOTE_FIELDS = ("verdict", "problematic", "severity", "category", "oov_name", "note")


def _masked(vote: dict, hidden: frozenset[str] | None) -> dict:
    """A vote's fields the viewer may not see read HIDDEN (never a blank, which means 'not voted')."""
    if not hidden:
        return vote
    return {k: (HIDDEN if k in hidden else v) for k, v in vote.items()}


def _blind_filter(session, item: Item, viewer: str | None) -> dict[int, frozenset[str]]:
    """{panelist: the fields of their vote on `item` the viewer may not see} under the
    panel's blind rule (empty when the rule is off)."""
    from reviewer.panel.identity import IdentityError, acting_panelist
    from reviewer.panel.rules import read_rules
    from reviewer.panel.votes import visible_votes

    if not read_rules(session).blind:
        return {}
    try:
        viewer_id = acting_panelist(session=session, name=viewer).id
    except (IdentityError, LookupError, UserError):
        viewer_id = None  # not on the panel: sees the votes of decided items only
    seen = visible_votes(session=session, viewer_id=viewer_id, item=item, blind=True)
    others = {v.panelist_id for v in current_votes(session=session, item=item) if v.panelist_id != viewer_id}
    if seen is None:
        return dict.fromkeys(others, frozenset(VOTE_FIELDS))
    out = {}
    for s in seen:  # every field the viewer may not see, null or not, so a blank tells nothing
        if s.masked:
            masked = set(s.masked) | ({"oov_name"} if "category" in s.masked else set())
            out[s.panelist_id] = frozenset(masked | ({"note"} if "verdict" in s.masked else set()))
    return out


def _imported_reviews(session, image_id: int, predicted: int) -> list[dict]:
    """Every imported review's word on the image: a published review lists the mistakes its
    panel confirmed (verdict wrong), each with its category and severity; `this_prediction`
    says whether it is about the predicted class asked for."""
    rows = session.execute(
        select(ImportedReview.id, Model.name, ImportedReviewItem.predicted, ImportedReviewItem.category,
               ImportedReviewItem.severity, ImportedReviewItem.category_raw, ImportedReviewItem.severity_raw)
        .join(ImportedReview, ImportedReview.id == ImportedReviewItem.review_id)
        .join(Model, Model.id == ImportedReview.model_id)
        .where(ImportedReviewItem.image_id == image_id).order_by(ImportedReview.id, ImportedReviewItem.id)).all()
    return [{"review_id": review_id, "model": model, "predicted": _cls(ClassInfo.of(index)),
             "this_prediction": index == predicted, "verdict": str(Verdict.WRONG), "category": category,
             "severity": severity, "category_published": category_raw, "severity_published": severity_raw}
            for review_id, model, index, category, severity, category_raw, severity_raw in rows]


def _evidence(project: Project, file_name: str, predicted: int, original: ClassInfo | None) -> list[dict]:
    from reviewer.evidence import evidence_for

    lines = evidence_for(project, file_name, predicted=predicted, original=original.index if original else None)
    return [asdict(line) if hasattr(line, "__dataclass_fields__") else dict(line) for line in lines]


def _zoom(run_id: int, view: ZoomView) -> dict:
    """The stored zoom probe of the run's prediction on the image."""
    by = f" (computed by {view.computed_by})" if view.computed_by else ""
    return {"run_id": run_id, "model": view.result.model, "text": f"run {run_id}: {view.text()}{by}",
            "computed_by": view.computed_by, **view.summary.as_dict()}


def format_record(record: dict) -> str:
    """The record as the text `reviewer show` prints."""
    def name(c: dict | None) -> str:
        return "-" if c is None else f"{c['name']} ({c['index']}, {c['wnid']})"

    def names(cs: list[dict]) -> str:
        return ", ".join(f"{c['name']} ({c['index']})" for c in cs) or "none"

    image, labels, wn = record["image"], record["labels"], record["wordnet"]
    out = [f"{image['file_name']}" + ("" if image["file_exists"] else "  (no image file in this project)")
           + ("  PROBLEMATIC" if image["problematic"] else ""),
           f"predicted   {name(record['predicted'])}: {record['predicted']['definition']}",
           f"original    {name(labels['original'])}",
           f"correct     {names(labels['correct'])}",
           f"unclear     {names(labels['unclear'])}",
           f"wrong       {names(labels['wrong'])}",
           f"ReaL        {names(labels['real'])}",
           *([f"PatchML     {names(labels['patchml'])}  (its patches' classes: reviewer patchml)"]
             if labels.get("patchml") else []),
           "prediction  " + (f"{labels['prediction_decided']} by the panel's final decision (the imported labels: "
                              f"{labels['prediction_is'] or 'not among them'})" if labels["prediction_decided"]
                              else labels["prediction_is"] or "not among the labels (unreviewed)")
           + ("" if image["in_multilabel_set"] else "  (image not in the multi-label set)")]
    if wn:
        out.append(f"WordNet     distance {wn['distance']} to {name(wn['nearest_label'])} via {wn['common_ancestor']}: "
                   f"{' > '.join(wn['predicted_path'])} | {' > '.join(wn['label_path'])}")
    for run in record["runs"]:
        mistake = run["mistake"]
        state = ("a mistake" + (" (novel)" if mistake["novel"] else "")) if mistake else "not a mistake of this run"
        out.append(f"run {run['run_id']} {run['model']}: top-1 {name(run['top1'])} {run['top1_probability']:.1%}; "
                   f"this prediction is {state}")
        for r in run["top5"]:
            word = (r["label"] or "unreviewed") + (" · panel" if r["decided_by_panel"] else "")
            out.append(f"    {r['rank']}. {r['name']} ({r['index']}) {r['probability']:.1%}  {word}")
    if not record["runs"]:
        out.append("runs        no run of this project has predicted this image")
    panel = record["panel"]
    if panel.get("standing") and panel["standing"] != ItemStanding.IN_SCOPE:
        counted = (" (its votes, notes and decisions are kept and count nowhere)"
                   if panel["votes"] or panel["decision_history"] or panel["notes"] else "")
        out.append(f"standing    {panel['standing']}{counted}")
    out.append(f"decision    {panel['decision'] or 'none standing'}")
    for v in panel["votes"]:
        if v["verdict"] == HIDDEN:  # the blind rule: nothing of the vote, not even its flag
            out.append(f"    vote of {v['panelist']}: {HIDDEN}")
            continue
        fields = [v["verdict"] or "no verdict",
                  *dict.fromkeys(x for x in (v["severity"], v["category"], v["oov_name"]) if x)]
        out.append(f"    vote of {v['panelist']}: {', '.join(fields)}" + (", problematic" if v["problematic"] is True else "")
                   + (f"; note: {shown_text(v['note'])}" if v["note"] and v["note"] != HIDDEN else ""))
    for n in panel["notes"]:
        out.append(f"    note by {n['by']}: {shown_text(n['text'])}")
    if record["imported_reviews"]:
        out.append("published reviews (reviewer import-review)")
        for r in record["imported_reviews"]:
            about = "" if r["this_prediction"] else f" (of its prediction {name(r['predicted'])})"
            out.append(f"    {r['model']}: {r['verdict']}, {r['category_published'] or r['category']}, "
                       f"{r['severity_published'] or r['severity']}{about}")
    else:
        out.append("published   no imported review lists this image")
    if record["evidence"]:
        out.append("evidence")
        out.extend(f"    {line['text']}" for line in record["evidence"])
    else:
        out.append("evidence    no evidence source imported (reviewer import-evidence)")
    for zoom in record["zoom"]:
        out.append(f"zoom        {zoom['text']}")
    if record.get("suggestion"):
        out.append(f"suggested   {record['suggestion']['line']} (not a vote)")
    if record.get("neighbour_evidence"):
        out.append(f"training    (index of {record['neighbour_index']})")
        out.extend(f"    {line}" for line in record["neighbour_evidence"])
    elif record.get("neighbour_index"):
        out.append(f"training    no neighbours stored for this image (index of {record['neighbour_index']})")
    return "\n".join(out)
