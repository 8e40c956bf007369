"""What ``bench --only mind`` reads from outside the turn pipeline: llama.cpp's timing
lines in her mind's log, the peak memory of its process, and where the model file comes
from (a joined one reused from a cache, else joined once). See ``cli.bench.mind``."""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion_desktop.llm.mind.models import MindModel

MIND_CACHE_ENV = "COMPANION_MIND_CACHE"
RSS_EVERY_S = 0.2

# -- llama.cpp's timing lines ------------------------------------------------------------
_PROMPT_LINE = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
_EVAL_LINE = re.compile(r"(?<!prompt )eval time =\s*([\d.]+) ms /\s*(\d+) tokens")


@dataclass(frozen=True)
class Timing:
    """One request as llama.cpp logged it: the prompt it read and the tokens it wrote."""

    prompt_ms: float
    prompt_tokens: int
    eval_ms: float
    eval_tokens: int


def parse_timings(lines: list[str]) -> tuple[list[Timing], bool]:
    """The requests in ``lines`` of a mind.log (a "prompt eval time" line followed by an
    "eval time" line), and whether a prompt line still waits for its eval line."""
    found: list[Timing] = []
    prompt: tuple[float, int] | None = None
    for line in lines:
        if (match := _PROMPT_LINE.search(line)) is not None:
            prompt = (float(match[1]), int(match[2]))
        elif (match := _EVAL_LINE.search(line)) is not None and prompt is not None:
            found.append(Timing(prompt[0], prompt[1], float(match[1]), int(match[2])))
            prompt = None
    return found, prompt is not None


class MindLog:
    """Reads the timing lines the mind appends to its log, a turn at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def tail(self, lines: int = 3, width: int = 160) -> str:
        """The log's last ``lines`` lines (each cut to ``width``), joined by " | "."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        last = [line.strip()[:width] for line in text.splitlines() if line.strip()][-lines:]
        return " | ".join(last)

    def take(self, least: int = 1, wait_s: float = 3.0) -> list[Timing]:
        """The requests logged since the last call: waits (up to ``wait_s``) until there
        are ``least`` and none is half-written (the runtime writes its log from a thread)."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                if self.path.stat().st_size < self.offset:  # the mind started again: a new log
                    self.offset = 0
                with self.path.open("rb") as log:
                    log.seek(self.offset)
                    data = log.read()
            except OSError:
                data = b""
            end = data.rfind(b"\n") + 1
            found, pending = parse_timings(data[:end].decode("utf-8", "replace").splitlines())
            if (len(found) >= least and not pending) or time.monotonic() > deadline:
                if pending:  # keep the half-logged request for the next call
                    end = data.rfind(b"\n", 0, data.rfind(b"prompt eval time", 0, end)) + 1
                self.offset += end
                return found
            time.sleep(0.05)


# -- the mind's memory ------------------------------------------------------------------------
def status_mb(pid: int, key: str) -> float:
    """A ``/proc/PID/status`` field in kB (``VmHWM``, ``VmRSS``), as MB; 0 when absent."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) / 1024
    return 0.0


class PeakRss(threading.Thread):
    """Samples the peak resident memory of the process ``pid()`` names (None: none now)."""

    def __init__(self, pid: Callable[[], int | None], every_s: float = RSS_EVERY_S) -> None:
        super().__init__(name="mind-rss", daemon=True)
        self.pid = pid
        self.every_s = every_s
        self.peak_mb = 0.0
        self.source = "VmHWM"
        self._done = threading.Event()

    def sample(self) -> None:
        pid = self.pid()
        if pid is None:
            return
        try:
            hwm, rss = status_mb(pid, "VmHWM"), status_mb(pid, "VmRSS")
        except (OSError, ValueError):  # it ended meanwhile, or no /proc here
            return
        if not hwm:
            self.source = "largest VmRSS seen"
        self.peak_mb = max(self.peak_mb, hwm, rss)

    def run(self) -> None:
        while not self._done.wait(self.every_s):
            self.sample()

    def finish(self) -> float:
        self._done.set()
        if self.is_alive():
            self.join(2.0)
        self.sample()
        return self.peak_mb


# -- the model file ------------------------------------------------------------------------------
def cache_candidates(data_dir: str | None) -> list[Path]:
    """Caches that may hold a joined model already: ``$COMPANION_MIND_CACHE``, then the data
    folder's (``--data-dir``, ``$COMPANION_DATA_DIR`` or the platform's)."""
    from companion_desktop.storage.paths import resolve_data_dir

    kept = kept_cache()
    return [*([kept] if kept is not None else []), resolve_data_dir(data_dir) / "cache"]


def kept_cache() -> Path | None:
    """``$COMPANION_MIND_CACHE`` (None when unset): where a joined model is kept."""
    value = os.environ.get(MIND_CACHE_ENV, "").strip()
    return Path(value).expanduser() if value else None


def prepare_model(model: MindModel, cache: Path, candidates: list[Path],
                  report: Callable[[str], None]) -> str:
    """Makes ``model`` ready in ``cache`` (see the module); says how, in a few words.
    Raises ConfigError (from ``models``) when its packages are missing or damaged."""
    from companion_desktop.llm.mind.models import MIND_FOLDER, RECORD_SUFFIX, is_ready, model_file

    if not model.joined:
        model_file(model, cache)
        return "a single file, used where its package installed it"
    target = cache / MIND_FOLDER / model.file_name
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    for source in candidates:
        if source.resolve() != cache.resolve() and is_ready(model, source):
            there = source / MIND_FOLDER / model.file_name
            try:
                target.symlink_to(there.resolve())
                shutil.copyfile(there.with_name(model.file_name + RECORD_SUFFIX),
                                target.with_name(model.file_name + RECORD_SUFFIX))
            except OSError:
                target.unlink(missing_ok=True)
                continue
            if is_ready(model, cache):
                return f"the joined file already in {source}"
    keep = kept_cache()
    into = keep if keep is not None else cache
    shown: list[int] = []

    def progress(fraction: float, text: str) -> None:
        if int(fraction * 10) not in shown:
            shown.append(int(fraction * 10))
            report(f"    {text}")

    t0 = time.perf_counter()
    path = model_file(model, into, progress)
    if keep is not None:
        target.symlink_to(path.resolve())
        shutil.copyfile(path.with_name(model.file_name + RECORD_SUFFIX),
                        target.with_name(model.file_name + RECORD_SUFFIX))
        return f"joined from its packages into {keep} in {time.perf_counter() - t0:.1f} s"
    return (f"joined from its packages in {time.perf_counter() - t0:.1f} s (set "
            f"{MIND_CACHE_ENV} to a folder to keep it for the next run)")
