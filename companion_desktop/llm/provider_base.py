"""What the three HTTP providers share: URLs, headers, error context, test_connection,
and text-only streaming on top of each one's ``stream_round``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from companion_desktop.llm import transport
from companion_desktop.llm.base import CancelledError, CancelToken, ChatMessage, ProviderConfig
from companion_desktop.llm.errors import CallContext
from companion_desktop.llm.transport import BodyStream


class HttpProvider:
    """Base of the HTTP providers. ``name`` is shown to the user in messages."""

    def __init__(self, config: ProviderConfig, client: httpx.Client, name: str) -> None:
        self.id = config.provider_id
        self.config = config
        self.client = client
        self.name = name

    def stream_chat(
        self, system: str, messages: list[ChatMessage], cancel: CancelToken | None = None
    ) -> Iterator[str]:
        """Yield reply text pieces as they arrive (a round with no tools on offer)."""
        # stream_round is each provider's own (the subclasses define it)
        for piece in self.stream_round(system, messages, [], cancel):  # type: ignore[attr-defined]
            if isinstance(piece, str):
                yield piece

    @property
    def base_url(self) -> str:
        return self.config.base_url.rstrip("/")

    def context(self, with_model: bool = True) -> CallContext:
        """The facts an error message may quote (the key only so it can be removed)."""
        return CallContext(
            provider_name=self.name,
            base_url=self.base_url,
            model=self.config.model if with_model else None,
            api_key=self.config.api_key,
            stall_timeout=self.config.stall_timeout,
            connect_timeout=self.config.connect_timeout,
        )

    def auth_headers(self) -> dict[str, str]:
        """Headers carrying the key; each provider overrides this."""
        return {}

    def headers(self) -> dict[str, str]:
        return {**self.auth_headers(), **self.config.extra_headers}

    def open(
        self,
        method: str,
        url: str,
        *,
        json_body: Any = None,
        params: dict[str, Any] | None = None,
        cancel: CancelToken | None = None,
        with_model: bool = True,
    ) -> BodyStream:
        """Send a request to ``url`` (absolute); the status is already checked."""
        return transport.send(
            self.client, method, url, self.context(with_model),
            headers=self.headers(), json_body=json_body, params=params, cancel=cancel,
        )

    def get_json(self, url: str, params: dict[str, Any] | None = None) -> Any:
        """GET ``url`` and parse the JSON reply (model lists: no model in error messages)."""
        return transport.request_json(
            self.client, "GET", url, self.context(with_model=False),
            headers=self.headers(), params=params,
        )

    def list_models(self) -> list[str]:  # pragma: no cover - every provider overrides it
        raise NotImplementedError

    def test_connection(self) -> str:
        """One line saying what answered and whether the chosen model is offered."""
        models = self.list_models()
        where = f"{self.name} answered at {self.base_url}"
        if not models:
            return f"{where}; it lists no models."
        count = f"{len(models)} model{'s' if len(models) != 1 else ''}"
        model = self.config.model
        if not model:
            return f"{where}: {count}."
        if model in models:
            return f"{where}: {count}, '{model}' among them."
        return f"{where}: {count}, but '{model}' is not among them."


def check_cancel(cancel: CancelToken | None) -> None:
    """Raise CancelledError when Stop was pressed."""
    if cancel is not None and cancel.cancelled:
        raise CancelledError("Stopped.")
