"""Evidence from published relabelings of the ImageNet validation set: ReaL (labels and
raw rater answers), cleanlab's label errors, Flaws of ImageNet (clean set, label errors,
relabelings, weasel experts, class groups) and the TFDS v3 multi-labels.

Kept apart from the ground truth: importing evidence writes only the evidence tables
(`db.tables.EvidenceSource`, `EvidenceItem`, `EvidenceClass`) and never the images,
labels or problematic marks that metrics read; nothing adopts evidence into the labels.

- `import_evidence(project, paths)`: every file read and checked by content
  (`sniff`), then all stored in one transaction (`store`).
- `evidence_for(session_or_project, image, predicted, original)`: the lines for one mistake.
- `evidence_by_pair(...)`, `uncovered_images(...)`: the queue's bulk questions.

May import `db`, `reviewer.classes`, `reviewer.importers` (their readers) and
`reviewer.project`; nothing of the app layer, the window or the command line.
"""

from __future__ import annotations

from pathlib import Path

from reviewer.evidence.lines import EvidenceLine
from reviewer.evidence.query import PairEvidence, evidence_by_pair, evidence_for, uncovered_images
from reviewer.evidence.sniff import read_evidence_files
from reviewer.evidence.store import SourceInfo, StoredEvidence, list_sources, store_evidence, stored_files

__all__ = ["EvidenceLine", "PairEvidence", "SourceInfo", "StoredEvidence", "evidence_by_pair", "evidence_for",
           "import_evidence", "list_sources", "read_evidence_files", "store_evidence", "uncovered_images"]


def import_evidence(project, paths: list[str | Path]) -> list[StoredEvidence]:
    """Read and check every file, then store them all in one write transaction (all or nothing).
    A file already imported is left as it is and reported 'unchanged'."""
    with project.read() as session:
        stored = stored_files(session=session)
    sources = read_evidence_files(list(paths), stored=stored)
    return project.write(lambda session: store_evidence(session=session, sources=sources))
