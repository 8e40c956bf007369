"""ONNX Runtime sessions for the neural voices: on the CPU, few threads, no busy waiting.

The app shares a small computer's cores with a local language model, so a session runs
its operators on :data:`DEFAULT_THREADS` threads (measured: see the package docstring),
one operator at a time, and its idle threads sleep instead of spinning (ONNX Runtime's
default spin keeps a core busy for a while after each call).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from companion_desktop.llm.wav import TtsError

#: Threads one synthesis computes on (1-8): 2 gave the audio sooner than 1 for about the
#: same CPU time on a 2-core machine (see the package docstring).
DEFAULT_THREADS = 2
MAX_THREADS = 8
NEEDS_RUNTIME = "The neural voices need ONNX Runtime: pip install onnxruntime."


def runtime() -> Any:
    """The ``onnxruntime`` module; TtsError when it is not installed."""
    try:
        import onnxruntime
    except ImportError:
        raise TtsError(NEEDS_RUNTIME) from None
    return onnxruntime


def open_session(path: Path, threads: int = DEFAULT_THREADS) -> Any:
    """An ``InferenceSession`` on ``path`` (CPU only); TtsError naming the file when it
    will not load (``threads`` is clamped to 1..:data:`MAX_THREADS`)."""
    ort = runtime()
    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, min(MAX_THREADS, int(threads)))
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only: warnings about unused initializers
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(os.fspath(path), sess_options=options,
                                    providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own classes for a broken file
        detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise TtsError(f"The voice model {Path(path).name} could not be loaded ({detail}).") \
            from None


def input_names(session: Any) -> dict[str, tuple[str, list[Any]]]:
    """A session's inputs: name -> (element type such as ``tensor(int64)``, shape)."""
    return {i.name: (str(i.type), list(i.shape)) for i in session.get_inputs()}
