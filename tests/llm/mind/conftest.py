"""Fixtures for her own mind's tests: the app's mind host running the small test model,
shared by the tests (one model process at a time), and the cache the default model is
joined into once per run."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion_desktop.llm.mind.host import HOST, MindHost
from tests.llm.mind.mind_parts import THREADS, need_small


@pytest.fixture(scope="session")
def mind_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mind-cache")


@pytest.fixture(scope="session")
def mind(mind_cache: Path) -> Iterator[MindHost]:
    """The app's one host (the pipeline and the chat command use it), started by the
    first test that needs the mind, stopped a minute after the last use (while the rest
    of the suite runs) or at the end."""
    need_small()
    saved = HOST.cache_dir, HOST.threads, HOST.idle_s
    HOST.configure(mind_cache, idle_s=60)
    HOST.threads = THREADS
    yield HOST
    HOST.stop()
    HOST.cache_dir, HOST.threads, HOST.idle_s = saved


@pytest.fixture(scope="session")
def default_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Where the default model is joined (1.1 GB, once per run; removed at the end)."""
    path = tmp_path_factory.mktemp("default-mind-cache")
    yield path
    shutil.rmtree(path, ignore_errors=True)
