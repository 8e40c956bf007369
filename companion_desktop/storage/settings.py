"""Typed settings sections, one JSON row each in the ``settings`` table.

API keys are never stored here: they live in the operating system's keyring.
Loading never fails: a missing section gives the defaults, and a stored section
that no longer validates gives the defaults with a logged warning. Unknown keys
in a stored section are ignored (and dropped on the next save).
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from companion_desktop.engine.window_context import DEFAULT_DENY

from .models import SettingsRow

log = logging.getLogger(__name__)


class SettingsSection(BaseModel):
    """Base of every section; ``SECTION`` is its key in the settings table."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True, frozen=False)
    SECTION: ClassVar[str]


class RelationshipSettings(SettingsSection):
    """Settings > Relationship: whether the familiarity score is tracked."""

    SECTION: ClassVar[str] = "relationship"
    tracking_enabled: bool = True


class DisplaySettings(SettingsSection):
    """Settings > Display: mood faces (resting face and flash), personalized moments, and
    ``yield_cpu``: the app runs at a lower CPU priority, so a language model on the same
    computer keeps its speed (applied at start). ``autostart``: an XDG autostart entry
    starts her with the computer. ``start_hidden`` (read at start): "no" shows the chat
    window, "overlay" only her overlay, "tray" nothing but the tray icon. ``native_wayland``
    (read at start): in a Wayland session her windows are native Wayland windows instead of
    XWayland ones (they cannot stay on top, be placed or see other windows)."""

    SECTION: ClassVar[str] = "display"
    mood_expressions: bool = True
    personalized_moments: bool = True
    yield_cpu: bool = True
    autostart: bool = False
    start_hidden: Literal["no", "overlay", "tray"] = "no"
    native_wayland: bool = False


class HotkeySettings(SettingsSection):
    """Settings > Desktop > Global hotkeys: keys that work whichever window has the focus,
    written as Qt shows them ("Ctrl+Alt+H"); blank turns one off. ``enabled`` (off until
    the user turns it on: the listener watches every key typed anywhere) starts listening.
    Push-to-talk has no key by default (F9 works inside her windows). ``look_at_screen``
    captures the active window into the chat's preview strip ("look at this")."""

    SECTION: ClassVar[str] = "hotkeys"
    enabled: bool = False
    toggle_overlay: str = Field(default="Ctrl+Alt+H", max_length=40)
    toggle_click_through: str = Field(default="Ctrl+Alt+K", max_length=40)
    push_to_talk: str = Field(default="", max_length=40)
    toggle_dnd: str = Field(default="Ctrl+Alt+N", max_length=40)
    look_at_screen: str = Field(default="Ctrl+Alt+O", max_length=40)

    def keys(self) -> dict[str, str]:
        """Action -> key text, whether or not global hotkeys are on (they also work
        inside her windows)."""
        return {"toggle_overlay": self.toggle_overlay,
                "toggle_click_through": self.toggle_click_through,
                "push_to_talk": self.push_to_talk,
                "toggle_dnd": self.toggle_dnd,
                "look_at_screen": self.look_at_screen}

    def bindings(self) -> dict[str, str]:
        """Action -> key text for the global listener, nothing when hotkeys are off."""
        return self.keys() if self.enabled else {}


class LlmSettings(SettingsSection):
    """Settings > LLM Model. ``context_window`` is in tokens, 1024-131072 (default 8192).
    ``unconfirmed_url``: a server URL a restored backup brought (``storage.restore_trust``);
    while ``base_url`` is that URL, no key is sent to it until the user confirms it
    (``pipeline.key_hold``). The same field in the voice and hearing sections does the
    same for their servers. ``mind_idle_minutes``: her own mind (the built-in provider)
    is unloaded after this long without a call, to give its memory back (1-240)."""

    SECTION: ClassVar[str] = "llm"
    provider: str | None = None
    base_url: str | None = None
    model: str | None = None
    context_window: int = Field(default=8192, ge=1024, le=131072)
    context_scaling: bool = True
    unconfirmed_url: str | None = None
    mind_idle_minutes: int = Field(default=10, ge=1, le=240)


class AvatarSettings(SettingsSection):
    """Settings > Character > Model and the overlay window.

    ``model_path`` None means the built-in avatar. ``fps`` caps redraws (10-60).
    ``positions`` maps a screen-arrangement key to the overlay's top-left (x, y).
    ``scale`` multiplies the overlay's base size (0.4-3.0).
    """

    SECTION: ClassVar[str] = "avatar"
    model_path: str | None = None
    fps: int = Field(default=30, ge=10, le=60)
    overlay_visible: bool = True
    always_on_top: bool = True
    click_through: bool = True
    scale: float = Field(default=1.0, ge=0.4, le=3.0)
    positions: dict[str, tuple[int, int]] = Field(default_factory=dict)


class ImageSettings(SettingsSection):
    """Showing her photos: the provider ids whose first-photo privacy notice was shown."""

    SECTION: ClassVar[str] = "images"
    privacy_noticed: list[str] = Field(default_factory=list)


class VoiceSettings(SettingsSection):
    """Settings > Voice. ``backend`` "neural" (her natural voice, offline: Kokoro and the
    voices the user brought, ``llm.neural_voice``; espeak-ng where it is not installed),
    "espeak" (offline espeak-ng) or "openai" (any OpenAI-compatible ``/v1/audio/speech``
    at ``base_url``; its key is in the keyring under :data:`VOICE_KEY_ID`). ``voice``
    None is the backend's default voice. ``rate`` multiplies the speaking speed
    (0.5-2.0)."""

    SECTION: ClassVar[str] = "voice"
    enabled: bool = False
    backend: Literal["neural", "espeak", "openai"] = "neural"
    voice: str | None = None
    base_url: str | None = None
    model: str = "tts-1"
    rate: float = Field(default=1.0, ge=0.5, le=2.0)
    unconfirmed_url: str | None = None


#: The keyring entry of the speech server's API key.
VOICE_KEY_ID = "voice"


class HearingSettings(SettingsSection):
    """Settings > Voice > Hearing: how she listens. ``mode`` "off" (the microphone stays
    closed), "push_to_talk" (hold the mic button or ``ptt_key``) or "hands_free" (voice
    activity starts and ends an utterance). ``device_id`` is the microphone's id
    (hex of ``QAudioDevice.id()``; None: the system default). ``sensitivity`` 0..1,
    ``silence_s`` ends an utterance, ``max_s`` caps one. ``backend`` "local" (Whisper on
    this computer) or "server" (an OpenAI-compatible ``/audio/transcriptions`` at
    ``base_url``; its key is in the keyring under :data:`HEARING_KEY_ID`). ``language``
    "" recognises any language, else a fixed code ("en", "de", …)."""

    SECTION: ClassVar[str] = "hearing"
    mode: Literal["off", "push_to_talk", "hands_free"] = "off"
    device_id: str | None = Field(default=None, max_length=512)
    sensitivity: float = Field(default=0.5, ge=0.0, le=1.0)
    silence_s: float = Field(default=0.7, ge=0.2, le=3.0)
    max_s: float = Field(default=30.0, ge=2.0, le=120.0)
    backend: Literal["local", "server"] = "local"
    base_url: str | None = None
    model: str = Field(default="whisper-1", min_length=1, max_length=200)
    language: str = Field(default="", pattern=r"^([a-z]{2,3})?$")
    ptt_key: str = Field(default="F9", min_length=1, max_length=40)
    unconfirmed_url: str | None = None


#: The keyring entry of the speech-to-text server's API key.
HEARING_KEY_ID = "hearing"


class ToolReview(BaseModel):
    """The user's choice for one tool: "ask" before every run, or "allow" it to run
    without asking. ``fingerprint`` is the tool as it was reviewed (its name,
    description and input schema; ``pipeline.tools.tool_fingerprint``): a tool that
    has changed since, or a review without one, counts as not reviewed (it asks)."""

    model_config = ConfigDict(extra="ignore")
    choice: Literal["ask", "allow"] = "ask"
    fingerprint: str = Field(default="", max_length=128)


class McpServerEntry(BaseModel):
    """One MCP server. stdio: ``command`` + ``args`` (+ environment); http: ``url``
    (streamable HTTP) + headers. Environment and header *values* are secrets and live
    in the keyring; only their names are stored here. ``reviews`` holds the user's
    choice per tool name (``ToolReview``); a tool with none asks before every run.
    ``restored_off``: a restored backup brought it turned off (``storage.restore_trust``);
    it stays off until the user turns it on, having seen its command.

    Settings from before reviews listed the tools to ask for in ``ask_tools``; those
    become "ask" reviews without a fingerprint (they keep asking, and every other tool,
    not reviewed, asks too)."""

    model_config = ConfigDict(extra="ignore")
    name: str = Field(min_length=1, max_length=64)
    transport: Literal["stdio", "http"] = "stdio"
    command: str = ""
    args: list[str] = Field(default_factory=list)
    env_names: list[str] = Field(default_factory=list)
    url: str = ""
    header_names: list[str] = Field(default_factory=list)
    enabled: bool = True
    restored_off: bool = False
    reviews: dict[str, ToolReview] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _reviews_in(cls, data: Any) -> Any:
        """Old ``ask_tools`` become "ask" reviews; a review that does not validate is
        dropped (its tool asks again) rather than losing the whole server list."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        names = data.pop("ask_tools", None)
        raw = data.get("reviews")
        reviews: dict[str, Any] = {}
        for name, review in (raw.items() if isinstance(raw, dict) else ()):
            try:
                reviews[str(name)] = ToolReview.model_validate(review)
            except ValidationError:
                log.warning("dropping an invalid tool review for %r", name)
        for name in names if isinstance(names, list) else ():
            if isinstance(name, str):
                reviews.setdefault(name, ToolReview(choice="ask"))
        data["reviews"] = reviews
        return data

    @property
    def ask_tools(self) -> list[str]:
        """The tools the user set to ask before running (read-only)."""
        return [name for name, review in self.reviews.items() if review.choice == "ask"]


class McpSettings(SettingsSection):
    """Settings > Tools (MCP): the configured servers, in the user's order."""

    SECTION: ClassVar[str] = "mcp"
    servers: list[McpServerEntry] = Field(default_factory=list)


S = TypeVar("S", bound=SettingsSection)


def load_settings(session: Session, model_cls: type[S]) -> S:
    """The stored section, or its defaults when missing or invalid (never raises)."""
    query = select(cast(SettingsRow.data, Text)).where(SettingsRow.section == model_cls.SECTION)
    try:
        raw = session.scalar(query)
    except Exception:  # noqa: BLE001 - settings must never stop the app
        log.warning("settings %r unreadable; using defaults", model_cls.SECTION, exc_info=True)
        return model_cls()
    if raw is None:
        return model_cls()
    try:
        return model_cls.model_validate(json.loads(raw))
    except (ValueError, TypeError, ValidationError) as error:
        log.warning("settings %r are invalid (%s); using defaults", model_cls.SECTION, error)
        return model_cls()


def save_settings(session: Session, instance: SettingsSection, now: datetime | None = None) -> None:
    """Validate ``instance`` again (ValidationError if out of range) and store it."""
    model_cls = type(instance)
    checked = model_cls.model_validate(instance.model_dump())
    row = session.get(SettingsRow, model_cls.SECTION)
    if row is None:
        row = SettingsRow(section=model_cls.SECTION)
        session.add(row)
    row.data = checked.model_dump(mode="json")
    row.updated_at = now or datetime.now(timezone.utc)


class ProactiveSettings(SettingsSection):
    """Settings > Desktop > Quiet time and speaking first (``ui.settings.proactive_section``).

    ``do_not_disturb``: no speaking first, no pop-up notifications, reminders silent
    (still saved and shown in the chat). ``speak_first`` None follows the mode (on in
    Dating Sim Mode, off in Companion Mode); True or False is the user's choice. She
    greets after ``absence_hours`` away, remarks after ``silence_minutes`` at the computer
    without a word, at most ``daily_cap`` times a day and ``gap_minutes`` apart.
    ``window_awareness`` (off by default) gives her the active window's application and
    title for each reply, never for windows matching ``window_deny``. ``window_deny`` also
    keeps windows out of every screen picture ("look at this" and glances). ``glance`` (off
    by default): she may glance at the active window while the user is active, at most
    every ``glance_minutes`` and under the speaking-first limits; no picture is kept."""

    SECTION: ClassVar[str] = "proactive"
    do_not_disturb: bool = False
    speak_first: bool | None = None
    absence_hours: float = Field(default=2.0, ge=0.5, le=24.0)
    silence_minutes: int = Field(default=45, ge=15, le=480)
    daily_cap: int = Field(default=3, ge=1, le=12)
    gap_minutes: int = Field(default=90, ge=30, le=720)
    window_awareness: bool = False
    window_deny: list[Annotated[str, Field(max_length=80)]] = Field(
        default_factory=lambda: list(DEFAULT_DENY), max_length=200)
    glance: bool = False
    glance_minutes: int = Field(default=30, ge=5, le=120)


class WalkingSettings(SettingsSection):
    """Settings > Desktop > Walking: whether she walks along the window or panel she stands on now
    and then, and sometimes sits on a window's top edge."""

    SECTION: ClassVar[str] = "walking"
    enabled: bool = True


class DesktopLifeSettings(SettingsSection):
    """Settings > Desktop > On the desktop (X11 only). ``gravity``: let go in the air, she
    falls onto the window top or the bottom of the screen below her, and rides on windows
    (off: she stays exactly where she is put). ``hide_fullscreen``: she hides while the
    active window is fullscreen. ``always_hide``: applications (WM_CLASS names) whose active
    window hides her, fullscreen or not; ``never_hide``: applications she stays shown over,
    even fullscreen."""

    SECTION: ClassVar[str] = "desktop_life"
    gravity: bool = True
    hide_fullscreen: bool = True
    always_hide: list[Annotated[str, Field(max_length=100)]] = Field(default_factory=list,
                                                                   max_length=200)
    never_hide: list[Annotated[str, Field(max_length=100)]] = Field(default_factory=list,
                                                                  max_length=200)
