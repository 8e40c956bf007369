"""Fixtures for the avatar runtime tests: Godette from the shared assets when present."""

from __future__ import annotations

import pytest

from companion_desktop.avatar.vrm.loader import load_model
from tests.avatar.runtime.runtime_models import ASSETS, GODETTE


def load_shared(path):
    """A shared asset through the real loader, or a skip."""
    if not path.exists():
        pytest.skip(f"shared asset missing: {path}")
    return load_model(path)


@pytest.fixture
def godette():
    return load_shared(GODETTE)


@pytest.fixture
def is_binary_sample():
    """VRMC_vrm_expressions_isBinary_Overrides.vrm: texture transform binds only."""
    return load_shared(ASSETS / "vrm1" / "VRMC_vrm_expressions_isBinary_Overrides.vrm")
