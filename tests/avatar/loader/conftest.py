"""Loader test fixtures: the shared assets folder (skipped when absent) and a temp writer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import SHARED_ASSETS


@pytest.fixture
def assets() -> Path:
    if not SHARED_ASSETS.is_dir():
        pytest.skip(f"the shared assets are not at {SHARED_ASSETS}")
    return SHARED_ASSETS


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, bytes], Path]:
    """``write(name, data)`` -> a file in a fresh folder."""

    def _write(name: str, data: bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    return _write
