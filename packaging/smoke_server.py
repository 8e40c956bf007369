"""A local model server for packaging/smoke.sh: 127.0.0.1, OpenAI's streamed chat format.

Run from the repository root with the development environment's python (it reuses the
tests' provider server). Prints its API root (``http://127.0.0.1:PORT/v1``) on the first
line, then answers until its standard input closes; at exit it prints how many chat
requests it got.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.llm.provider_server import JsonReply, ProviderServer, StreamReply  # noqa: E402
from tests.llm.wire_formats import openai_models, openai_stream  # noqa: E402

#: Her reply, then the state block that makes a memory (so the bundle's embedding model
#: gets used): ``facts --json`` shows it with an embedding afterwards.
REPLY = ["Hello from ", "the smoke ", "server!\n", '```json\n{"new_memory": ',
         '"They love hiking in the mountains"}\n```']


def main() -> int:
    with ProviderServer() as server:
        server.on("POST", "/v1/chat/completions", StreamReply(openai_stream(REPLY)))
        server.on("GET", "/v1/models", JsonReply(openai_models(["test-model"])))
        print(server.url + "/v1", flush=True)
        sys.stdin.read()  # until the caller closes it
        print(f"chat requests: {len(server.requests_to('/v1/chat/completions'))}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
