"""Fixtures for the llm tests: the scripted provider server and providers pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from companion_desktop.llm.base import Provider, ProviderConfig
from companion_desktop.llm.registry import create_provider, make_client
from tests.llm.provider_server import ProviderServer

#: A key that must never show up in a message or a log line.
KEY = "sk-test-SECRET-0123456789abcdef"

#: The API root each provider kind is mounted at on the test server.
ROOTS = {"anthropic": "/v1", "google": "/v1beta"}


@pytest.fixture
def provider_server() -> Iterator[ProviderServer]:
    """A fresh scripted server on 127.0.0.1 for one test."""
    with ProviderServer() as server:
        yield server


@pytest.fixture
def make_provider(provider_server: ProviderServer) -> Iterator[Callable[..., Provider]]:
    """``make_provider(provider_id, **config_fields)``: a real provider from the registry,
    over a real client, pointed at ``provider_server``."""
    clients: list[httpx.Client] = []

    def make(provider_id: str, **fields: Any) -> Provider:
        root = fields.pop("root", ROOTS.get(provider_id, "/v1"))
        values: dict[str, Any] = {
            "provider_id": provider_id,
            "base_url": provider_server.url + root,
            "model": "test-model",
            "api_key": KEY,
            "connect_timeout": 2.0,
            "stall_timeout": 5.0,
        }
        values.update(fields)
        config = ProviderConfig(**values)
        client = make_client(config)
        clients.append(client)
        return create_provider(config, client)

    yield make
    for client in clients:
        client.close()
