"""Published evidence for any front end: import relabelings beside the ground truth,
adopt one as the project's labels, and read what the sources say about an image.

Each act is one unit of work: every file is read and checked first, then all are
stored in one write transaction (all or nothing). Evidence shows beside any item,
so both writes say the items' facts may have changed (`Changes.labels`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reviewer.app.changes import Changes, Done
from reviewer.evidence import EvidenceLine, SourceInfo, StoredEvidence, list_sources, read_evidence_files
from reviewer.evidence import evidence_for as _evidence_for
from reviewer.evidence.store import store_evidence, stored_files
from reviewer.importers import ImportSummary
from reviewer.project import Project

_FACTS = Changes(labels=True)


def import_evidence(project: Project, paths: list[str | Path], *, imagenet_x: bool = False
                    ) -> Done[list[StoredEvidence]]:
    """Read and check every file, then store them all in one write transaction. A file
    already imported is left as it is and reported 'unchanged'; the labels that metrics
    use never change. `imagenet_x`: ImageNet-X's two validation files from the installed
    `imagenet-x` package too (UserError, saying how to install it, when it is not)."""
    from reviewer.evidence.imagenet_x import package_files

    paths = list(paths) + (package_files() if imagenet_x else [])
    with project.read() as session:
        stored = stored_files(session=session)
    sources = read_evidence_files(paths, stored=stored)
    return Done(project.write(lambda session: store_evidence(session=session, sources=sources)), _FACTS)


def adopt_evidence(project: Project, kind: str) -> Done[ImportSummary]:
    """Make an imported label-set source (real_labels, tfds_multilabel) the project's
    labels (`reviewer.evidence.adopt`), in one transaction."""
    from reviewer.evidence.adopt import adopt

    return Done(project.write(lambda session: adopt(session=session, kind=kind)), _FACTS)


def evidence_sources(project: Project) -> list[SourceInfo]:
    """The imported evidence sources."""
    with project.read() as session:
        return list_sources(session=session)


@dataclass(frozen=True)
class ImageEvidence:
    original: int | None  # the original label the lines compare with
    in_project: bool  # whether the project holds the image (evidence is shown all the same)
    lines: list[EvidenceLine]


def image_evidence(project: Project, image_name: str, predicted: int, original: int | None = None) -> ImageEvidence:
    """What every source says about an image, a predicted class and the original label
    (default: the project's, when it holds the image), from one snapshot."""
    from sqlalchemy import select

    from db.tables import Image

    with project.read() as session:
        row = session.execute(select(Image.original_label).where(Image.file_name == image_name)).first()
        if original is None and row is not None:
            original = row.original_label
        return ImageEvidence(original, row is not None, _evidence_for(session, image_name, predicted, original))
