"""Evidence lines: what each source says about one image, its predicted class and
its original label, in one human line (and the same as data, for JSON).

A source with no row on the image says so: for the sources that looked at all
50,000 validation images without listing each (cleanlab's flagged list, the
clean set) the absence itself is their word ("not flagged"); for the others
it is "not among its N images"; an image that is not a validation image is
"not covered" by those built on the validation set.
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewer.classes.vocabulary import load_classes
from reviewer.evidence.consensus import consensus_of, consensus_words
from reviewer.evidence.flaws_json import PROBLEM_KINDS
from reviewer.evidence.kinds import EvidenceKind, is_validation_image
from reviewer.evidence.verdicts import RATER_KINDS, rater_counts, verdict
from reviewer.wording import counted


@dataclass(frozen=True)
class EvidenceLine:
    """One source's word on one mistake: `source` its short name, `text` one line, `data` the same for JSON
    (kind, file, whether the source covers the image, its verdicts on the prediction and the original label,
    the row itself and the names of the classes it mentions)."""

    source: str
    text: str
    data: dict


@dataclass(frozen=True)
class StoredSourceRow:
    """A stored source as the lines need it."""

    id: int
    kind: EvidenceKind
    title: str
    file_name: str
    n_items: int


def name(cls: int) -> str:
    return load_classes().names[cls]


def _names(classes, predicted: int, original: int | None) -> str:
    out = []
    for cls in classes:
        tag = " (the prediction)" if cls == predicted else " (the original label)" if cls == original else ""
        out.append(name(cls) + tag)
    return ", ".join(out) or "none"


def _counts(counts: tuple[int, int, int] | None) -> str:
    if counts is None:
        return "not asked"
    no, maybe, yes = counts
    return f"{yes} yes, {maybe} maybe, {no} no"


def image_data(source: StoredSourceRow, payload: dict | None, *, predicted: int, original: int | None,
               raters: dict | None = None, raters_imported: bool = False) -> dict:
    """What the line of a per-image source holds besides its words (`image_line`, without the
    class names it mentions): its kind and file, whether it covers the image, its verdicts on
    the prediction and the original label, its row and, folded into ReaL's, the raters' row."""
    kind = source.kind
    data = {"kind": kind.value, "file_name": source.file_name, "covered": payload is not None,
            "verdict": verdict(kind, payload, predicted),
            "original_verdict": None if original is None else verdict(kind, payload, original)}
    if payload is not None:
        data["row"] = payload
    if kind is EvidenceKind.REAL_LABELS and raters_imported:
        data["raters"] = raters
    return data


def image_line(source: StoredSourceRow, payload: dict | None, *, image: str, predicted: int,
               original: int | None, raters: dict | None = None, raters_imported: bool = False) -> EvidenceLine:
    """The line of a per-image source. `raters`: the ReaL raters' row, folded into the ReaL line."""
    data = image_data(source, payload, predicted=predicted, original=original, raters=raters,
                      raters_imported=raters_imported)
    if payload is None:
        text = _absent(source, image)
    else:
        text = _TEXT[source.kind](payload, predicted, original, raters if raters_imported else None, raters_imported)
    mentioned = _mentioned(data, predicted, original)
    data["class_names"] = {str(c): name(c) for c in sorted(mentioned)}
    return EvidenceLine(source=source.title, text=f"{source.title}: {text}", data=data)


def _mentioned(data: dict, predicted: int, original: int | None) -> set[int]:
    found = {predicted} | ({original} if original is not None else set())
    for part in (data.get("row") or {}, data.get("raters") or {}):
        for key, value in part.items():
            if key == "answers":
                found.update(a[0] for a in value)
            elif key in ("labels", "proposed", "correct", "unclear", "wrong", "candidates") or \
                    (key == "new" and isinstance(value, list)):
                found.update(value)
            elif key in ("original", "guessed", "given", "old") and isinstance(value, int):
                found.add(value)
    return found


def _absent(source: StoredSourceRow, image: str) -> str:
    validation = is_validation_image(image)
    if source.kind in (EvidenceKind.CLEANLAB, EvidenceKind.FLAWS_LABEL_ERRORS):
        return "not flagged" if validation else "not covered (cleanlab ran over the 50,000 validation images)"
    if source.kind is EvidenceKind.REAL_LABELS:
        return "not covered (not an ImageNet validation image)"
    if source.kind is EvidenceKind.FLAWS_CLEAN:
        return (f"not in its clean set of {source.n_items:,} images" if validation
                else "not covered (not an ImageNet validation image)")
    if source.kind in RATER_KINDS:
        return f"no question about this image (asked about {source.n_items:,} images)"
    if source.kind is EvidenceKind.TFDS_MULTILABEL:
        return f"not in the multi-label set ({source.n_items:,} images)"
    return f"not among its {source.n_items:,} images"


def _real(p: dict, predicted: int, original: int | None, raters: dict | None, raters_imported: bool) -> str:
    labels = p["labels"]

    def word(cls: int) -> str:
        said = "accepts" if cls in labels else "does not accept"
        counts = f" (raters {_counts(rater_counts(raters, cls) if raters else None)})" if raters_imported else ""
        text = f"{said} {name(cls)}{counts}" if cls == predicted else f"{said} the original label, {name(cls)}{counts}"
        return "; ".join(filter(None, (text, _consensus(raters, cls))))

    if not labels:
        counts = (f"; raters on {name(predicted)}: {_counts(rater_counts(raters, predicted) if raters else None)}"
                  if raters_imported else "")
        consensus = _consensus(raters, predicted)
        return f"no label: the image is left out of ReaL accuracy{counts}" + (f"; {consensus}" if consensus else "")
    parts = [word(predicted)]
    if original is not None and original != predicted:
        parts.append(word(original))
    others = [c for c in labels if c not in (predicted, original)]
    if others:
        parts.append(f"labels {_names(labels, predicted, original)}")
    return "; ".join(parts)


def _consensus(raters: dict | None, cls: int) -> str:
    """"raters' consensus: 0.93 that tailed frog is in the image" ('' when not asked or not computed)."""
    return consensus_words(consensus_of(raters, cls), name(cls))


def _raters(p: dict, predicted: int, original: int | None, _raters, _imported) -> str:
    parts = [f"{name(predicted)} {_counts(rater_counts(p, predicted))}", _consensus(p, predicted)]
    if original is not None and original != predicted:
        parts += [f"the original label, {name(original)}, {_counts(rater_counts(p, original))}",
                  _consensus(p, original)]
    parts = [part for part in parts if part]
    asked = len(p["answers"])
    return "; ".join(parts) + f" ({counted(asked, 'class', 'classes')} asked about this image)"


def _cleanlab(p: dict, predicted: int, original: int | None, _raters, _imported) -> str:
    m = p["mturk"]
    counts = f"MTurk {m['given']} given, {m['guessed']} guessed, {m['both']} both, {m['neither']} neither"
    if p["guessed"] == predicted:
        which = "guessed = the prediction"
    elif p["given"] == predicted:
        which = f"given = the prediction; guessed {name(p['guessed'])}"
    else:
        which = f"guessed {name(p['guessed'])}, not the prediction"
    text = f"flagged; {counts} ({which})"
    if original is not None and p["given"] != original:
        text += f"; its given label {name(p['given'])} differs from this project's original label {name(original)}"
    return text


def _clean(p: dict, predicted: int, original: int | None, _raters, _imported) -> str:
    validated, unvalidated = p["validated"], p["unvalidated"]
    if validated:
        how = f"validated by {counted(validated, 'source')}" + (f", {unvalidated} more without validation"
                                                              if unvalidated else "")
    else:
        how = f"agreed by {counted(unvalidated, 'source')}, none validated by hand"
    tail = "" if predicted in p["proposed"] else "; not the prediction"
    return f"proposed {_names(p['proposed'], predicted, original)}, {how}{tail}"


def _label_errors(p: dict, predicted: int, original: int | None, _raters, _imported) -> str:
    given, guessed = p["original"], p["guessed"]
    text = {
        "A": f"MTurk majority keeps the given label, {_names([given], predicted, original)}",
        "B": f"MTurk majority for cleanlab's guess, {_names([guessed], predicted, original)}",
        "M": f"MTurk majority for both, {_names([given, guessed], predicted, original)}",
        "Z": f"MTurk majority for neither {name(given)} nor {name(guessed)}",
        "X": f"no MTurk majority between {name(given)} and {name(guessed)}",
    }[p["category"]]
    if predicted not in (given, guessed):
        text += "; the prediction was not asked about"
    return text


def _relabeling(p: dict, predicted: int, original: int | None, _raters, _imported) -> str:
    if p["category"] == "X":
        return "ambiguous image, no label proposed"
    if p["category"] == "Z":
        return "no label proposed"
    tail = "" if predicted in p["proposed"] else "; not the prediction"
    return f"proposed {_names(p['proposed'], predicted, original)}{tail}"


def _expert(p: dict, predicted: int, original: int | None, _raters, _imported) -> str:
    detail = f" ({p['detail']})" if p["detail"] else ""
    if p["type"] == "custom":
        return f"no ImageNet class fits{detail}"
    if p["type"] == "uncertain":
        could = f", could be {_names(p['candidates'], predicted, original)}" if p["candidates"] else ""
        return f"uncertain{could}{detail}"
    tail = "" if predicted in p["new"] else "; not the prediction"
    return f"{_names(p['new'], predicted, original)}{detail}{tail}"


def _tfds(p: dict, predicted: int, original: int | None, _raters, _imported) -> str:
    if predicted in p["correct"]:
        said = "the prediction is correct"
    elif predicted in p["unclear"]:
        said = "the prediction is unclear (counted correct)"
    elif predicted in p["wrong"]:
        said = "the prediction is wrong"
    else:
        said = "the prediction is not among its labels"
    parts = [said, f"correct {_names(p['correct'], predicted, original)}"]
    if p["unclear"]:
        parts.append(f"unclear {_names(p['unclear'], predicted, original)}")
    if p["problematic"]:
        parts.append("problematic image")
    return "; ".join(parts)


_TEXT = {
    EvidenceKind.REAL_LABELS: _real,
    EvidenceKind.REAL_RATERS: _raters,
    EvidenceKind.REAL_EXPERTS: _raters,
    EvidenceKind.REAL_RATERS_GOLDEN: _raters,
    EvidenceKind.CLEANLAB: _cleanlab,
    EvidenceKind.FLAWS_CLEAN: _clean,
    EvidenceKind.FLAWS_LABEL_ERRORS: _label_errors,
    EvidenceKind.FLAWS_RELABELING: _relabeling,
    EvidenceKind.FLAWS_EXPERT: _expert,
    EvidenceKind.TFDS_MULTILABEL: _tfds,
}


def group_line(source: StoredSourceRow, groups: dict[int, tuple[int, dict]], *, predicted: int,
               original: int | None) -> EvidenceLine:
    """The class-group line: the groups of the predicted and the original class. `groups`: class -> (group, row)."""
    of_predicted = groups.get(predicted)
    of_original = groups.get(original) if original is not None else None

    def group_text(row: dict) -> str:
        kinds = "; ".join(PROBLEM_KINDS[k] for k in row["kinds"])
        return f"{_names(row['classes'], predicted, original)} ({kinds})"

    if of_predicted and of_original and of_predicted[0] == of_original[0]:
        text = f"the prediction and the original label are in one group: {group_text(of_predicted[1])}"
    else:
        parts = []
        if of_predicted:
            parts.append(f"the prediction's group: {group_text(of_predicted[1])}")
        if of_original:
            parts.append(f"the original label's group: {group_text(of_original[1])}")
        nothing = ("neither the prediction nor the original label is in one of its groups" if original is not None
                   else "the prediction is in none of its groups")
        text = "; ".join(parts) or nothing
    data = {"kind": source.kind.value, "file_name": source.file_name,
            "covered": bool(of_predicted or of_original), "verdict": None, "original_verdict": None,
            "same_group": bool(of_predicted and of_original and of_predicted[0] == of_original[0]),
            "predicted_group": None if not of_predicted else {"number": of_predicted[0], **of_predicted[1]},
            "original_group": None if not of_original else {"number": of_original[0], **of_original[1]}}
    classes = set()
    for g in (of_predicted, of_original):
        if g:
            classes.update(g[1]["classes"])
    data["class_names"] = {str(c): name(c) for c in sorted(classes | {predicted} | (
        {original} if original is not None else set()))}
    return EvidenceLine(source=source.title, text=f"{source.title}: {text}", data=data)

