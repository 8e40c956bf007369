"""What the tests of her own mind share: the skips for a runtime or model that is not
installed, model packages written on disk, the mind processes running, and the
runtime's log."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion_desktop.llm.mind.host import SERVE_MODULE
from companion_desktop.llm.mind.models import DEFAULT, SMALL, MindModel, installed, runtime_problem

#: The threads the tests run a model with. One: llama.cpp's threads wait on each other,
#: and on a busy two-core machine two of them run a small model ten times slower.
THREADS = 1


def need_runtime() -> None:
    problem = runtime_problem()
    if problem:
        pytest.skip(f"her mind's runtime is not installed ({problem})")


def need_small() -> None:
    need_runtime()
    if not installed(SMALL):
        pytest.skip("her mind's small test model is not installed: pip install "
                    + " ".join(SMALL.dists))


def need_default() -> None:
    need_runtime()
    if not installed(DEFAULT):
        pytest.skip("her mind's default model is not installed (its 22 packages come with "
                    "the run command's install)")


def write_package(root: Path, module: str, files: dict[str, bytes]) -> None:
    """A package ``module`` under ``root`` holding ``files``; importing it fails, as a
    model package's may (its code needs what is not installed)."""
    folder = root / module
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(
        'raise RuntimeError("a model package is never imported")\n', "utf-8")
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def single_piece_model(root: Path, module: str, data: bytes, context: int = 512) -> MindModel:
    """A one-file model in the package ``module`` (written under ``root``)."""
    write_package(root, module, {"model.gguf": data})
    return MindModel(id=module, name=f"Test model {module}", file_name="model.gguf",
                     size=len(data), sha256=hashlib.sha256(data).hexdigest(),
                     pieces=((module, "model.gguf"),), dists=(f"{module}==1.0",),
                     licence="test", context=context)


def mind_processes(parent: int | None = None) -> list[int]:
    """The ids of the children of ``parent`` (this process by default) that run her mind
    (read from /proc)."""
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        pytest.skip("the mind's processes are read from /proc (Linux-only)")
    me, found = parent or os.getpid(), []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == me and fields[0] != "Z" and SERVE_MODULE.encode() in argv:
            found.append(int(entry.name))
    return found


@dataclass(frozen=True)
class Request:
    """One request the runtime answered: the tokens of its prompt, how many of them it
    read (the rest came from its cache) and how many it wrote (1: her reply read back)."""

    prompt: int
    read: int
    wrote: int


_READ = re.compile(r"task (\d+) \| prompt eval time =\s*[\d.]+ ms /\s*(\d+) tokens")
_WROTE = re.compile(r"task (\d+) \|\s+eval time =\s*[\d.]+ ms /\s*(\d+) tokens")
_HELD = re.compile(r"task (\d+) \| stop processing: n_tokens = (\d+)")


def requests(log: str) -> list[Request]:
    """The requests answered in ``log`` (the runtime's log), in order; a stopped one is
    not among them. Its slot held the prompt and all but the last token it wrote."""
    read, wrote, held = ({int(t): int(n) for t, n in pattern.findall(log)}
                         for pattern in (_READ, _WROTE, _HELD))
    return [Request(held[task] - wrote[task] + 1, read[task], wrote[task])
            for task in sorted(read) if task in wrote and task in held]
