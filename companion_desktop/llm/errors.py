"""Map HTTP statuses and transport failures to :class:`LlmError` with plain messages.

Every message names the provider and says what to do. The API key never appears:
:func:`redact` removes it from any text that came back from the server.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote, quote_plus, urljoin

import httpx

from companion_desktop.llm.base import (
    AuthError,
    BadRequestError,
    ConnectionFailedError,
    LlmError,
    ModelNotFoundError,
    RateLimitError,
    ServerError,
    StallError,
    StreamBrokenError,
)

#: The longest provider message quoted in an error, in characters.
DETAIL_LIMIT = 300
SETTINGS_PAGE = "Settings > LLM Model"


@dataclass(frozen=True)
class CallContext:
    """What an error message needs to know about the call. Times in seconds."""

    provider_name: str
    base_url: str
    model: str | None = None
    api_key: str | None = None
    stall_timeout: float = 45.0
    connect_timeout: float = 10.0


#: The longest URL quoted in a message, in characters.
URL_LIMIT = 200
#: The longest API key accepted, in characters (real ones are well under 300).
MAX_KEY_CHARS = 4096


def key_problem(key: str) -> str | None:
    """Why ``key`` (already trimmed) cannot be an API key, or None when it can: a key is
    one piece of plain ASCII letters, digits and punctuation, at most MAX_KEY_CHARS long.
    The message never quotes the key."""
    if len(key) > MAX_KEY_CHARS:
        return (f"The API key is {len(key)} characters long; keys are at most "
                f"{MAX_KEY_CHARS}. Paste only the key.")
    for position, ch in enumerate(key, start=1):
        if "!" <= ch <= "~":
            continue
        if ch.isspace():
            what = "a space or line break"
        elif not ch.isprintable():
            what = "an invisible control character"
        else:
            what = "a character that is not plain ASCII"
        return (f"The API key has {what} in it (character {position}); a key is letters, "
                "digits and punctuation in one piece. Paste it again.")
    return None


def secret_forms(secret: str) -> list[str]:
    """The ways ``secret`` can show up in a message: as it is, escaped as Python writes it
    (``repr`` of the text and of its bytes), JSON-escaped and URL-encoded. Longest first,
    so a longer form is replaced before a shorter one inside it."""
    forms = {
        secret,
        repr(secret)[1:-1],
        repr(secret.encode("utf-8", "backslashreplace"))[2:-1],
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        quote(secret, safe=""),
        quote_plus(secret, safe=""),
        quote(secret),
    }
    return sorted(forms, key=len, reverse=True)


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` replaced by ``***``: the raw, the
    repr-escaped, the JSON-escaped and the URL-encoded forms alike."""
    if secret and len(secret) >= 4:
        for form in secret_forms(secret):
            text = text.replace(form, "***")
    return text


def provider_detail(body: bytes | str | Any, secret: str | None = None) -> str:
    """The provider's own error message from a JSON (or text) body, cleaned and truncated.

    Understands ``{"error": {"message": ...}}`` (OpenAI, Anthropic, Google),
    ``{"error": "..."}`` (Ollama), ``{"message": ...}``, and a list wrapping one of them.
    """
    data: Any = body
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    if isinstance(body, str):
        try:
            data = json.loads(body)
        except ValueError:
            data = body
    if isinstance(data, list) and data:
        data = data[0]
    text = ""
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            text = str(err.get("message") or err.get("detail") or err.get("type") or "")
        elif err is not None:
            text = str(err)
        if not text and isinstance(data.get("detail"), str):
            text = data["detail"]
    elif isinstance(data, str):
        text = data
    text = " ".join(redact(text, secret).split())
    if len(text) > DETAIL_LIMIT:
        text = text[: DETAIL_LIMIT - 1] + "…"
    return text


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date); None if unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


def error_for_status(
    ctx: CallContext,
    status: int,
    body: bytes | str | Any = b"",
    retry_after: str | None = None,
) -> LlmError:
    """The LlmError for an HTTP error ``status`` with response ``body`` (bytes, text or JSON)."""
    name = ctx.provider_name
    detail = provider_detail(body, ctx.api_key)
    said = f" ({name} says: {detail})" if detail else ""
    if status in (401, 403):
        if not ctx.api_key:
            return AuthError(
                f"{name} refused the request ({status}): it needs an API key; "
                f"set it in {SETTINGS_PAGE}.",
                status=status,
            )
        extra = said if status == 403 else ""
        return AuthError(
            f"The key was refused ({status}) by {name}: check it in {SETTINGS_PAGE}.{extra}",
            status=status,
        )
    if status == 404:
        if ctx.model:
            return ModelNotFoundError(
                f"Model '{ctx.model}' was not found at {ctx.base_url} (404): "
                f"pick one from the list.{said}",
                status=status,
            )
        return ModelNotFoundError(
            f"Nothing answered at {ctx.base_url} (404): check the server URL.{said}",
            status=status,
        )
    if status == 429:
        wait = retry_after_seconds(retry_after)
        when = f" Try again in {wait:.0f} s." if wait is not None else " Try again later."
        return RateLimitError(
            f"{name} is limiting requests (429).{when}{said}", status=status, retry_after=wait
        )
    if 400 <= status < 500:
        return BadRequestError(
            f"{name} refused the request ({status}): {detail or 'no reason given'}", status=status
        )
    if status >= 500:
        return ServerError(
            f"{name} had a server error ({status}); try again in a moment.{said}", status=status
        )
    if 300 <= status < 400:
        return error_for_redirect(ctx, status, None)
    return StreamBrokenError(f"The reply was cut off: unexpected status {status}.", status=status)


def redirect_target(base_url: str, location: str | None, secret: str | None = None) -> str:
    """Where a redirect pointed (``location`` made absolute against ``base_url``), fit to
    quote: the key removed, control characters dropped, cut to URL_LIMIT."""
    target = urljoin(base_url.rstrip("/") + "/", location.strip()) if location else ""
    target = "".join(ch for ch in redact(target, secret) if ch.isprintable())
    return target if len(target) <= URL_LIMIT else target[: URL_LIMIT - 1] + "…"


def error_for_redirect(ctx: CallContext, status: int, location: str | None) -> LlmError:
    """A redirect (3xx) is never followed: the key headers and the conversation would go
    wherever it points. The message says where that was."""
    target = redirect_target(ctx.base_url, location, ctx.api_key)
    where = f"to {target}" if target else "elsewhere (no address given)"
    return ConnectionFailedError(
        f"{ctx.provider_name} at {ctx.base_url} tried to send the request {where} "
        f"({status}); redirects are not followed, so nothing was sent there. If that "
        f"address is right, set it as the server URL in {SETTINGS_PAGE}.",
        status=status,
    )


def error_for_stream_event(ctx: CallContext, error: Any) -> LlmError:
    """An error object sent inside a stream (``{"code"|"type": ..., "message": ...}``)."""
    code: Any = None
    if isinstance(error, dict):
        code = error.get("code", error.get("status"))
        kind = str(error.get("type") or "")
        by_type = {
            "authentication_error": 401,
            "permission_error": 403,
            "not_found_error": 404,
            "rate_limit_error": 429,
            "invalid_request_error": 400,
            "request_too_large": 413,
            "overloaded_error": 529,
            "api_error": 500,
        }
        if kind in by_type and not isinstance(code, int):
            code = by_type[kind]
    if isinstance(code, int) and 400 <= code < 600:
        return error_for_status(ctx, code, {"error": error})
    detail = provider_detail({"error": error}, ctx.api_key) or "an error"
    return ServerError(f"{ctx.provider_name} stopped the reply with an error: {detail}")


def error_for_transport(ctx: CallContext, exc: Exception) -> LlmError:
    """The LlmError for an httpx transport exception (connect, stall, broken stream)."""
    if isinstance(exc, LlmError):
        return exc
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol)):
        return ConnectionFailedError(f"Could not reach {ctx.base_url}: is the server running?")
    if isinstance(exc, httpx.PoolTimeout):
        return ConnectionFailedError(f"Could not reach {ctx.base_url}: too many open requests.")
    if isinstance(exc, (httpx.ReadTimeout, httpx.WriteTimeout)):
        return stall_error(ctx)
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.DecodingError)):
        reason = redact(str(exc), ctx.api_key) or "the connection closed"
        return StreamBrokenError(f"The reply was cut off: {reason}.")
    if isinstance(exc, httpx.TransportError):
        reason = redact(str(exc), ctx.api_key) or type(exc).__name__
        return ConnectionFailedError(f"Could not reach {ctx.base_url}: {reason}.")
    return LlmError(f"{ctx.provider_name} call failed: {type(exc).__name__}")


def stall_error(ctx: CallContext) -> StallError:
    return StallError(f"No reply for {ctx.stall_timeout:g} s; the turn was stopped.")


def broken(reason: str) -> StreamBrokenError:
    """A StreamBrokenError saying why the reply is incomplete."""
    return StreamBrokenError(f"The reply was cut off: {reason}.")
