"""Animation test fixtures: the shared assets (skipped when absent) and loaded models."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SHARED_ASSETS

VRMA_DIR = SHARED_ASSETS / "vrma"
GLTF_DIR = SHARED_ASSETS / "gltf"
GODETTE = SHARED_ASSETS / "vrm0" / "Godette_vrm_v4.vrm"
HANA = Path(__file__).resolve().parents[3] / "resources" / "avatar" / "hana.vrm"


def shared(path: Path) -> Path:
    """A shared asset's path, or a skip naming it."""
    if not path.is_file():
        pytest.skip(f"shared asset missing: {path}")
    return path


@pytest.fixture
def vrma_dir() -> Path:
    if not VRMA_DIR.is_dir():
        pytest.skip(f"the shared VRMA clips are not at {VRMA_DIR}")
    return VRMA_DIR
