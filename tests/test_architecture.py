"""The layer rules of DESIGN.md, as import-linter contracts, hold (and can fail); no two
modules import each other when they load."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    assert LINT.exists(), ("import-linter is not installed (it is in the dev extra of "
                           "pyproject.toml)")
    return subprocess.run(
        [str(LINT), "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"},
    )


def test_contracts_are_kept():
    proc = lint(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


@pytest.mark.parametrize(
    "module,line",
    [
        ("engine/stages.py", "import numpy"),
        ("engine/stages.py", "from companion_desktop.storage import models"),
        ("storage/paths.py", "from PySide6 import QtWidgets"),
        ("storage/paths.py", "from companion_desktop.pipeline import companion"),
        ("voice/audio.py", "from PySide6 import QtMultimedia"),
        ("voice/listener.py", "from companion_desktop.llm import wav"),
        ("pipeline/runner.py", "from companion_desktop.cli import common"),
        ("ui/chat/transcript.py", "from companion_desktop import app"),
        ("cli/chat.py", "from companion_desktop.cli import state"),
        ("cli/backup.py", "from companion_desktop.cli import main"),
        ("cli/bench/stats.py", "from companion_desktop.cli.bench import turns"),
        ("pipeline/runner.py", "from companion_desktop import app"),
        ("ui/overlay/window.py", "from companion_desktop.ui.chat import window"),
        ("ui/settings/voice/page.py", "from companion_desktop.ui.voice.mic import microphones"),
        ("ui/avatar/host.py", "from companion_desktop.ui.chat import ChatWindow"),
        ("ui/voice/mic.py", "from companion_desktop.ui.photos import Source"),
        ("ui/style.py", "from companion_desktop.ui.avatar import host"),
    ],
)
def test_a_violation_breaks_a_contract(tmp_path, module, line):
    shutil.copytree(ROOT / "companion_desktop", tmp_path / "companion_desktop",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "companion_desktop" / module
    target.write_text(f"{line}\n{target.read_text()}")
    proc = lint(tmp_path)
    assert proc.returncode != 0 and "BROKEN" in proc.stdout



# --- no import circles --------------------------------------------------------------------
# A module-level import (not one inside a function, not one under TYPE_CHECKING) runs when
# its module loads; two modules that reach each other that way load in an order that works
# by luck. Every such circle, in any package, fails here.


def _module_names(package: Path) -> dict[str, Path]:
    names = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _imported(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The names an import statement may load (a module, or a module and its members)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    if node.level:
        here = here[: len(here) - node.level + 1]
        base = ".".join(here + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def _load_time_imports(body: list[ast.stmt],
                       typing: bool = False) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run when a module loads (TYPE_CHECKING blocks left out,
    unless ``typing``: a type checker reads those too)."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If) and (typing or "TYPE_CHECKING" not in ast.unparse(node.test)):
            found += _load_time_imports(node.body, typing) + _load_time_imports(node.orelse, typing)
        elif isinstance(node, ast.Try):
            found += _load_time_imports(node.body + node.orelse + node.finalbody, typing)
            for handler in node.handlers:
                found += _load_time_imports(handler.body, typing)
    return found


def import_circles(package: Path, typing: bool = False) -> list[list[str]]:
    """Groups of modules of ``package`` that import each other at load time (each group a
    strongly connected part of the import graph with more than one module); with
    ``typing``, imports for the type checker count too."""
    names = _module_names(package)
    graph: dict[str, set[str]] = {}
    for module, path in names.items():
        targets = set()
        for node in _load_time_imports(ast.parse(path.read_text(encoding="utf-8")).body, typing):
            for target in _imported(module, path, node):
                # importing a.b.c loads the packages a and a.b first (but not the importer's own)
                parts = target.split(".")
                loaded = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
                targets |= {t for t in loaded if t in names and not module.startswith(f"{t}.")}
        targets.discard(module)
        graph[module] = targets
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for target in graph[module]:
            if target not in order:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], order[target])
        if low[module] == order[module]:
            group = []
            while (top := stack.pop()) != module:
                group.append(top)
            group.append(module)
            if len(group) > 1:
                circles.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return circles


def test_no_module_imports_itself_back():
    assert import_circles(ROOT / "companion_desktop") == []


def test_no_circle_even_for_the_type_checker():
    """Collaborators get what they need passed in, or a small protocol: no module imports
    back, not even under TYPE_CHECKING."""
    assert import_circles(ROOT / "companion_desktop", typing=True) == []


def test_a_planted_circle_is_found(tmp_path):
    package = tmp_path / "companion_desktop"
    shutil.copytree(ROOT / "companion_desktop", package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    target = package / "storage" / "paths.py"
    target.write_text(f"from companion_desktop.storage import db\n{target.read_text()}")
    assert (["companion_desktop.storage.db", "companion_desktop.storage.paths"]
            in import_circles(package))
