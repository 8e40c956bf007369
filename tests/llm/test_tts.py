"""Text-to-speech: real espeak-ng syntheses, WAV decoding, and the OpenAI-compatible
backend against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import io
import math
import shutil
import struct
import wave
from array import array

import httpx
import numpy as np
import pytest

from companion_desktop.llm.tts import (
    MAX_TEXT_CHARS,
    OPENAI_VOICES,
    EspeakBackend,
    OpenAISpeechBackend,
    SpeechAudio,
    TtsError,
    VoiceOptions,
    cap_text,
    create_tts,
    decode_wav,
)
from companion_desktop.storage.settings import VoiceSettings
from tests.llm.conftest import KEY
from tests.llm.provider_server import JsonReply, ProviderServer, RawReply, StreamReply

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed")
SENTENCE = "Hello there. How are you?"


def tone(rate: int = 24_000, seconds: float = 0.25, hz: float = 440.0) -> list[int]:
    n = int(rate * seconds)
    return [round(12_000 * math.sin(2 * math.pi * hz * i / rate)) for i in range(n)]


def wav_bytes(samples: list[int], rate: int = 24_000, width: int = 2, channels: int = 1) -> bytes:
    """A WAV written by the stdlib ``wave`` module; ``samples`` are 16-bit values, widened
    or narrowed to ``width`` bytes and repeated on every channel."""
    frames = bytearray()
    for s in samples:
        if width == 1:
            sample = bytes([(s >> 8) + 128])
        else:
            sample = (s << (8 * (width - 2))).to_bytes(width, "little", signed=True)
        frames += sample * channels
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(bytes(frames))
    return out.getvalue()


def samples_of(audio: SpeechAudio) -> list[int]:
    return list(array("h", audio.pcm))


def f0_hz(audio: SpeechAudio) -> float:
    """Fundamental frequency of a sustained vowel (autocorrelation, 60-400 Hz)."""
    x = np.frombuffer(audio.pcm, "<i2").astype(float)
    seg = x[len(x) // 4: len(x) // 4 + 4096]
    ac = np.correlate(seg, seg, "full")[len(seg) - 1:]
    lo, hi = audio.sample_rate // 400, audio.sample_rate // 60
    return audio.sample_rate / (lo + int(np.argmax(ac[lo:hi])))


# -- espeak-ng ----------------------------------------------------------------------------
@needs_espeak
def test_espeak_speaks_a_sentence_as_16_bit_mono_pcm():
    audio = EspeakBackend().synthesize(SENTENCE, None, VoiceOptions())
    assert audio.sample_rate == 22_050
    assert len(audio.pcm) % 2 == 0
    assert 0.8 <= audio.duration <= 4.0
    assert max(abs(s) for s in samples_of(audio)) > 3000  # real speech, not silence


@needs_espeak
def test_rate_and_pitch_change_the_speech():
    backend = EspeakBackend()
    fast = backend.synthesize(SENTENCE, "en-us", VoiceOptions(rate=2.0))
    slow = backend.synthesize(SENTENCE, "en-us", VoiceOptions(rate=0.5))
    assert fast.duration < 0.6 * slow.duration
    high = backend.synthesize("aaaaaah", None, VoiceOptions(pitch=2.0))
    low = backend.synthesize("aaaaaah", None, VoiceOptions(pitch=0.5))
    assert f0_hz(high) > 1.5 * f0_hz(low)


@needs_espeak
def test_voices_are_listed_with_en_and_cached():
    backend = EspeakBackend()
    voices = backend.voices()
    ids = {v.id for v in voices}
    assert {"en", "en-us", "fr"} <= ids
    us = next(v for v in voices if v.id == "en-us")
    assert us.name == "English (America)" and us.language == "en-us"
    backend.executable = "no-such-espeak"  # a second call must not run the program
    assert backend.voices() == voices


@needs_espeak
@pytest.mark.parametrize("voice", ["zz-nothing", "-w/tmp/evil.wav", "en us", "x" * 80])
def test_an_unknown_voice_is_a_clear_error(voice):
    with pytest.raises(TtsError, match="espeak-ng has no voice") as info:
        EspeakBackend().synthesize("hi", voice)
    assert "Settings > Voice" in str(info.value)


@needs_espeak
def test_voice_variants_are_accepted():
    assert EspeakBackend().synthesize("hi", "en+f3").duration > 0.1


@needs_espeak
def test_text_goes_through_stdin_never_a_shell_or_the_options(tmp_path):
    marker = tmp_path / "made"
    text = f"--version $(touch {marker}) `touch {marker}`; echo hi"
    audio = EspeakBackend().synthesize(text)
    assert audio.duration > 1.0  # all of it spoken, not espeak-ng's version line
    assert not marker.exists()


def test_missing_espeak_is_reported():
    backend = EspeakBackend("no-such-espeak-ng-here")
    assert backend.available() is False
    with pytest.raises(TtsError, match="espeak-ng is not installed"):
        backend.synthesize("hello")
    assert backend.synthesize("   ") == SpeechAudio(b"", 22_050)  # nothing to say: no run


def test_text_is_capped_at_a_word_without_control_characters():
    text = "word " * 2000
    capped = cap_text(text)
    assert len(capped) <= MAX_TEXT_CHARS and capped.endswith("word")
    assert cap_text("a\x00b\x1bc\nd") == "a b c d"


@pytest.mark.parametrize(("given", "rate", "pitch"), [
    ((5.0, 0.1), 2.0, 0.5), ((float("nan"), 1.3), 1.0, 1.3), (("fast", None), 1.0, 1.0),
])
def test_voice_options_are_clamped(given, rate, pitch):
    options = VoiceOptions(*given)
    assert (options.rate, options.pitch) == (rate, pitch)


# -- WAV decoding -------------------------------------------------------------------------
@pytest.mark.parametrize("width", [1, 2, 3, 4])
@pytest.mark.parametrize("channels", [1, 2])
def test_wav_of_any_integer_width_and_channels_becomes_16_bit_mono(width, channels):
    samples = tone(16_000, 0.05)
    audio = decode_wav(wav_bytes(samples, 16_000, width, channels))
    assert audio.sample_rate == 16_000
    got = samples_of(audio)
    tolerance = 256 if width == 1 else 1
    assert len(got) == len(samples)
    assert max(abs(a - b) for a, b in zip(got, samples, strict=True)) <= tolerance


def test_float_and_extensible_wavs_are_read():
    values = [0.0, 0.5, -0.5, 1.5, float("nan")]
    data = array("f", values).tobytes()
    fmt = struct.pack("<HHIIHH", 0xFFFE, 1, 8000, 32000, 4, 32) + struct.pack(
        "<HHI", 22, 32, 0) + struct.pack("<H", 3) + bytes(14)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack(
        "<I", len(data)) + data
    audio = decode_wav(b"RIFF" + struct.pack("<I", len(body)) + body)
    assert audio.sample_rate == 8000
    assert samples_of(audio) == [0, 16384, -16384, 32767, 0]


@needs_espeak
def test_espeak_stdout_wav_with_its_bogus_data_length_is_read_to_the_end():
    import subprocess

    raw = subprocess.run(["espeak-ng", "--stdout"], input=b"Hello", capture_output=True,
                         check=True, timeout=30).stdout
    assert struct.unpack_from("<I", raw, 40)[0] >= 0x7FFF0000  # the header lies
    audio = decode_wav(raw)
    assert len(audio.pcm) == len(raw) - 44


@pytest.mark.parametrize(("data", "message"), [
    (b"ID3\x03" + bytes(100), "not a WAV file"),
    (b"RIFF\x10\x00\x00\x00WAVEdata\x04\x00\x00\x00abcd", "no format header"),
    (b"RIFF\x04\x00\x00\x00WAVE", "no samples"),
    (wav_bytes([1, 2, 3])[:36] + b"data" + struct.pack("<I", 6) + bytes(6), None),
])
def test_bad_wavs_are_clear_errors(data, message):
    if message is None:  # a valid file for contrast
        assert decode_wav(data).duration == pytest.approx(3 / 24_000)
        return
    with pytest.raises(TtsError, match=message):
        decode_wav(data)


def test_unsupported_sample_formats_are_named():
    fmt = struct.pack("<HHIIHH", 3, 1, 8000, 64000, 8, 64)
    body = b"WAVEfmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", 8) + bytes(8)
    with pytest.raises(TtsError, match="format 3, 64 bits"):
        decode_wav(b"RIFF" + struct.pack("<I", len(body)) + body)


# -- OpenAI-compatible server -------------------------------------------------------------
@pytest.fixture
def server():
    with ProviderServer() as srv:
        yield srv


@pytest.fixture
def client():
    with httpx.Client(timeout=httpx.Timeout(5.0, connect=2.0)) as c:
        yield c


def backend_for(server: ProviderServer, client: httpx.Client, key: str | None = KEY):
    return OpenAISpeechBackend(server.url + "/v1/", "tts-1-hd", key, client)


def test_openai_speech_request_and_wav_reply(server, client):
    samples = tone()
    server.on("POST", "/v1/audio/speech", RawReply(wav_bytes(samples), content_type="audio/wav"))
    audio = backend_for(server, client).synthesize("Hi there!", "nova", VoiceOptions(1.25, 0.7))
    assert audio.sample_rate == 24_000 and samples_of(audio) == samples
    request = server.requests_to("/v1/audio/speech")[0]
    assert request.json == {"model": "tts-1-hd", "input": "Hi there!", "voice": "nova",
                            "response_format": "wav", "speed": 1.25}
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"


def test_no_key_sends_no_authorization_and_default_voice(server, client):
    server.on("POST", "/v1/audio/speech", RawReply(wav_bytes(tone()), content_type="audio/x-wav"))
    backend_for(server, client, key=None).synthesize("Hi")
    request = server.requests[0]
    assert "authorization" not in request.headers
    assert request.json["voice"] == "alloy"


def test_bad_key_is_a_clear_error_without_the_key(server, client):
    echo = {"error": {"message": f"Incorrect API key provided: {KEY}", "type": "auth"}}
    server.on("POST", "/v1/audio/speech", JsonReply(echo, status=401))
    with pytest.raises(TtsError) as info:
        backend_for(server, client).synthesize("Hi")
    message = str(info.value)
    assert KEY not in message and KEY[:12] not in message
    assert "401" in message and "Settings > Voice" in message and "***" in message


@pytest.mark.parametrize(("status", "words"), [
    (404, "no model \"tts-1-hd\""), (429, "rate-limiting"), (500, "had an error"),
    (503, "had an error"), (400, "rejected the request"),
])
def test_http_errors_have_plain_messages(server, client, status, words):
    server.on("POST", "/v1/audio/speech",
              JsonReply({"error": {"message": "nope"}}, status=status))
    with pytest.raises(TtsError, match=words):
        backend_for(server, client).synthesize("Hi")


def test_mp3_is_refused_by_name(server, client):
    server.on("POST", "/v1/audio/speech", RawReply(b"ID3\x03" + bytes(64),
                                                   content_type="audio/mpeg"))
    with pytest.raises(TtsError, match=r"sent audio/mpeg; expected WAV"):
        backend_for(server, client).synthesize("Hi")


def test_raw_pcm_and_unlabelled_riff_are_accepted(server, client):
    pcm = array("h", tone()).tobytes()
    server.on("POST", "/v1/audio/speech",
              RawReply(pcm + b"\x01", content_type="audio/pcm"),
              RawReply(wav_bytes(tone(), 22_050), content_type="application/octet-stream"),
              RawReply(b"not audio", content_type="application/octet-stream"))
    backend = backend_for(server, client)
    assert backend.synthesize("a") == SpeechAudio(pcm, 24_000)
    assert backend.synthesize("b").sample_rate == 22_050
    with pytest.raises(TtsError, match="application/octet-stream; expected WAV"):
        backend.synthesize("c")


def test_unreachable_and_slow_servers(client):
    with ProviderServer() as srv:
        url = srv.url
    with pytest.raises(TtsError, match="Could not reach the speech server"):
        OpenAISpeechBackend(url + "/v1", "tts-1", KEY, client).synthesize("Hi")
    with ProviderServer() as srv, httpx.Client(timeout=0.3) as quick:
        srv.on("POST", "/v1/audio/speech", StreamReply([], head_delay_s=2.0))
        with pytest.raises(TtsError, match="did not answer in time"):
            OpenAISpeechBackend(srv.url + "/v1", "tts-1", KEY, quick).synthesize("Hi")


def test_missing_address_is_a_settings_hint(client):
    with pytest.raises(TtsError, match="address"):
        OpenAISpeechBackend("", "tts-1", None, client).synthesize("Hi")


def test_voices_are_openai_s_plus_the_server_s(server, client):
    server.on("GET", "/v1/audio/voices", JsonReply(
        {"voices": ["af_bella", "nova", {"id": "bm_george", "name": "George",
                                         "language": "en-gb"}, 7, {"name": ""}]}))
    voices = backend_for(server, client).voices()
    ids = [v.id for v in voices]
    assert ids[: len(OPENAI_VOICES)] == list(OPENAI_VOICES)
    assert ids[len(OPENAI_VOICES):] == ["af_bella", "bm_george"]
    assert voices[-1].name == "George" and voices[-1].language == "en-gb"
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("reply", [
    JsonReply({"error": {"message": "no"}}, status=404),
    RawReply("not json", content_type="text/plain"),
    JsonReply(["a", "b"]),
])
def test_voice_list_failures_fall_back_to_openai_s(server, client, reply):
    server.on("GET", "/v1/audio/voices", reply)
    assert [v.id for v in backend_for(server, client).voices()] == list(OPENAI_VOICES)


def test_create_tts_follows_the_settings(client, tmp_path, monkeypatch):
    from companion_desktop.llm.neural_voice import kokoro_files, speaking

    monkeypatch.setattr(speaking, "_home", None)
    assert isinstance(create_tts(VoiceSettings(), None), EspeakBackend)  # no folder set yet
    assert isinstance(create_tts(VoiceSettings(backend="espeak"), None), EspeakBackend)
    speaking.configure(tmp_path)
    natural = create_tts(VoiceSettings(), None)
    if kokoro_files.missing() is None and shutil.which("espeak-ng"):
        assert isinstance(natural, speaking.SpeakingVoice)  # the default, where installed
        assert natural.neural is create_tts(VoiceSettings(), None).neural  # one model
    else:
        assert isinstance(natural, EspeakBackend)
    chosen = VoiceSettings(enabled=True, backend="openai", base_url="http://127.0.0.1:9/v1",
                           model="kokoro")
    backend = create_tts(chosen, KEY, client)
    assert isinstance(backend, OpenAISpeechBackend)
    assert (backend.base_url, backend.model, backend.api_key) == (
        "http://127.0.0.1:9/v1", "kokoro", KEY)
    assert backend.client is client
    own = create_tts(chosen, None)
    assert isinstance(own.client, httpx.Client) and own.api_key is None
    own.client.close()
