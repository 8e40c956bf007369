"""Speech to text on an OpenAI-compatible server: ``POST {base_url}/audio/transcriptions``.

The utterance goes as a 16-bit WAV in a multipart form (``file``, ``model``, ``language``
when fixed, ``response_format=json``); the reply is ``{"text": ...}``, read a piece at a time
up to :data:`MAX_REPLY_BYTES`, and the whole request has one deadline
(:mod:`~companion_desktop.llm.bounded_request`). Redirects are never followed (the
recording and the key would go wherever the server points). The key is the
one kept for this purpose (keyring entry :data:`STT_KEY_ID`, or :data:`STT_ENV_VAR`), never
the chat model's. Every failure is an :class:`~companion_desktop.voice.stt.SttError` whose
message a user can act on and that never holds the key.
"""

from __future__ import annotations

import json
import time

import httpx
import numpy as np

from companion_desktop.llm import keys
from companion_desktop.llm.bounded_request import REQUEST_DEADLINE_S, Reply, ServerFailed, fetch
from companion_desktop.llm.errors import provider_detail, redact, redirect_target
from companion_desktop.llm.keys import STT_ENV_VAR, STT_KEY_ID  # noqa: F401 - re-exported
from companion_desktop.voice.audio import SAMPLE_RATE, wav_bytes
from companion_desktop.voice.stt import (
    MIN_AUDIO_S,
    SttError,
    Transcript,
    as_samples,
    clean_language,
)

SETTINGS_PAGE = "Settings > Voice"
#: The largest reply read, in bytes.
MAX_REPLY_BYTES = 1024 * 1024


def transcription_key() -> str | None:
    """The transcription server's key: :data:`STT_ENV_VAR`, else the keyring's, else None."""
    return keys.get_key(STT_KEY_ID)


class RemoteTranscriber:
    """An OpenAI-compatible transcription endpoint over ``client`` (its timeouts apply to
    each wait); one recognition may take ``deadline_s`` seconds in all, and its reply at
    most :data:`MAX_REPLY_BYTES`."""

    backend = "server"

    def __init__(self, base_url: str, model: str, api_key: str | None,
                 client: httpx.Client, deadline_s: float = REQUEST_DEADLINE_S) -> None:
        self.base_url = (base_url or "").strip().rstrip("/")
        self.model = (model or "").strip() or "whisper-1"
        self.api_key = (api_key or "").strip() or None
        self.client = client
        self.deadline_s = deadline_s

    def _url(self) -> str:
        if not self.base_url.startswith(("http://", "https://")):
            raise SttError(f"Set the speech-to-text server's address (http:// or https://) "
                           f"in {SETTINGS_PAGE}.")
        return f"{self.base_url}/audio/transcriptions"

    def transcribe(self, audio: np.ndarray, language: str | None = None) -> Transcript:
        samples = as_samples(audio)
        code = clean_language(language)
        duration = samples.size / SAMPLE_RATE
        if duration < MIN_AUDIO_S:
            return Transcript("", code or "", 0.0, self.backend, duration)
        url = self._url()
        form = {"model": self.model, "response_format": "json"}
        if code:
            form["language"] = code
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        started = time.perf_counter()
        try:
            reply = fetch(self.client, "POST", url, server="speech-to-text server",
                          address=self.base_url, max_bytes=MAX_REPLY_BYTES,
                          deadline_s=self.deadline_s, data=form, headers=headers,
                          files={"file": ("speech.wav", wav_bytes(samples), "audio/wav")})
        except ServerFailed as error:
            raise SttError(str(error)) from None
        if reply.status != 200:
            raise SttError(self._status_message(reply))
        text, found = self._read(reply)
        return Transcript(text, found or code or "", time.perf_counter() - started,
                          self.backend, duration)

    def _read(self, response: Reply) -> tuple[str, str]:
        body = response.body
        if response.content_type == "text/plain":
            return body.decode("utf-8", "replace").strip(), ""
        try:
            reply = json.loads(body)
        except ValueError:
            raise SttError("The speech-to-text server sent a reply that is not JSON "
                           f"({len(body)} bytes).") from None
        text = reply.get("text") if isinstance(reply, dict) else None
        if not isinstance(text, str):
            raise SttError("The speech-to-text server's reply has no \"text\".")
        language = reply.get("language")
        return text.strip(), language.strip()[:20] if isinstance(language, str) else ""

    def _status_message(self, response: Reply) -> str:
        status = response.status
        detail = provider_detail(response.body, self.api_key)
        if 300 <= status < 400:
            target = redirect_target(self.base_url, response.headers.get("location"),
                                     self.api_key)
            text = (f"The speech-to-text server tried to send the recording to "
                    f"{target or 'elsewhere'} ({status}); redirects are not followed, so "
                    f"nothing was sent there. If that address is right, set it in "
                    f"{SETTINGS_PAGE}.")
            return redact(text, self.api_key)
        kind = "server" if status >= 500 else status if status in _STATUS_TEXT else "other"
        text = "The speech-to-text server " + _STATUS_TEXT[kind].format(
            status=status, page=SETTINGS_PAGE, url=self.base_url, model=self.model)
        if detail and status != 404:
            text += f" It said: {detail}"
        return redact(text, self.api_key)


#: What a refusal means, by status ("server": any 5xx, "other": the rest).
_STATUS_TEXT: dict[int | str, str] = {
    401: "refused the API key ({status}). Check it in {page}.",
    403: "refused the API key ({status}). Check it in {page}.",
    404: "has no {url}/audio/transcriptions or no model \"{model}\" ({status}). Check the "
         "address and model in {page}.",
    413: "refused the recording as too large ({status}).",
    429: "is rate-limiting requests ({status}); try again later.",
    "server": "had an error ({status}); try again later.",
    "other": "rejected the recording ({status}).",
}
