"""The `reviewer` command on real files: what a user types and reads."""

from __future__ import annotations

import json
import subprocess
import sys

from reviewer.cli import main


def test_init_import_review_and_report_json(tmp_path, shared_data, capsys):
    project = tmp_path / "proj"
    assert main(["init", str(project), "--labels", str(shared_data / "formats" / "imagenet-annotatedval20k.json"),
                 str(shared_data / "formats" / "tfds_v3_sample.json")]) == 0
    out = capsys.readouterr().out
    assert "20000 images added" in out and "project" in out
    assert main(["import-review", str(project), str(shared_data / "imagenet-mistakes" / "vit3b_mistakes.json"),
                 "--model", "vit3b"]) == 0
    assert "378 reviewed mistakes" in capsys.readouterr().out
    assert main(["report", str(project), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["project"]["images"] == 20_000
    assert report["project"]["problematic"] == 10
    review = report["imported_reviews"][0]
    assert review["model"] == "vit3b" and review["items"] == 378
    assert review["severities"]["major"] == {"count": 154, "share": 154 / 378}
    assert main(["report", str(project)]) == 0
    assert "Imported review of vit3b: 378 reviewed mistakes" in capsys.readouterr().out


def test_bad_input_exits_2_with_a_message(tmp_path, capsys):
    bad = tmp_path / "labels.json"
    bad.write_text('{"initial_annots": {"ILSVRC2012_val_00000001.JPEG": {"correct": ["n0"]}}}')
    assert main(["init", str(tmp_path / "p"), "--labels", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "labels.json, record initial_annots/ILSVRC2012_val_00000001.JPEG/correct" in err
    assert "Traceback" not in err
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "is not a review project" in capsys.readouterr().err


def test_python_dash_m_and_console_script(tmp_path):
    result = subprocess.run([sys.executable, "-m", "reviewer", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "init" in result.stdout and "report" in result.stdout


def test_every_command_has_readable_help(capsys):
    from reviewer.cli import build_parser

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # argparse keeps them here
    top = parser.format_help()
    assert top.index("init") < top.index("import-labels") < top.index("report") < top.index("export")
    assert "'reviewer COMMAND --help'" in top
    for name in commands:
        try:
            main([name, "--help"])
        except SystemExit as exc:
            assert exc.code == 0, name
        assert f"usage: reviewer {name}" in capsys.readouterr().out
    for name in ("init", "import-images", "import-labels", "import-review"):
        helps = [a.help for a in commands[name]._actions]
        assert all(helps), f"reviewer {name}: an argument without help"


def test_who_acts_is_given_with_panelist_and_the_older_reviewer_still_works():
    """Every command that acts for a person takes --panelist NAME; --reviewer NAME, its name
    before the panel's people were called panelists, means the same."""
    from reviewer.cli import build_parser

    parser = build_parser()
    for argv in (["gui", "P"], ["vote", "P", "--batch", "f"], ["show", "P", "--image", "a.JPEG", "--predicted", "1"], ["zoom", "P", "--run", "1"]):
        for flag in ("--panelist", "--reviewer"):
            assert parser.parse_args([*argv, flag, "ann"]).panelist == "ann", (argv, flag)


def test_console_script_on_a_broken_file_exits_2_without_traceback(tmp_path, shared_data):
    import shutil
    from pathlib import Path

    script = Path(sys.executable).with_name("reviewer")
    found = str(script) if script.exists() else shutil.which("reviewer")
    assert found, "the 'reviewer' console script is not installed (pip install -e .)"
    command = [found]
    project = tmp_path / "p"
    ok = subprocess.run([*command, "init", str(project), "--labels",
                         str(shared_data / "formats" / "tfds_v3_sample.json")], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    bad = tmp_path / "labels.txt"
    bad.write_text("ILSVRC2012_val_00000001.JPEG n01751748\nILSVRC2012_val_00000002.JPEG n99999999\n")
    result = subprocess.run([*command, "import-labels", str(project), str(bad)], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {bad}, record line 2: 'n99999999' is not one of the 1000")
    assert "Nothing was imported" in result.stderr and "Traceback" not in result.stderr


FLOOD = """
import argparse, sys
import reviewer.cli as cli
build = cli.build_parser
def with_flood():
    parser = build()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    commands.add_parser("flood").set_defaults(func=lambda args: [print("x" * 100) for _ in range(100_000)])
    return parser
cli.build_parser = with_flood
sys.exit(cli.main(["flood"]))
"""


def test_output_piped_into_a_reader_that_stops_early_is_no_traceback():
    """`reviewer split ... | head`: the reader closes the pipe after a few lines."""
    with subprocess.Popen([sys.executable, "-c", FLOOD], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        proc.stdout.readline()
        proc.stdout.close()
        stderr = proc.stderr.read().decode()
        code = proc.wait(timeout=60)
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
    assert code == 1


def test_ctrl_c_while_the_commands_load_is_one_line_not_a_traceback(monkeypatch, capsys):
    import reviewer.cli as cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["report", "nowhere"]) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_report_out_without_a_format_is_refused_not_ignored(tmp_path, shared_data, capsys):
    from reviewer.cli import main

    assert main(["init", str(tmp_path / "p"), "--labels", str(shared_data / "formats" / "tfds_v3_sample.json")]) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "p"), "--out", str(tmp_path / "r")]) == 2
    assert "add --format markdown or --format html" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
