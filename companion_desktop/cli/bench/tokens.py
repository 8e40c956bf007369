"""A synthetic local model for ``companion-desktop bench --only cost``.

There is no llama.cpp and no model weights in the bench, so a stand-in plays the user's local
model: an OpenAI-compatible server on 127.0.0.1 (a separate process) whose
``/v1/chat/completions`` streams tokens as server-sent events, each token costing a fixed
amount of CPU work spread over every core, the way llama.cpp uses all of them. What the bench
measures is how many tokens a second it keeps while she runs beside it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

#: Per token: ``TOKEN_MATMULS`` float32 products of ``MATMUL_SIZE`` square matrices, shared
#: out over os.cpu_count() threads (numpy lets go of the GIL; BLAS is held to one thread each).
#: About 12 ms of each core's time per token on two idle cores: some 70-80 tokens a second.
MATMUL_SIZE = 192
TOKEN_MATMULS = 128

_SERVER = r'''
import json, os, sys, threading
for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[name] = "1"
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import numpy as np

SIZE, TOTAL, LIFETIME = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
WORKERS = os.cpu_count() or 1
EACH = max(1, -(-TOTAL // WORKERS))
POOL = ThreadPoolExecutor(WORKERS)
A = np.random.default_rng(0).standard_normal((SIZE, SIZE)).astype(np.float32)

def share(_):
    out = np.empty_like(A)
    for _ in range(EACH):
        np.matmul(A, A, out=out)

def event(content, finish=None):
    chunk = {"id": "synthetic", "object": "chat.completion.chunk", "model": "synthetic",
             "choices": [{"index": 0, "delta": {"content": content} if content else {},
                          "finish_reason": finish}]}
    return ("data: " + json.dumps(chunk) + "\n\n").encode()

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        if self.path.rstrip("/") != "/v1/chat/completions":
            self.send_error(404)
            return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        count = max(1, min(int(body.get("max_tokens") or 16), 4096))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for i in range(count):
            list(POOL.map(share, range(WORKERS)))
            self.wfile.write(event(f" t{i}"))
            self.wfile.flush()
        self.wfile.write(event("", "length") + b"data: [DONE]\n\n")
        self.wfile.flush()

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
stop = lambda: threading.Thread(target=server.shutdown, daemon=True).start()
timer = threading.Timer(LIFETIME, stop)  # it stops by itself
timer.daemon = True
timer.start()
threading.Thread(target=lambda: (sys.stdin.read(), stop()), daemon=True).start()  # or with us
print(server.server_address[1], flush=True)
server.serve_forever()
POOL.shutdown(cancel_futures=True)
'''


@dataclass(frozen=True)
class TokenRun:
    tokens: int
    seconds: float  # first token to last

    @property
    def rate(self) -> float:
        return (self.tokens - 1) / self.seconds if self.tokens > 1 and self.seconds > 0 else 0.0


def sse_contents(lines: Iterable[str]) -> Iterator[str]:
    """The ``delta.content`` pieces of an OpenAI chat stream, up to ``data: [DONE]``."""
    for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            choices = json.loads(data).get("choices") or [{}]
        except (ValueError, AttributeError):
            continue
        content = (choices[0].get("delta") or {}).get("content")
        if content:
            yield content


def stream_tokens(base_url: str, tokens: int = 200, timeout: float = 60.0) -> TokenRun:
    """One streamed completion of ``tokens`` tokens; the rate counts from the first token
    (prompt time apart, as llama.cpp's generation speed does)."""
    import httpx

    body = {"model": "synthetic", "stream": True, "max_tokens": tokens,
            "messages": [{"role": "user", "content": "Count for me."}]}
    stamps: list[float] = []
    deadline = time.monotonic() + timeout
    with httpx.stream("POST", f"{base_url}/v1/chat/completions", json=body,
                      timeout=timeout) as reply:
        reply.raise_for_status()
        for _ in sse_contents(reply.iter_lines()):
            stamps.append(time.perf_counter())
            if time.monotonic() > deadline:
                break
    return TokenRun(len(stamps), stamps[-1] - stamps[0] if len(stamps) > 1 else 0.0)


class TokenServer:
    """The synthetic model in its own process, for ``with``; it stops by itself after
    ``lifetime`` seconds, when this object closes, or when this process goes."""

    def __init__(self, lifetime: float = 300.0, size: int = MATMUL_SIZE,
                 matmuls: int = TOKEN_MATMULS) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _SERVER, str(size), str(matmuls), str(lifetime)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline().strip() if self.proc.stdout else ""
        if not line.isdigit():
            self.close()
            raise RuntimeError("the synthetic model server did not start")
        self.url = f"http://127.0.0.1:{line}"

    def close(self) -> None:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()  # its watcher shuts the server down
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        if self.proc.stdout:
            self.proc.stdout.close()

    def __enter__(self) -> TokenServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
