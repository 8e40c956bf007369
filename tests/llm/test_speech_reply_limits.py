"""A speech server's replies cannot exhaust the machine: audio past MAX_AUDIO_BYTES and a
voice list past its cap are stopped as they arrive, and a request that takes longer than
its deadline (a server trickling bytes, or silent after its headers) is stopped there.
Against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import struct
import time

import httpx
import pytest

from companion_desktop.llm.tts import (
    MAX_AUDIO_BYTES,
    MAX_VOICE_LIST_BYTES,
    OPENAI_VOICES,
    OpenAISpeechBackend,
    TtsError,
)
from tests.llm.conftest import KEY
from tests.llm.flood_reply import FloodReply
from tests.llm.provider_server import ProviderServer, RawReply, StreamReply
from tests.llm.test_tts import client, server, tone, wav_bytes  # noqa: F401 - fixtures

MIB = 1024 * 1024


def backend(server: ProviderServer, client: httpx.Client, deadline_s: float = 300.0):
    return OpenAISpeechBackend(server.url + "/v1", "tts-1", KEY, client, deadline_s)


def wav_head(data_bytes: int, rate: int = 24_000) -> bytes:
    fmt = struct.pack("<HHIIHH", 1, 1, rate, 2 * rate, 2, 16)
    return (b"RIFF" + struct.pack("<I", 36 + data_bytes) + b"WAVEfmt " + struct.pack("<I", 16)
            + fmt + b"data" + struct.pack("<I", data_bytes))


def test_audio_past_the_cap_is_refused_as_it_arrives(server, client):
    flood = FloodReply(wav_head(2 * MAX_AUDIO_BYTES), 2 * MAX_AUDIO_BYTES + 44, filler=b"\0",
                       content_type="audio/wav")
    server.on("POST", "/v1/audio/speech", flood, RawReply(wav_bytes(tone()),
                                                          content_type="audio/wav"))
    speech = backend(server, client)
    with pytest.raises(TtsError) as caught:
        speech.synthesize("Hello")
    assert flood.sent < MAX_AUDIO_BYTES + 16 * MIB  # the cap and the sockets' buffers
    assert str(caught.value) == ("The speech server sent a reply larger than 64 MiB, the most "
                                 "the app accepts; the rest was not read.")
    assert speech.synthesize("Hello").duration == pytest.approx(0.25)  # the next one works


def test_a_voice_list_past_its_cap_is_left_unread(server, client):
    flood = FloodReply(b'{"voices": ["', 32 * MIB, tail=b'"]}')
    server.on("GET", "/v1/audio/voices", flood)
    assert [v.id for v in backend(server, client).voices()] == list(OPENAI_VOICES)
    assert flood.sent < MAX_VOICE_LIST_BYTES + 16 * MIB


@pytest.mark.parametrize("reply", [
    # a WAV a few bytes every 50 ms: each within the read timeout, the whole 3 s
    StreamReply([wav_head(120), *[b"\0\0"] * 60], delay_s=0.05, content_type="audio/wav"),
    # the headers, then silence
    StreamReply([wav_head(2) + b"\0\0"], then="stall", at=0, stall_s=3.0,
                content_type="audio/wav"),
], ids=["trickle", "stall"])
def test_speech_that_takes_longer_than_the_deadline_is_stopped(server, client, reply):
    server.on("POST", "/v1/audio/speech", reply)
    started = time.monotonic()
    with pytest.raises(TtsError) as caught:
        backend(server, client, deadline_s=0.5).synthesize("Hello")
    assert time.monotonic() - started < 1.5
    assert str(caught.value) == (f"The speech server at {server.url}/v1 took longer than "
                                 "0.5 s to answer and was stopped.")


@pytest.mark.parametrize("rate", [3_999, 1_000, 384_001])
def test_speech_whose_rate_is_outside_4_to_384_khz_is_refused(server, client, rate):
    """Played and heard, speech is resampled: 64 MiB at 1 kHz would be 2 GB at 16 kHz."""
    server.on("POST", "/v1/audio/speech", RawReply(wav_bytes(tone(rate), rate),
                                                   content_type="audio/wav"))
    with pytest.raises(TtsError) as caught:
        backend(server, client).synthesize("Hello")
    assert f"1 channels at {rate} Hz; that cannot be played (1-16 channels at 4-384 kHz " \
           "can)." in str(caught.value)


@pytest.mark.parametrize("rate", [4_000, 384_000])
def test_speech_at_the_ends_of_the_range_is_played(server, client, rate):
    server.on("POST", "/v1/audio/speech", RawReply(wav_bytes(tone(rate), rate),
                                                   content_type="audio/wav"))
    assert backend(server, client).synthesize("Hello").sample_rate == rate
