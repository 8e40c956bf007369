"""The MCP tools on offer for a turn: the enabled servers of Settings > Tools.

``ToolAccess`` owns the app's one ``McpHub`` (servers connect on first use and stay
connected) and, per turn, gives the runner a ``ToolSet``: the toolbox (the tools'
schemas and who needs approval) and the hub that runs calls. No enabled server,
or no tools anywhere, means no ToolSet, so the turn is a plain streamed reply.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion_desktop.storage.db import Database
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import McpSettings, load_settings

if TYPE_CHECKING:  # the MCP SDK loads with the first turn that has servers, not with the app
    from companion_desktop.llm.mcp_client import McpHub, McpServerConfig
    from companion_desktop.pipeline.tools import Toolbox

log = logging.getLogger(__name__)
#: How long a tool listing is reused before the servers are asked again (seconds).
LISTING_TTL_S = 60.0


def new_hub() -> McpHub:
    """A fresh ``McpHub`` (the MCP SDK is imported here, on first use)."""
    from companion_desktop.llm.mcp_client import McpHub

    return McpHub()


@dataclass(frozen=True)
class ToolSet:
    toolbox: Toolbox
    hub: McpHub


class ToolAccess:
    """Callable: ``access()`` -> the ToolSet for this turn, or None. Thread-safe."""

    def __init__(self, db: Database, hub_factory: Callable[[], McpHub] = new_hub,
                 secrets: Callable[..., str | None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.db = db
        self._hub_factory = hub_factory
        self._secrets = secrets
        self._clock = clock
        self._hub: McpHub | None = None
        self._lock = threading.Lock()
        self._listed: tuple[tuple[McpServerConfig, ...], float, dict] | None = None

    def __call__(self) -> ToolSet | None:
        try:
            with self.db.read_session() as session:
                servers = [e for e in load_settings(session, McpSettings).servers if e.enabled]
        except StorageError:
            return None
        if not servers:
            return None
        configs = tuple(self._config(entry) for entry in servers)
        ask = {entry.name: dict(entry.reviews) for entry in servers}
        with self._lock:
            if self._hub is None:
                self._hub = self._hub_factory()
            hub = self._hub
            listed = self._listed
            now = self._clock()
            if listed is None or listed[0] != configs or now - listed[1] > LISTING_TTL_S:
                try:
                    hub.update(list(configs))
                    listing = hub.list_tools()
                except Exception:  # noqa: BLE001 - tools are extra: the turn goes on without
                    log.warning("MCP tools unavailable this turn", exc_info=True)
                    return None
                for name, result in listing.items():
                    if not isinstance(result, list):
                        log.warning("MCP server %s: %s", name, getattr(result, "message", result))
                self._listed = listed = (configs, now, listing)
        from companion_desktop.pipeline.tools import Toolbox

        toolbox = Toolbox.build(listed[2], ask)
        return ToolSet(toolbox, hub) if toolbox else None

    def forget(self) -> None:
        """Settings changed: the next turn lists the tools again."""
        with self._lock:
            self._listed = None

    def close(self) -> None:
        with self._lock:
            hub, self._hub, self._listed = self._hub, None, None
        if hub is not None:
            hub.close()

    def _config(self, entry) -> McpServerConfig:  # noqa: ANN001 - storage.settings.McpServerEntry
        from companion_desktop.llm.mcp_client import config_from_entry

        if self._secrets is None:
            return config_from_entry(entry)
        return config_from_entry(entry, self._secrets)
