"""A value PostgreSQL cannot store as given (text past its column, a NUL character) that
slipped past the app's own checks is a clear error with nothing written, not a
traceback (issue 29, finding 7: the safety net under check_text and check_note)."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from reviewer.project import Project, ProjectError

pytestmark = pytest.mark.postgres


@pytest.mark.parametrize("value, message", [("k" * 100, "a value is longer than the database holds"),
                                            ("nul\x00here", "a text holds a NUL character")])
def test_a_value_postgresql_refuses_is_a_clear_error(postgres_url, tmp_path, value, message):
    project = Project.create(tmp_path / "p", db_url=postgres_url)
    try:
        with pytest.raises(ProjectError, match=message) as caught:
            project.write(lambda session: session.execute(
                text("INSERT INTO project_setting (key, value) VALUES (:key, 'x')"), {"key": value}))
        assert "nothing was written" in str(caught.value)
        assert project.setting(value.replace("\x00", "")) is None
    finally:
        project.close()
