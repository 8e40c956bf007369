"""A joined model that is damaged on disk (same size, other bytes) is found out when her
mind cannot load it: the message says it will be rebuilt, the file is deleted, and the
next call joins it again from its packages. The runtime is the real one."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import replace

import pytest

from companion_desktop.llm.mind import models
from companion_desktop.llm.mind.host import MindError, MindHost
from companion_desktop.llm.mind.models import MIND_FOLDER, SMALL, MindModel, is_ready

pytestmark = pytest.mark.skipif(models.runtime_problem() is not None or not
                                models.installed(SMALL),
                                reason="her mind's runtime or small test model is not installed")


@pytest.fixture
def split_model(tmp_path, monkeypatch) -> MindModel:
    """The small test model cut into two packages on sys.path, as the default one ships."""
    source = models.model_file(SMALL, tmp_path)
    data = source.read_bytes()
    half = len(data) // 2
    pieces = []
    for index, chunk in enumerate((data[:half], data[half:]), 1):
        package = tmp_path / "site" / f"mind_test_part{index}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / "piece.bin").write_bytes(chunk)
        pieces.append((f"mind_test_part{index}", "data/piece.bin"))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    for name in list(sys.modules):
        if name.startswith("mind_test_part"):
            del sys.modules[name]
    return replace(SMALL, id="split-test", file_name="split-test.gguf", size=len(data),
                   sha256=hashlib.sha256(data).hexdigest(), pieces=tuple(pieces),
                   dists=("mind-test-part1==0", "mind-test-part2==0"))


def test_a_damaged_joined_model_is_rebuilt_on_the_next_call(tmp_path, split_model):
    cache = tmp_path / "cache"
    host = MindHost()
    host.configure(cache)
    try:
        with host.use(split_model) as running:  # joined, then loaded
            assert running.url.startswith("http://127.0.0.1:")
        host.stop()
        joined = cache / MIND_FOLDER / split_model.file_name
        with joined.open("r+b") as file:  # same size, so the cheap check still passes
            file.write(b"\0" * 4096)
        assert is_ready(split_model, cache)
        with pytest.raises(MindError, match="damaged; it will be rebuilt"):
            host.ensure(split_model)
        assert not joined.exists() and host.running is None
        progress: list[float] = []
        with host.use(split_model, lambda fraction, text: progress.append(fraction)):
            assert host.running is not None
        assert 1.0 in progress and progress[0] < 0.5  # joined again, with progress
        assert models.verify_fully(split_model, cache)
    finally:
        host.stop()
