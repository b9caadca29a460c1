"""Figures kept between reports (reviewer.analysis.cache): a kept figure is served only while
what it reads is unchanged. Each input the report reads is changed in turn (a label import,
problematic marks, a published review, a vote, a decision, a panel rule, a new run, a run
ended later, a rewritten probability file, any setting), and the kept report must equal a
report computed afresh without the cache, and differ from the one before the change. A
damaged, foreign or unsigned cache file is never served and never a crash.

The project: the first 600 validation images with their real original labels and TFDS v3
multi-labels (tests/data), two runs imported as logits whose mistakes fall on each label's
neighbouring classes, three panelists who voted on some of the first run's mistakes."""

from __future__ import annotations

import csv
import json
import shutil

import numpy as np
import pytest
from sqlalchemy import update
from sqlmodel import SQLModel

from db.engine import write_session
from db.tables import Run
from reviewer.analysis import cache as cache_module
from reviewer.analysis.cache import FigureCache
from reviewer.analysis.inputs import NOT_READ, TABLES_READ
from reviewer.analysis.report import ReportOptions, build_report
from reviewer.analysis.report_json import report_json
from reviewer.cli import main
from reviewer.project import Project

IMAGES = 600
PANEL = ("ann", "bob", "cat")


def _name(index: int) -> str:
    return f"ILSVRC2012_val_{index + 1:08d}.JPEG"


def _logits(original: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    logits = rng.normal(0.0, 1.0, (len(original), 1000)).astype(np.float32)
    rows = np.arange(len(original))
    logits[rows, original] += rng.normal(6.0 + seed, 1.0, len(original))
    logits[rows, (original + 1) % 1000] += rng.normal(4.5, 1.0, len(original))
    return logits


def _import_run(project: str, folder, original: np.ndarray, seed: int) -> None:
    path = folder / f"run{seed}.npz"
    np.savez(path, logits=_logits(original, seed), file_names=np.array([_name(i) for i in range(len(original))]))
    assert main(["import-logits", project, str(path), "--model", f"model_{seed}"]) == 0


@pytest.fixture(scope="session")
def base(tmp_path_factory, shared_data):
    """The project, made once (copied per test)."""
    folder = tmp_path_factory.mktemp("figure_cache")
    paths = json.loads((shared_data / "published/label-errors/imagenet_val_set_index_to_filepath.json").read_text())
    labels = np.load(shared_data / "published/label-errors/imagenet_val_set_original_labels.npy").astype(np.int64)
    original = np.full(50_000, -1, dtype=np.int64)
    for path, label in zip(paths, labels):
        original[int(path.rsplit("_", 1)[1].split(".")[0]) - 1] = label
    original = original[:IMAGES]
    (folder / "original.txt").write_text("".join(f"{_name(i)} {c}\n" for i, c in enumerate(original)))
    with open(shared_data / "published/tfds-multilabel-v3/imagenet2012_multilabel_validation.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    kept = [rows[0]] + [r for r in rows[1:] if int(r[0].split("_")[2].split(".")[0]) <= IMAGES]
    with open(folder / "multilabel.csv", "w", newline="") as fh:
        csv.writer(fh).writerows(kept)
    project = str(folder / "p")
    assert main(["init", project, "--labels", str(folder / "original.txt"), str(folder / "multilabel.csv")]) == 0
    for seed in (0, 1):
        _import_run(project, folder, original, seed)
    for name in PANEL:
        assert main(["panelist", project, name, *(["--chair"] if name == PANEL[0] else [])]) == 0
    with Project.open(project).read() as session:
        from reviewer.runs.mistakes import stored_mistakes

        mistakes = [m for m in stored_mistakes(session=session, run_id=1)][:24]
    for k, name in enumerate(PANEL):
        lines = ["image,predicted,verdict,problematic,severity,category,oov_name,note"]
        for i, m in enumerate(mistakes[:20]):
            verdict = ("wrong", "correct", "unclear")[(i + (k if i % 4 == 0 else 0)) % 3]
            extra = "minor,fine_grained" if verdict == "wrong" else ","
            lines.append(f"{m.file_name},{m.predicted},{verdict},,{extra},,")
        (folder / f"votes_{name}.csv").write_text("\n".join(lines) + "\n")
        assert main(["vote", project, "--panelist", name, "--batch", str(folder / f"votes_{name}.csv")]) == 0
    return {"root": folder / "p", "folder": folder, "original": original, "mistakes": mistakes[20:],
            "multilabel": kept, "data": shared_data}


@pytest.fixture
def project(base, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(base["root"], root, ignore=shutil.ignore_patterns("cache"))
    project = Project.open(root)
    yield project
    project.close()


def _cache(project: Project, code: str = "this code") -> FigureCache:
    """The project's cache, with a fixed fingerprint of the code: the engineers' edits of the
    tree while the tests run must not look like a new version of the code to them."""
    return FigureCache(project.root, code=code)


def _report(project: Project, *, cache: FigureCache | None, options: ReportOptions = ReportOptions()) -> dict:
    """What `reviewer report --json` prints, from a report kept (`cache`) or computed afresh."""
    with project.read() as session:
        report = build_report(project, options, session=session, cache=cache)
    return json.loads(json.dumps({**report.summary.as_dict(), "analysis": report_json(report)}, default=str))


def _kept_and_fresh(project: Project) -> tuple[dict, dict, FigureCache]:
    cache = _cache(project)
    return _report(project, cache=cache), _report(project, cache=None), cache


def _mla(report: dict, key: str = "mla") -> list:
    return [run["metrics"][key]["all"]["value"] for run in report["runs"]]


def test_a_repeated_report_is_served_from_the_cache_and_equals_one_computed_afresh(project):
    first = _cache(project)
    kept = _report(project, cache=first)
    assert "report-" in first.misses[0] and not first.hits
    again = _cache(project)
    assert _report(project, cache=again) == kept == _report(project, cache=None)
    assert [name.split("-")[0] for name in again.hits] == ["report"] and not again.misses


def _change_labels(project: Project, base: dict) -> None:
    """The multi-labels imported again, some images given the first run's mistaken class as a
    correct label (a corrected file): MLA before the review rises."""
    rows = [list(r) for r in base["multilabel"]]
    wrong = {m.file_name: m.predicted for m in base["mistakes"]}
    for row in rows[1:]:
        if row[0] in wrong:
            row[3] = ", ".join(filter(None, [row[3], str(wrong[row[0]])]))
    path = project.root.parent / "corrected.csv"
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    assert main(["import-labels", str(project.root), str(path)]) == 0


def _change_problematic(project: Project, base: dict) -> None:
    """Some images of the multi-label set marked problematic, by a file in the v3 JSON layout
    (their labels as the CSV has them): MLA skips them."""
    from reviewer.classes.vocabulary import load_classes

    wnids = load_classes().wnids
    marked = {m.file_name for m in base["mistakes"]}
    annots, problematic = {}, {}
    for row in base["multilabel"][1:]:
        if row[0] in marked:
            kinds = {"correct": row[3], "unclear": row[5], "wrong": row[6]}
            annots[row[0]] = {kind: [wnids[int(c)] for c in cells.split(",") if c.strip()]
                              for kind, cells in kinds.items()}
            problematic[row[0]] = {"reason": "test", "reviewer": "t", "server_username": "t",
                                   "time_marked": "", "time_reviewed": ""}
    path = project.root.parent / "marks.json"
    path.write_text(json.dumps({"initial_annots": annots, "problematic_images": problematic, "imagenet_m": []}))
    assert main(["import-labels", str(project.root), str(path)]) == 0


def _change_review(project: Project, base: dict) -> None:
    """A published review judges some predictions wrong: the labels before the review gain wrong labels."""
    review = {m.file_name: {"top_prediction": m.predicted, "failure category": "Fine-grained error",
                            "failure severity": "Minor"} for m in base["mistakes"]}
    path = project.root.parent / "review.json"
    path.write_text(json.dumps(review))
    assert main(["import-review", str(project.root), str(path), "--model", "model_0"]) == 0


def _change_vote(project: Project, base: dict) -> None:
    m = base["mistakes"][0]
    assert main(["vote", str(project.root), "--panelist", "ann", "--image", m.file_name, "--predicted",
                 str(m.predicted), "--verdict", "correct"]) == 0


def _change_decision(project: Project, base: dict) -> None:
    assert main(["decide", str(project.root), "--chair", "ann"]) == 0


def _change_rule(project: Project, base: dict) -> None:
    """Unanimous votes no longer decide by themselves (the setting `unanimous_final`)."""
    assert main(["panel-rules", str(project.root), "--chair", "ann", "--unanimous-final", "off"]) == 0


def _change_new_run(project: Project, base: dict) -> None:
    _import_run(str(project.root), project.root.parent, base["original"], 2)


def _change_ended_run(project: Project, base: dict) -> None:
    """A run that was still running when the report was kept (an interrupted one), ended since."""
    with write_session(project.engine) as session:
        session.execute(update(Run).where(Run.id == 2).values(status="complete"))


def _change_probabilities(project: Project, base: dict) -> None:
    """The run's probability file written again with other values (same size)."""
    with project.read() as session:
        path = project.root / session.get(Run, 1).probs_path
    probs = np.load(path)
    np.save(path, np.ascontiguousarray(probs[:, ::-1]))


CHANGES = {
    "label import": (_change_labels, lambda r: _mla(r)),
    "problematic marks": (_change_problematic, lambda r: (r["project"]["problematic"], _mla(r))),
    "published review": (_change_review, lambda r: r["imported_reviews"]),
    "vote": (_change_vote, lambda r: r["analysis"]["decision_status"]),
    "decision": (_change_decision, lambda r: _mla(r, "mla_after_review")),
    "panel rule (a setting)": (_change_rule, lambda r: _mla(r, "mla_after_review")),
    "new run": (_change_new_run, lambda r: [run["model"] for run in r["runs"]]),
    "run ended later": (_change_ended_run, lambda r: sorted(r["analysis"]["calibration"])),
    "probability file": (_change_probabilities, lambda r: r["analysis"]["calibration"]["1"]["ace"]),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_kept_report_follows_each_input_it_reads(project, base, change):
    act, figure = CHANGES[change]
    if change == "run ended later":
        with write_session(project.engine) as session:
            session.execute(update(Run).where(Run.id == 2).values(status="running"))
    before = _report(project, cache=_cache(project))
    act(project, base)
    kept, fresh, cache = _kept_and_fresh(project)
    assert kept == fresh  # never stale: what a report computed afresh says
    assert figure(kept) != figure(before)  # and the change did move the figure
    assert any(name.startswith("report-") for name in cache.misses)


def test_a_vote_keeps_the_runs_figures_and_recomputes_the_panels(project, base):
    _report(project, cache=_cache(project))
    _change_vote(project, base)
    cache = _cache(project)
    _report(project, cache=cache)
    # The runs' suggested error types read no vote either: kept (issue 37).
    assert {name.split("-")[0] for name in cache.hits} == {"predictions", "run", "suggested"}
    assert {name.split("-")[0] for name in cache.misses} == {"report", "panel"}


def test_a_label_import_recomputes_the_runs_figures_but_not_their_predictions(project, base):
    _report(project, cache=_cache(project))
    _change_labels(project, base)
    cache = _cache(project)
    _report(project, cache=cache)
    assert {name.split("-")[0] for name in cache.hits} == {"predictions"}
    assert {name.split("-")[0] for name in cache.misses} >= {"report", "run", "suggested"}


def test_any_new_setting_is_a_new_key(project):
    """Every setting is in every key: one another part of the app adds (the stored mistakes'
    revision, the panel's scope) is covered without a word in the cache's code."""
    _report(project, cache=_cache(project))
    project.set_setting("mistakes_revision", "7")
    cache = _cache(project)
    _report(project, cache=cache)
    assert {name.split("-")[0] for name in cache.misses} == {"report", "run", "panel", "suggested"}


def test_another_version_of_the_code_recomputes_everything(project):
    _report(project, cache=_cache(project, code="one version"))
    cache = _cache(project, code="another version")
    _report(project, cache=cache)
    assert not cache.hits
    assert FigureCache(project.root).code != "another version"  # the real fingerprint: the source files


def test_options_are_kept_apart(project):
    options = ReportOptions(keep_borderline=True, yates=True, provisional=True, collapsed_mappings=True)
    plain = _report(project, cache=_cache(project))
    other = _report(project, cache=_cache(project), options=options)
    assert other == _report(project, cache=None, options=options) and other != plain
    assert _report(project, cache=_cache(project)) == plain


def _kept_files(project: Project) -> list:
    return sorted((project.root / cache_module.FOLDER).rglob("*.pickle"))


@pytest.mark.parametrize("damage", ["cut short", "another secret", "unsigned pickle", "another name",
                                    "garbage"])
def test_a_damaged_or_foreign_cache_file_is_never_served(project, damage, monkeypatch, tmp_path):
    fresh = _report(project, cache=None)
    _report(project, cache=_cache(project))
    report = next(p for p in _kept_files(project) if p.name.startswith("report-"))
    data = report.read_bytes()
    if damage == "cut short":
        report.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        report.write_bytes(b"\x00" * 100)
    elif damage == "unsigned pickle":
        import pickle

        report.write_bytes(pickle.dumps(("x", "y", {"not": "a report"})))
    elif damage == "another name":  # a file signed by this user, kept under another name (copied over)
        run = next(p for p in _kept_files(project) if p.name.startswith("run-"))
        report.write_bytes(run.read_bytes())
    else:  # signed with another user's secret: put in a shared folder under this report's name and key
        import pickle

        name, key, _ = pickle.loads(data[len(cache_module.MAGIC) + 32:])
        monkeypatch.setenv("REVIEWER_DATA_DIR", str(tmp_path / "someone else"))
        other = _cache(project)
        other.folder = report.parent  # beside this user's files, under their name
        other.save(name, key, {"not": "a report"})
        monkeypatch.undo()
    cache = _cache(project)
    assert _report(project, cache=cache) == fresh
    assert any(name.startswith("report-") for name in cache.misses)


def test_a_read_only_project_folder_keeps_nothing_and_still_reports(project, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(cache_module, "atomic_write_bytes", refuse)
    assert _report(project, cache=_cache(project)) == _report(project, cache=None)
    assert not _kept_files(project)


def test_a_removed_runs_figures_are_forgotten(project):
    _report(project, cache=_cache(project))
    assert any(p.name.startswith("run-2-") for p in _kept_files(project))
    with write_session(project.engine) as session:
        session.execute(update(Run).where(Run.id == 2).values(status="failed"))
    _report(project, cache=_cache(project))
    assert not any(p.name.startswith(("run-2-", "predictions-2")) for p in _kept_files(project))


def test_every_table_of_the_schema_is_in_the_key_or_said_to_be_unread():
    tables = set(SQLModel.metadata.tables)
    assert tables - TABLES_READ - set(NOT_READ) == set()
    assert TABLES_READ <= tables


# -- the panel's status, kept as the report's figures are (reviewer.app.panel_status) ----------------
def _panel_vote(project: Project, base: dict) -> None:
    """ann votes on an item of phase 1 that only the second run made (nobody voted on it)."""
    from reviewer.app.panel_status import panel_status

    row = next(r for r in panel_status(project, items=True, keep=False).items if r.phase == 1 and r.runs == (2,))
    assert main(["vote", str(project.root), "--panelist", "ann", "--image", row.image, "--predicted",
                 str(row.predicted), "--verdict", "wrong"]) == 0


def _change_scope(project: Project, base: dict) -> None:
    assert main(["panel-scope", str(project.root), "--runs", "2", "--chair", "ann"]) == 0


PANEL_CHANGES = {**{name: CHANGES[name][0] for name in ("label import", "problematic marks", "published review",
                                                        "decision", "panel rule (a setting)", "new run")},
                 "vote": _panel_vote, "panel's scope": _change_scope}


@pytest.mark.parametrize("change", list(PANEL_CHANGES))
def test_a_kept_panel_status_follows_each_input_it_reads(project, base, change, monkeypatch):
    from reviewer.app import panel_status as status_module

    monkeypatch.setattr(cache_module, "code_fingerprint", lambda: "this code")
    before = status_module.panel_status(project, items=True)
    with monkeypatch.context() as patched:  # a repeated call is served from the kept file, not computed
        patched.setattr(status_module, "_compute", lambda *a, **k: pytest.fail("computed again, nothing changed"))
        assert status_module.panel_status(project, items=True) == before
    PANEL_CHANGES[change](project, base)
    kept = status_module.panel_status(project, items=True)
    assert kept == status_module.panel_status(project, items=True, keep=False)  # never stale
    assert kept != before  # and the change did move it
    assert status_module.panel_status(project) == status_module.panel_status(project, keep=False)


def test_votes_and_decisions_since_the_last_call_update_the_kept_counts_item_by_item(project, base, monkeypatch):
    """A vote, an amended vote, an undo, a decision and a reopening each move the kept summary
    through its book (`reviewer.panel.progress_book`), never by a recount, and it always
    equals a status counted afresh; a label import is a new key and a recount."""
    from reviewer.app import panel_status as status_module

    monkeypatch.setattr(cache_module, "code_fingerprint", lambda: "this code")
    root = str(project.root)
    status_module.panel_status(project)
    rows = [r for r in status_module.panel_status(project, items=True, keep=False).items if r.phase == 1]
    voted = rows[0]  # voted on by all three (the first run's first mistakes)
    fresh_item = next(r for r in rows if r.runs == (2,))
    acts = [["vote", root, "--panelist", "bob", "--image", fresh_item.image, "--predicted", str(fresh_item.predicted),
             "--verdict", "wrong"],
            ["vote", root, "--panelist", "bob", "--image", fresh_item.image, "--predicted", str(fresh_item.predicted),
             "--verdict", "unclear"],
            ["vote", root, "--panelist", "cat", "--image", voted.image, "--predicted", str(voted.predicted),
             "--verdict", "wrong", "--severity", "major", "--category", "fine_grained"],
            ["vote", root, "--panelist", "cat", "--undo"],
            ["decide", root, "--chair", "ann"],
            ["reopen", root, "--panelist", "ann", "--image", voted.image, "--predicted", str(voted.predicted),
             "--reason", "a second look"]]
    recounts = []
    real_compute = status_module._compute

    def afresh():
        with project.read() as session:
            return real_compute(session, items=False)[0]

    monkeypatch.setattr(status_module, "_compute", lambda *a, **k: recounts.append(1) or real_compute(*a, **k))
    for argv in acts:
        before = status_module.panel_status(project)
        assert main(argv) == 0, argv
        kept = status_module.panel_status(project)
        assert kept == afresh(), argv
        if argv is acts[0] or argv[0] in ("decide", "reopen"):  # a new voter on an item, decisions: the counts move
            assert kept != before, argv
    assert not recounts  # each brought up to date through the book
    _change_labels(project, base)
    assert status_module.panel_status(project) == afresh()
    assert recounts  # a new key: counted afresh
