from __future__ import annotations

from pathlib import Path

import platformdirs

from companion_desktop.storage.paths import DB_FILENAME, resolve_data_dir


def test_cli_value_wins_over_environment(tmp_path: Path) -> None:
    env = {"COMPANION_DATA_DIR": str(tmp_path / "env")}
    assert resolve_data_dir(str(tmp_path / "cli"), env) == tmp_path / "cli"


def test_environment_wins_over_platform_default(tmp_path: Path) -> None:
    assert resolve_data_dir(None, {"COMPANION_DATA_DIR": str(tmp_path)}) == tmp_path


def test_platform_default_when_nothing_given() -> None:
    expected = Path(platformdirs.user_data_dir("companion-desktop", appauthor=False))
    assert resolve_data_dir(None, {}) == expected
    assert resolve_data_dir("", {"COMPANION_DATA_DIR": ""}) == expected


def test_home_is_expanded_and_nothing_is_created(tmp_path: Path) -> None:
    resolved = resolve_data_dir("~/companion-test-data", {})
    assert resolved == Path.home() / "companion-test-data"
    target = tmp_path / "not-created"
    assert resolve_data_dir(str(target), {}) == target
    assert not target.exists()


def test_db_filename() -> None:
    assert DB_FILENAME == "companion.sqlite3"
