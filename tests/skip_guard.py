"""A skip is allowed only for a reason on the list below: a missing display, shared asset,
tool, platform or optional package. Any other skip (a guard left from before a module
existed, a renamed import) fails the run, so a rename cannot hide tests."""

from __future__ import annotations

import re

import pytest

#: Reasons a test may skip, as patterns (case-insensitive) over the skip message.
EXPECTED_SKIPS = (
    # the shared assets (../shared/assets) are not on every machine
    r"shared asset|shared (vrm|vrma) |shared models|/shared/assets/|INVENTORY\.md",
    # no display or no OpenGL here
    r"needs an X display|OpenGL|\bEGL\b|eglMakeCurrent",
    # the platform or the user
    r"Linux-only|xcb display|POSIX|on Windows|read from /proc|root reads every file",
    r"running as root without capsh|capsh could not drop capabilities",
    # external programs that CI installs and a workstation may lack
    r"(espeak-ng|desktop-file-validate|appstreamcli) is not installed|offline voice is espeak-ng",
    r"xdotool|xwininfo and xprop|needs bash",
    # optional packages and models
    r"Voice input needs the voice packages|sentence-transformers is not installed",
    r"all-MiniLM-L6-v2 is not installed|no local embedding model|embedding model not available",
    r"cannot write HEIC here",
    # her neural voice: Kokoro's packages, the optional Japanese reader, the tool that
    # builds tiny Piper voices
    r"The neural voice \(Kokoro\) is not installed|the Japanese reader is not installed",
    r"onnx \(the test tool that builds Piper voices\) is not installed",
    # her own mind: the runtime and the small test model come with the test command's
    # install, the default model (22 packages) only with the run command's
    r"her mind's (runtime|small test model|default model)( or small test model)? is not "
    r"installed",
)
_EXPECTED = re.compile("|".join(f"(?:{p})" for p in EXPECTED_SKIPS), re.I)
__all__ = ["pytest_collectreport", "pytest_runtest_logreport", "pytest_sessionfinish",
           "pytest_terminal_summary"]
_unexpected: list[tuple[str, str]] = []


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The message of a skipped report ("Skipped: " left off)."""
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return text.removeprefix("Skipped: ")


def expected(reason: str) -> bool:
    return bool(_EXPECTED.search(reason))


def note(report: pytest.TestReport | pytest.CollectReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = skip_reason(report)
        if not expected(reason):
            _unexpected.append((report.nodeid, reason))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    note(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    note(report)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _unexpected and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if not _unexpected:
        return
    terminalreporter.section("unexpected skips (the run fails)", red=True)
    for nodeid, reason in _unexpected:
        terminalreporter.line(f"{nodeid}: {reason}")
    terminalreporter.line("A skip is allowed only for a reason in tests/skip_guard.py "
                          "EXPECTED_SKIPS.")
