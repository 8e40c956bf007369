"""The chat window's link to the model: provider, turn runner and worker thread.

Built from the saved LLM settings. ``connect()`` (again after Settings are saved)
opens the provider; the first success creates the ``TurnRunner`` (one app-run
session) and its ``TurnController``; later ones hand the runner the new
provider, so the session and working memory carry on. When no provider can be
opened, ``problem`` says what to set up and ``ready`` is False.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from companion_desktop.llm.base import LlmError, ProviderConfig
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import LlmSettings, load_settings

if TYPE_CHECKING:
    from companion_desktop.pipeline.runner import TurnRunner
    from companion_desktop.pipeline.worker import TurnController

# The provider registry (httpx), the turn runner (MCP, Pillow) and the worker are imported
# when first needed: the chat window's first picture waits for none of them.

log = logging.getLogger(__name__)


def open_provider(config: ProviderConfig) -> Any:
    """``pipeline.provider_setup.open_provider``, imported on the first call."""
    from companion_desktop.pipeline.provider_setup import open_provider as opener

    return opener(config)


def close_provider(provider: Any) -> None:
    """Release a provider's connections, where it has any to release."""
    close = getattr(provider, "close", None)
    if close is None:
        close = getattr(getattr(provider, "client", None), "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # noqa: BLE001 - closing must never stop the app
            log.debug("closing the provider failed", exc_info=True)


def setup_hint(settings: LlmSettings) -> str | None:
    """What to set up, in the window's words, for the two usual gaps (else None)."""
    if not settings.provider:
        return ("No language model is set up yet. Open Settings to choose one: a model "
                "running on this computer (Ollama, LM Studio, …) or a cloud API with a key.")
    from companion_desktop.llm.registry import SPECS

    spec = SPECS.get(settings.provider)
    if spec is not None and not settings.model:
        return f"Pick a model for {spec.name} in Settings > LLM Model."
    return None


class ChatBackend:
    """Owns the runner and controller; the window reads ``ready``, ``problem`` and ``config``."""

    def __init__(
        self,
        service: CompanionService,
        clock: Callable[[], datetime],
        opener: Callable[[ProviderConfig], Any] = open_provider,
        animations: Callable[[], list[tuple[str, str]]] | None = None,
        memory: Any | None = None,
        tools: Callable[[], Any] | None = None,
    ) -> None:
        self.tools = tools  # the MCP tools on offer per turn (pipeline.tool_access)
        self.animations = animations  # enabled (id, description) pairs for the prompt
        self.memory = memory  # pipeline.memory.MemoryHooks (None: the simple keyword memory)
        self.service = service
        self.clock = clock
        self.opener = opener
        self.runner: TurnRunner | None = None
        self.controller: TurnController | None = None
        self.config: ProviderConfig | None = None
        self.problem: str | None = "No language model is set up yet."

    @property
    def ready(self) -> bool:
        return self.controller is not None and self.problem is None

    def connect(self) -> str | None:
        """Open the provider from the saved settings; the problem, or None when ready.

        Call only while no turn runs (the window waits for the current one).
        """
        from companion_desktop.pipeline.provider_setup import (
            ProviderNotReady,
            configure_mind,
            provider_config,
        )

        try:
            with self.service.db.read_session() as session:
                settings = load_settings(session, LlmSettings)
            configure_mind(self.service.db.path.parent, settings)  # loads nothing
            config = provider_config(settings)
        except ProviderNotReady as error:
            self.problem = setup_hint(settings) or str(error)
            return self.problem
        except StorageError as error:
            self.problem = str(error)
            return self.problem
        try:
            provider = self.opener(config)
        except LlmError as error:
            self.problem = str(error)
            return self.problem
        try:
            if self.runner is None:
                from companion_desktop.pipeline.runner import TurnRunner
                from companion_desktop.pipeline.worker import TurnController

                self.runner = TurnRunner(self.service, provider, self.clock, memory=self.memory,
                                         animations=self.animations, tools=self.tools)
                self.controller = TurnController(self.runner)
            else:
                old, self.runner.provider = self.runner.provider, provider
                close_provider(old)
        except StorageError as error:
            close_provider(provider)
            self.problem = str(error)
            return self.problem
        self.config = config
        self.problem = None
        return None

    # ---------------------------------------------------------------- photos
    def can_show_images(self) -> bool:
        """Whether the connected model can see photos (False when none is connected)."""
        if self.config is None:
            return False
        from companion_desktop.llm.vision import can_show_images

        return can_show_images(self.config.provider_id, self.config.model)

    def vision_refusal(self) -> str:
        """What to tell the user when the connected model cannot see photos."""
        if self.config is None:
            return self.problem or "No language model is set up yet."
        from companion_desktop.llm.vision import vision_refusal

        return vision_refusal(self.config.provider_id, self.config.model)

    def photo_notice(self) -> str | None:
        """The first-photo privacy notice for the connected provider (once per provider)."""
        if self.config is None:
            return None
        from companion_desktop.pipeline.image_privacy import photo_notice

        try:
            return photo_notice(self.service.db, self.config.provider_id, self.config.base_url)
        except StorageError:
            log.warning("could not record the photo notice", exc_info=True)
            return None

    def shutdown(self, wait_ms: int = 2000) -> bool:
        """Stop the worker thread (its turn or job cancelled, waiting at most ``wait_ms``),
        end the session, release the provider (on quit). True when the thread ended."""
        ended = True
        if self.controller is not None:
            ended = self.controller.shutdown(wait_ms)
            self.controller = None
        if self.runner is not None:
            try:
                self.runner.close()
            except Exception:  # noqa: BLE001 - quitting goes on, whatever the record says
                log.warning("could not end the session record", exc_info=True)
            close_provider(self.runner.provider)
            self.runner = None
        return ended
