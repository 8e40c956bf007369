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
#: Speculation from the conversation itself (llama.cpp's n-gram lookup): where the last
#: LOOKUP_TOKENS tokens she wrote also occur earlier in the context, up to DRAFT_TOKENS of
#: what followed there are checked in one batch instead of written one at a time. Her JSON
#: block repeats its keys every turn (and the format in her instructions), so most of it
#: is read at prompt speed: measured here on 2 cores with the 1.5B model, a reply and its
#: block of 84 tokens took 6.1 s instead of 10.5 s. Over four such replies, seconds a
#: token: none 0.116, 3/16 0.084, 4/12 0.081, 6/16 0.076 (a longer match drafts less
#: often in free text, where a draft is mostly wrong and its batch wasted).
LOOKUP_TOKENS = 6
DRAFT_TOKENS = 16


def default_threads() -> int:
    """Every core of a machine with one or two, else all but one (at most MAX_THREADS):
    the app drawing her runs at a lower priority ("Let other programs go first"), so on
    two cores the second thread pays. Measured on 2 cores with the 1.5B model beside the
    idle app: 2 threads 9.0-9.6 tokens/s, 1 thread 5.2-5.7 (with a busy program at normal
    priority beside it: 3.3 against 4.5). With more cores one stays free for her drawing
    and the desktop, since llama.cpp's threads wait for each other at every step."""
    cores = os.cpu_count() or 1
    return cores if cores <= 2 else min(cores - 1, MAX_THREADS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="companion_desktop.llm.mind.serve")
    parser.add_argument("--model", required=True, help="the GGUF file")
    parser.add_argument("--context", type=int, default=4096, help="tokens of context")
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--no-lookup", dest="lookup", action="store_false",
                        help="no speculation from the context (see LOOKUP_TOKENS)")
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
        if args.lookup:
            kinds = runtime.common_speculative_type
            params.speculative.types = [kinds.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
            params.speculative.ngram_simple.size_n = LOOKUP_TOKENS
            params.speculative.ngram_simple.size_m = DRAFT_TOKENS
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
    # Out at once: the server's own teardown waits for a reply being generated (seconds
    # on a busy machine, and the app is quitting); it holds nothing to save or flush.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
