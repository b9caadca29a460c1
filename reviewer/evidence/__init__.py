"""Evidence from published relabelings of the ImageNet validation set: ReaL (labels and
raw rater answers), cleanlab's label errors, Flaws of ImageNet (clean set, label errors,
relabelings, weasel experts, class groups) and the TFDS v3 multi-labels.

Kept apart from the ground truth: importing evidence writes only the evidence tables
(`db.tables.EvidenceSource`, `EvidenceItem`, `EvidenceClass`) and never the images,
labels or problematic marks that metrics read; nothing adopts evidence into the labels.

- `read_evidence_files(paths, stored=)`: every file read and checked by content
  (`sniff`); `store_evidence(session=, sources=)` stores them in the caller's
  transaction (`reviewer.app.evidence.import_evidence` is the act: all in one).
- `evidence_for(session_or_project, image, predicted, original)`: the lines for one mistake;
  `evidence_for_many(session, mistakes)` the same for many in two queries.
- `evidence_by_pair(...)`, `uncovered_images(...)`: the queue's bulk questions.

May import `db`, `reviewer.classes`, `reviewer.importers` (their readers) and
`reviewer.project`; nothing of the app layer, the window or the command line.
"""

from __future__ import annotations

from reviewer.evidence.lines import EvidenceLine
from reviewer.evidence.query import PairEvidence, evidence_by_pair, evidence_for, evidence_for_many, uncovered_images
from reviewer.evidence.sniff import read_evidence_files
from reviewer.evidence.store import SourceInfo, StoredEvidence, list_sources, store_evidence, stored_files

__all__ = ["EvidenceLine", "PairEvidence", "SourceInfo", "StoredEvidence", "evidence_by_pair", "evidence_for",
           "evidence_for_many", "list_sources", "read_evidence_files", "store_evidence", "stored_files",
           "uncovered_images"]
