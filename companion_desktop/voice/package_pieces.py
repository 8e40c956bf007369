"""Model files that packages ship in pieces: found without importing, joined once, checked.

PyPI caps a package's size, so a model comes split across several packages (the Whisper
model in two, her mind's model in 22, her neural voice in four). :func:`package_file`
finds a file inside an installed package with ``importlib.util.find_spec`` (a model
package's own code may need what is not installed, so it is never imported).
:func:`join_pieces` writes the pieces one after another into a temporary file beside the
target, hashing as it goes, and renames it into place only when the size and SHA-256
match; :func:`write_record` writes the small JSON record that later starts trust (the
cheap check). Every file written is the user's alone (0600).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from importlib import util
from pathlib import Path

#: Bytes read and written at a time while joining.
CHUNK = 4 * 1024 * 1024


def package_file(module: str, name: str) -> Path | None:
    """The file ``name`` (a path relative to the package's folder) inside the installed
    package ``module``, found without importing it; None when either is missing."""
    try:
        spec = util.find_spec(module)
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(folder) / name
        if path.is_file():
            return path
    return None


def join_pieces(pieces: Sequence[Path], target: Path, size: int, sha256: str,
                moved: Callable[[int], None], chunk: int = CHUNK) -> bool:
    """Join ``pieces`` into ``target`` (its folder must exist); ``moved(bytes so far)``
    after each block (it may raise to stop: nothing is left behind). True when the
    joined bytes are ``size`` long with the SHA-256 ``sha256`` (hex) and ``target`` is in
    place; False, with nothing written, when they do not match. OSError as raised."""
    digest, done = hashlib.sha256(), 0
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    temp = Path(name)
    try:
        with os.fdopen(handle, "wb") as out:
            for piece in pieces:
                with piece.open("rb") as source:
                    while block := source.read(chunk):
                        out.write(block)
                        digest.update(block)
                        done += len(block)
                        moved(done)
            out.flush()
            os.fsync(out.fileno())
        if done != size or digest.hexdigest() != sha256.lower():
            return False
        os.replace(temp, target)
        return True
    finally:
        temp.unlink(missing_ok=True)


def write_record(path: Path, record: dict[str, object]) -> None:
    """``record`` as JSON at ``path``, through a temporary file (0600)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.part")
    with os.fdopen(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w",
                   encoding="utf-8") as out:
        out.write(json.dumps(record, indent=2))
    os.replace(temp, path)
