"""Light commands (issue 34): `import-logits` reads a file of numbers without torch or timm,
and one `vote`, `show` or `panel-status` loads no model, plotting or data-frame library.
Behaviour, not timing: each command runs as the `reviewer` process does, in a fresh
interpreter, on a real project, and reports the modules it loaded (bench/bench_scale.py
and bench/bench_predict_fixed_costs.py --import-logits give the seconds and memory)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest
from sqlalchemy import select

from db.tables import Image, Mistake
from reviewer.cli import main
from reviewer.project import Project

MODEL_CODE = ("torch", "timm", "torchvision")
HEAVY = (*MODEL_CODE, "matplotlib", "scipy", "pandas", "sklearn", "PySide6")

# `reviewer ARGV` run as the command runs (reviewer.cli.main in a fresh interpreter); prints
# its exit status and which of the watched top-level packages it loaded.
PROBE = """
import json, sys
from reviewer.cli import main
code = main({argv!r})
print(json.dumps([code, sorted({{m.split(".")[0] for m in sys.modules}} & {watched!r})]))
"""


def loaded_by(argv: list[str]) -> tuple[int, list[str], str]:
    """(exit status, watched packages loaded, what it printed) of `reviewer ARGV`."""
    code = PROBE.format(argv=[str(a) for a in argv], watched=set(HEAVY))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    *printed, last = result.stdout.strip().splitlines()
    status, modules = json.loads(last)
    return status, modules, "\n".join(printed)


def first_mistake(root) -> tuple[str, int]:
    """(image file name, predicted class) of the project's first stored mistake."""
    project = Project.open(root)
    try:
        with project.read() as session:
            return tuple(session.execute(
                select(Image.file_name, Mistake.predicted).join(Image, Image.id == Mistake.image_id)
                .order_by(Mistake.id)).first())
    finally:
        project.close()


@pytest.fixture(scope="module")
def project_with_a_run(tmp_path_factory, shared_data):
    """A project from the TFDS v3 sample (11 images) and a run of made-up logits, imported
    in this process: the images' names in an .npz, the first one's label never on top."""
    root = tmp_path_factory.mktemp("light") / "project"
    sample = shared_data / "formats" / "tfds_v3_sample.json"
    assert main(["init", str(root), "--labels", str(sample)]) == 0
    names = sorted(name for name in json.loads(sample.read_text())["initial_annots"]
                   if name.startswith("ILSVRC2012_val_"))
    logits = np.random.default_rng(0).normal(size=(len(names), 1000)).astype(np.float32)
    np.savez(root.parent / "scores.npz", logits=logits, file_names=np.array(names))
    return root, root.parent / "scores.npz", names


def test_import_logits_loads_neither_torch_nor_timm(project_with_a_run, tmp_path):
    root, scores, names = project_with_a_run
    status, modules, printed = loaded_by(["import-logits", root, scores, "--model", "fresh"])
    assert status == 0, printed
    assert f"{len(names)} of {len(names)} images predicted" in printed
    assert [m for m in modules if m in MODEL_CODE] == [], modules
    assert [m for m in modules if m in HEAVY] == [], modules


def test_a_vote_a_show_and_panel_status_load_no_heavy_library(project_with_a_run):
    root, scores, _ = project_with_a_run
    assert main(["import-logits", str(root), str(scores), "--model", "light"]) == 0
    assert main(["panelist", str(root), "ana", "--chair"]) == 0
    image, predicted = first_mistake(root)
    for argv in (["vote", root, "--panelist", "ana", "--image", image, "--predicted", str(predicted),
                  "--verdict", "correct"],
                 ["show", root, "--image", image, "--predicted", str(predicted)],
                 ["panel-status", root]):
        status, modules, printed = loaded_by(argv)
        assert status == 0, printed
        assert [m for m in modules if m in HEAVY] == [], f"{argv[0]} loaded {modules}"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_import_logits_shows_its_steps_on_a_terminal_and_nothing_when_piped(project_with_a_run, monkeypatch,
                                                                            capsys):
    """A 50,000-image file takes seconds: on a terminal each step is drawn as it starts (and the bar
    redrawn while it runs); piped, stderr stays empty and stdout says what it always said."""
    from reviewer.runs.logits import STEPS

    root, scores, names = project_with_a_run
    heard = []
    project = Project.open(root)
    try:
        from reviewer.app.runs import import_scores

        import_scores(project, scores, model="steps", progress=lambda *step: heard.append(step))
    finally:
        project.close()
    assert heard == [(what, done, len(STEPS)) for done, what in enumerate((*STEPS, "done"))]

    assert main(["import-logits", str(root), str(scores), "--model", "piped"]) == 0
    piped = capsys.readouterr()
    assert piped.err == "" and f"{len(names)} of {len(names)} images predicted" in piped.out

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["import-logits", str(root), str(scores), "--model", "on-a-terminal"]) == 0
    drawn = terminal.getvalue()
    assert "import-logits" in drawn and all(step in drawn for step in ("loading", *STEPS)), drawn
    assert f"{len(names)} of {len(names)} images predicted" in capsys.readouterr().out


def test_the_commands_that_take_seconds_at_scale_draw_a_bar_on_a_terminal_only(project_with_a_run, tmp_path,
                                                                               monkeypatch, capsys, shared_data):
    """init, export, leaderboard and a batch of votes take 4-10 s at 50,000 images x 20 runs and
    said nothing until the end (issue 34): on a terminal each draws its bar while it works and
    clears it before printing; piped, their stderr has only what it always had."""
    root, scores, _ = project_with_a_run
    assert main(["import-logits", str(root), str(scores), "--model", "bars"]) == 0
    assert main(["panelist", str(root), "bea", "--chair"]) == 0
    image, predicted = first_mistake(root)
    batch = tmp_path / "votes.csv"
    batch.write_text(f"image,predicted,verdict\n{image},{predicted},correct\n")
    commands = {"init": ["init", str(tmp_path / "new"), "--labels",
                         str(shared_data / "formats" / "tfds_v3_sample.json")],
                "leaderboard": ["leaderboard", str(root)],
                "export": ["export", str(root), str(tmp_path / "out")],
                "vote": ["vote", str(root), "--panelist", "bea", "--batch", str(batch)]}
    capsys.readouterr()
    for name, argv in commands.items():
        terminal = _Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        assert main(argv) == 0, name
        printed = capsys.readouterr().out
        assert printed.strip() and name in terminal.getvalue(), (name, terminal.getvalue())
        monkeypatch.undo()
    assert "recording 1 vote of bea in one transaction" in terminal.getvalue()  # said above the bar
    piped = main(["leaderboard", str(root)])
    assert piped == 0 and capsys.readouterr().err == ""
