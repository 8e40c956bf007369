"""Bringing a voice file: good ones are listed, broken or hostile ones refused with one
line and nothing left behind (voice_files.py)."""

from __future__ import annotations

import io
import json
import os
import pickle

import numpy as np
import pytest

from companion_desktop.llm.neural_voice import (
    VoiceFileError,
    check_kokoro_voice,
    check_piper_voice,
    import_voice,
    list_voices,
    remove_voice,
)
from tests.llm.neural_voice.conftest import needs_espeak, needs_kokoro
from tests.llm.neural_voice.tiny_piper import model_bytes, settings, write_voice

RNG = np.random.default_rng(7)


def style(rows: int = 510) -> np.ndarray:
    return (RNG.standard_normal((rows, 1, 256)) * 0.2).astype(np.float32)


def npy(path, array) -> str:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=True)
    path.write_bytes(buffer.getvalue())
    return path


def nothing_left(data_dir) -> bool:
    folder = data_dir / "voices"
    return not folder.exists() or not [p for p in folder.rglob("*") if p.is_file()]


def test_kokoro_voices_in_both_formats_are_imported_and_listed(tmp_path):
    array = style()
    voice = import_voice(tmp_path / "data", npy(tmp_path / "af_heart.npy", array))
    assert (voice.id, voice.kind, voice.language) == ("kokoro-file:af_heart", "kokoro-file",
                                                      "en-us")
    raw = tmp_path / "my voice!.bin"
    raw.write_bytes(array.astype("<f4").tobytes())
    second = import_voice(tmp_path / "data", raw)
    assert second.id == "kokoro-file:my_voice"
    flat = import_voice(tmp_path / "data", npy(tmp_path / "flat.npy", array.reshape(510, 256)),
                        name="Calm")
    assert flat.id == "kokoro-file:Calm"
    ids = [v.id for v in list_voices(tmp_path / "data")]
    assert {"kokoro-file:af_heart", "kokoro-file:my_voice", "kokoro-file:Calm"} <= set(ids)
    stored = np.load(tmp_path / "data" / "voices" / "kokoro" / "my_voice.npy")
    assert stored.shape == (510, 256) and np.array_equal(stored, array.reshape(510, 256))
    remove_voice(tmp_path / "data", "kokoro-file:Calm")
    assert "kokoro-file:Calm" not in [v.id for v in list_voices(tmp_path / "data")]
    with pytest.raises(VoiceFileError, match="built in"):
        remove_voice(tmp_path / "data", "kokoro:jf_alpha")


class Boom:
    """Pickled, it would create a file when loaded."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __reduce__(self):
        return (open, (self.target, "w"))


def test_broken_and_hostile_kokoro_voices_are_refused(tmp_path):
    good = tmp_path / "good.npy"
    npy(good, style())
    cases = {
        "truncated.npy": good.read_bytes()[:-3000],
        "wrong_shape.npy": None, "nan.npy": None, "ints.npy": None, "pickle.npy": None,
        "huge.bin": b"\0" * (5 * 1024 * 1024),
        "odd.bin": b"\0" * (256 * 4 * 3 + 12),
        "empty.bin": b"",
        "text.npy": b"hello, I am not numpy",
        "voice.wav": b"RIFF....WAVE",
    }
    npy(tmp_path / "wrong_shape.npy", np.zeros((511, 2, 128), np.float32))
    bad = style()
    bad[3, 0, 7] = np.nan
    npy(tmp_path / "nan.npy", bad)
    npy(tmp_path / "ints.npy", np.zeros((510, 1, 256), np.int32))
    victim = tmp_path / "pwned.txt"
    npy(tmp_path / "pickle.npy", np.array([Boom(str(victim))], dtype=object))
    for name, data in cases.items():
        if data is not None:
            (tmp_path / name).write_bytes(data)
    messages = {}
    for name in cases:
        with pytest.raises(VoiceFileError) as caught:
            import_voice(tmp_path / "data", tmp_path / name)
        messages[name] = str(caught.value)
        assert "\n" not in messages[name] and name.split(".")[0] in messages[name]
    assert "too large" in messages["huge.bin"] and "multiple of 256" in messages["odd.bin"]
    assert "shape" in messages["wrong_shape.npy"] and "not numbers" in messages["nan.npy"]
    assert "Python objects" in messages["pickle.npy"] and not victim.exists()
    assert nothing_left(tmp_path / "data")
    assert pickle.dumps(Boom("x"))  # the hostile file really held a working pickle


@needs_espeak
def test_piper_voices_are_checked_before_they_are_copied(tmp_path):
    src = tmp_path / "src"
    model = write_voice(src, "ok")
    assert check_piper_voice(model).sample_rate == 16_000

    def refused(path, match):
        with pytest.raises(VoiceFileError, match=match) as caught:
            import_voice(tmp_path / "data", path)
        assert "\n" not in str(caught.value)

    lonely = src / "lonely.onnx"
    lonely.write_bytes(model.read_bytes())
    refused(lonely, "needs its settings")
    for name, content in (("text", b"this is not a model at all" * 4),
                          ("fake", b"\x08\x07" + os.urandom(5000))):
        (src / f"{name}.onnx").write_bytes(content)
        (src / f"{name}.onnx.json").write_text(json.dumps(settings()), "utf-8")
        refused(src / f"{name}.onnx", "not an ONNX model|not a usable ONNX model")
    odd = src / "odd.onnx"
    odd.write_bytes(model_bytes(input_name="tokens"))
    (src / "odd.onnx.json").write_text(json.dumps(settings()), "utf-8")
    refused(odd, "not a Piper voice")
    bad_settings = {
        "bomb": "[" * 200_000 + "]" * 200_000,
        "big": json.dumps(settings(extra="x" * (1024 * 1024))),
        "rate": json.dumps(settings(rate=96_000)),
        "map": json.dumps(settings(phoneme_id_map={"a": ["1"], "b": [-2]})),
        "kind": json.dumps(settings(phoneme_type="text")),
        "speakers": json.dumps(settings(num_speakers=0)),
        "scales": json.dumps(settings(inference={"noise_scale": "loud"})),
        "voice": json.dumps(settings(espeak={"voice": "--path=/etc"})),
        "list": "[1, 2, 3]",
    }
    for name, text in bad_settings.items():
        path = src / f"{name}.onnx"
        path.write_bytes(model.read_bytes())
        (src / f"{name}.onnx.json").write_text(text, "utf-8")
        refused(path, "settings|voice|JSON|phoneme|rate|speakers|too large|type")
    huge = src / "huge.onnx"
    with huge.open("wb") as out:  # sparse: 151 MB that take no room
        out.write(model.read_bytes())
        out.truncate(151 * 1024 * 1024)
    (src / "huge.onnx.json").write_text(json.dumps(settings()), "utf-8")
    refused(huge, "too large")
    assert nothing_left(tmp_path / "data")
    assert import_voice(tmp_path / "data", model).id == "piper:ok"


@needs_kokoro
@needs_espeak
def test_an_imported_kokoro_voice_speaks(neural, neural_data, tmp_path):
    from companion_desktop.llm.neural_voice import kokoro_files

    original = kokoro_files.load_voices()["jf_gongitsune"]
    source = npy(tmp_path / "mine.npy", original.reshape(-1, 1, 256))
    check_kokoro_voice(source)
    import_voice(neural_data["data_dir"], source)
    mine = neural.synthesize("Good night.", "kokoro-file:mine")
    built_in = neural.synthesize("Good night.", "kokoro:jf_gongitsune")
    assert mine.pcm == built_in.pcm and mine.sample_rate == 24_000
