"""The raters' consensus (Dawid–Skene over ReaL's raw answers) as stored on import and as the
evidence lines say it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from reviewer.classes.vocabulary import load_classes
from reviewer.evidence import evidence_for
from reviewer.evidence.consensus import REAL_THRESHOLD, consensus_of, fit_rater_consensus, probability_text
from reviewer.evidence.kinds import EvidenceKind
from reviewer.evidence.lines import StoredSourceRow, image_line

NAMES = load_classes().names
REAL = StoredSourceRow(id=1, kind=EvidenceKind.REAL_LABELS, title="ReaL", file_name="real.json", n_items=50_000)
CROWD = StoredSourceRow(id=2, kind=EvidenceKind.REAL_RATERS, title="ReaL raters", file_name="raters.npz",
                        n_items=24_889)


def test_the_real_line_says_the_consensus_beside_the_counts():
    """32 tailed frog predicted, 31 tree frog the original label: each with its counts and its consensus."""
    raters = {"answers": [[31, 3, 1, 1], [32, 0, 1, 4]], "consensus": [[31, 0.0412], [32, 0.9349]]}
    line = image_line(REAL, {"labels": [32]}, image="ILSVRC2012_val_00000001.JPEG", predicted=32, original=31,
                      raters=raters, raters_imported=True)
    assert line.text == (f"ReaL: accepts {NAMES[32]} (raters 4 yes, 1 maybe, 0 no); raters' consensus: 0.93 that "
                         f"{NAMES[32]} is in the image; does not accept the original label, {NAMES[31]} (raters 1 yes, "
                         f"1 maybe, 3 no); raters' consensus: 0.04 that {NAMES[31]} is in the image")
    assert line.data["raters"]["consensus"] == [[31, 0.0412], [32, 0.9349]]


def test_the_crowd_line_alone_and_certainties_not_rounded_to_one():
    raters = {"answers": [[32, 0, 0, 5]], "consensus": [[32, 0.99999]]}
    line = image_line(CROWD, raters, image="x.JPEG", predicted=32, original=None)
    assert line.text == (f"ReaL raters: {NAMES[32]} 5 yes, 0 maybe, 0 no; raters' consensus: > 0.99 that {NAMES[32]} "
                         "is in the image (1 class asked about this image)")
    assert [probability_text(p) for p in (0.004, 0.005, 0.5, 0.995, 0.996)] == ["< 0.01", "0.01", "0.50", "0.99",
                                                                                  "> 0.99"]
    # A file imported before the consensus was computed: counts only, no claim.
    old = image_line(CROWD, {"answers": [[32, 0, 0, 5]]}, image="x.JPEG", predicted=32, original=None)
    assert "consensus" not in old.text and consensus_of({"answers": [[32, 0, 0, 5]]}, 32) is None


def test_stored_consensus_is_the_fit_over_the_raw_answers(full_project, published):
    """What the import stored per (image, class) is Dawid–Skene's posterior over every answer of the file,
    fitted here from the raw tensor; the line of image 293 says the stored value of its question."""
    project, results, _ = full_project
    with np.load(published / "real" / "raters.npz", allow_pickle=False) as z:
        tensor, info = z["tensor"], z["info"]
    raters, questions, answers = np.nonzero(tensor)
    present = fit_rater_consensus(questions, raters, answers, n_tasks=len(info),
                                  n_raters=len(tensor)).posteriors[:, 1]
    from sqlalchemy import select

    from db.tables import EvidenceItem, EvidenceSource
    with project.read() as session:
        stored = {name: json.loads(payload) for name, payload in session.execute(
            select(EvidenceItem.image_name, EvidenceItem.payload).join(EvidenceSource).where(
                EvidenceSource.kind == "real_raters"))}
    for n in range(0, len(info), 97):
        name, cls = str(info[n, 0]), int(info[n, 1])
        assert consensus_of(stored[name], cls) == pytest.approx(present[n], abs=1e-6)
    crowd = next(r for r in results if r.file_name == "raters.npz")
    key = f"questions the raters' consensus accepts (Dawid–Skene, at least {REAL_THRESHOLD})"
    assert crowd.figures[key] == int((present >= REAL_THRESHOLD).sum())
    n = int(np.flatnonzero((info[:, 0] == "ILSVRC2012_val_00000293.JPEG") & (info[:, 1] == "0"))[0])
    line = {x.data["kind"]: x for x in evidence_for(project, "ILSVRC2012_val_00000293.JPEG", 48, 0)}["real_labels"]
    assert f"raters' consensus: {probability_text(present[n])} that tench is in the image" in line.text
