"""Adopting an evidence source as the project's ground truth: the one way evidence
reaches the labels that metrics use, and only when asked (`reviewer adopt-evidence`).

Two sources are label sets in the published layouts the label importers read, and
can be adopted whole:

- ReaL (`real.json`) becomes the project's ReaL labels (the `real` label set,
  as `reviewer import-labels real.json` makes it);
- the TFDS v3 multi-labels become the project's multi-label set (correct / wrong /
  unclear labels, problematic flags and original labels, as `import-labels` of the
  same file makes it).

The plan is rebuilt from the stored rows (the file need not be at hand) and written
by the label importers' own `apply_plan`, in one transaction. The other sources are
proposals about some images (cleanlab's guess, Flaws of ImageNet's corrections, the
raters' answers), not a label set: they are refused, with why.
"""

from __future__ import annotations

import json

from sqlalchemy import select
from sqlmodel import Session

from db.tables import EvidenceItem, EvidenceSource, Image
from reviewer.errors import UserError
from reviewer.evidence.kinds import EvidenceKind
from reviewer.importers._multilabel import MultilabelRecords
from reviewer.importers._plan import ImportPlan, ImportSummary, apply_plan

ADOPTABLE = {EvidenceKind.REAL_LABELS: "the project's ReaL labels",
             EvidenceKind.TFDS_MULTILABEL: "the project's multi-label set"}
# As the TFDS CSV importer marks them, naming where the flag came from.
PROBLEMATIC_META = {"reason": "is_problematic in the TFDS imagenet2012_multilabel v3 labels, adopted from evidence"}


class AdoptError(UserError):
    """A source that cannot be adopted (not imported, or not a label set)."""


def adopt(*, session: Session, kind: str) -> ImportSummary:
    """Write the stored source of `kind` as the project's labels (see the module doc)."""
    try:
        kind = EvidenceKind(kind)
    except ValueError:
        raise AdoptError(f"{kind!r} is no evidence source kind; adoptable: {', '.join(ADOPTABLE)}") from None
    if kind not in ADOPTABLE:
        raise AdoptError(f"{kind.title} is not a label set but proposals about some images: it cannot be adopted "
                         f"as ground truth (adoptable: {', '.join(ADOPTABLE)}); review its proposals as a panel, "
                         "or import a corrected label file with 'reviewer import-labels'")
    source = session.execute(select(EvidenceSource).where(EvidenceSource.kind == kind.value)
                             .order_by(EvidenceSource.id.desc())).scalars().first()
    if source is None:
        raise AdoptError(f"no {kind.title} evidence is imported; import its file with 'reviewer import-evidence'")
    project_images = set(session.execute(select(Image.file_name)).scalars())
    rows = session.execute(select(EvidenceItem.image_name, EvidenceItem.payload)
                           .where(EvidenceItem.source_id == source.id)).all()
    payloads = {name: json.loads(payload) for name, payload in rows}
    plan = (_real_plan if kind is EvidenceKind.REAL_LABELS else _tfds_plan)(source.file_name, payloads,
                                                                           project_images)
    return apply_plan(session=session, plan=plan)


def _real_plan(file_name: str, payloads: dict[str, dict], project_images: set[str]) -> ImportPlan:
    """As `importers.real.parse(only=project images)`: the project's images, [] kept."""
    plan = ImportPlan(kind="real", source_path=f"evidence:{file_name}")
    for name in sorted(payloads):
        if name in project_images:
            plan.real_images.append(name)
            plan.real_labels.extend((name, int(c)) for c in dict.fromkeys(payloads[name]["labels"]))
    plan.create_missing_images = False
    if len(plan.real_images) < len(payloads):
        plan.warnings.append(f"{len(plan.real_images)} of the {len(payloads)} images are in the project; the others "
                             "were skipped")
    return plan


def _tfds_plan(file_name: str, payloads: dict[str, dict], project_images: set[str]) -> ImportPlan:
    """As the TFDS importers make it: every listed image joins the multi-label set (made if missing)."""
    plan = ImportPlan(kind="tfds_v3_csv", source_path=f"evidence:{file_name}")
    records = MultilabelRecords(plan)
    for name in sorted(payloads):
        row = payloads[name]
        if row.get("original") is not None:
            plan.image(name).original_label = int(row["original"])
        records.add(name, {kind: [int(c) for c in row.get(kind, [])] for kind in ("correct", "wrong", "unclear")})
        if row.get("problematic"):
            plan.problematic[name] = dict(PROBLEMATIC_META)
    return records.finish()
