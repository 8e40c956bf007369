"""The program that runs her mind: ``python -m companion_desktop.llm.mind.serve``.

It loads one GGUF model with llama.cpp (``xllamacpp``), which serves OpenAI-style chat
completions (streaming included) on 127.0.0.1 at a port of its choosing, prints one JSON
line on standard output (``{"url": ..., "context": ..., "load_s": ...}``, or
``{"error": ...}`` and exits 1), and runs until its standard input closes: the app that
started it quit or dropped it, crashed included. Run in a process of its own, it keeps
the app's windows safe from a crash in the runtime, gives its memory back when it ends,
and keeps its own CPU priority when the app lowers the app's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

#: The most threads the model uses (more rarely helps a small model on a desktop CPU).
MAX_THREADS = 4


def default_threads() -> int:
    """All cores but one, at most MAX_THREADS: llama.cpp's threads wait for each other at
    every step, so one that shares its core with her drawing or another program holds all
    back. Measured on 2 cores with other work running (the 1.5B model, 100 tokens under
    the block grammar): 1 thread 4.8-5.6 tokens/s, 2 threads 0.5-1.5."""
    return max(1, min((os.cpu_count() or 1) - 1, MAX_THREADS))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="companion_desktop.llm.mind.serve")
    parser.add_argument("--model", required=True, help="the GGUF file")
    parser.add_argument("--context", type=int, default=4096, help="tokens of context")
    parser.add_argument("--threads", type=int, default=default_threads())
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        import xllamacpp as runtime  # type: ignore[import-untyped]

        params = runtime.CommonParams()
        params.model.path = args.model
        params.n_ctx = max(512, min(args.context, 32768))
        params.n_parallel = 1  # one conversation: its prompt stays cached between turns
        params.cpuparams.n_threads = args.threads
        params.cpuparams_batch.n_threads = args.threads
        params.load_mode = runtime.llama_load_mode.LLAMA_LOAD_MODE_NONE  # read, not mapped
        server = runtime.Server(params)
        url = server.listening_address
    except Exception as error:  # noqa: BLE001 - the runtime's failures, said in one line
        print(json.dumps({"error": f"{type(error).__name__}: {str(error)[:300]}"}), flush=True)
        return 1
    print(json.dumps({"url": url, "context": params.n_ctx,
                      "load_s": round(time.monotonic() - started, 2)}), flush=True)
    try:
        while sys.stdin.buffer.read(1):  # until the app closes our input
            pass
    except (OSError, KeyboardInterrupt):
        pass
    del server
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
