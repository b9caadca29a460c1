"""The tests need nothing outside the clone: their data is tests/data (and the demo's images),
every file there is accounted for in tests/data/README.md, and the folder stays small."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"


def test_no_test_reads_the_shared_folder_beside_the_clone():
    pattern = re.compile(r"REVIEWER_SHARED_DATA|\.\./shared|parent / \"shared\"")
    offenders = [f"{path.relative_to(TESTS)}:{n}" for path in sorted(TESTS.rglob("*.py")) if path != Path(__file__)
                 for n, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert offenders == []


def test_every_data_file_is_in_the_readme_and_the_folder_stays_small():
    readme = (DATA / "README.md").read_text()
    files = [p for p in DATA.rglob("*") if p.is_file() and p.name != "README.md" and p.parent.name != "LICENSES"]
    unlisted = sorted(str(p.relative_to(DATA)) for p in files
                      if p.name not in readme and p.parent.name != "imagenet-samples")
    assert unlisted == []
    samples = len(list((DATA / "imagenet-samples").glob("*.JPEG")))
    assert f"imagenet-samples/*.JPEG` ({samples} files)" in readme
    assert sum(p.stat().st_size for p in files) < 20_000_000  # the ceiling is 40 MB
