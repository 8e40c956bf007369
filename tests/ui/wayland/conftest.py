"""The compositor fixture: one weston for the module's tests, stopped at the end;
skipped with the reason where weston, XWayland or the screenshooter is missing."""

from __future__ import annotations

import sys

import pytest

from tests.ui.wayland.weston import Weston, missing_tools


@pytest.fixture(scope="module")
def weston(tmp_path_factory):
    if not sys.platform.startswith("linux"):
        pytest.skip("weston runs on Linux")
    missing = missing_tools()
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (scripts/bootstrap.sh installs "
                    "weston and xwayland as root)")
    compositor = Weston(tmp_path_factory.mktemp("weston"))
    try:
        compositor.wait_desktop()
        yield compositor
    finally:
        compositor.stop()
