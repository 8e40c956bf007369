"""Tiny Piper-format voices built here with the ``onnx`` helper API: each phoneme id plays
160 samples of its own tone, so a voice's output is checkable sample by sample.

The model has Piper's inputs (``input`` int64 [1, N], ``input_lengths`` int64 [1],
``scales`` float32 [3], and ``sid`` int64 [1] with several speakers) and multiplies the
audio by the length scale (and the speaker's gain), so the runner's scales show in it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

SAMPLES_PER_ID = 160
SYMBOLS = ("_^$ ,.!?;:ˈˌːabcdefhijklmnopqrstuvwxyzæçðŋɐɑɒɔəɚɛɜɡɪɬɹɾʃʊʌʒʔθᵻ" +
           "\u0329")  # the syllabic mark (n̩) as espeak-ng writes it
ID_MAP = {symbol: [i] for i, symbol in enumerate(SYMBOLS)}


def onnx_module():
    try:
        import onnx
    except ImportError:
        pytest.skip("onnx (the test tool that builds Piper voices) is not installed")
    return onnx


def tone_table(rate: int) -> np.ndarray:
    t = np.arange(SAMPLES_PER_ID) / rate
    return np.stack([0.5 * np.sin(2 * np.pi * (200 + 20 * i) * t + 0.3)
                     for i in range(len(SYMBOLS))]).astype(np.float32)


def model_bytes(rate: int = 16_000, speakers: int = 1, input_name: str = "input") -> bytes:
    onnx = onnx_module()
    from onnx import TensorProto, helper, numpy_helper

    inits = [numpy_helper.from_array(tone_table(rate), "table"),
             numpy_helper.from_array(np.array([1, 1, -1], np.int64), "shape"),
             numpy_helper.from_array(np.array([1], np.int64), "length_at")]
    nodes = [helper.make_node("Gather", ["table", input_name], ["rows"], axis=0),
             helper.make_node("Reshape", ["rows", "shape"], ["flat"]),
             helper.make_node("Gather", ["scales", "length_at"], ["length"], axis=0),
             helper.make_node("Mul", ["flat", "length"], ["scaled" if speakers > 1 else "output"])]
    inputs = [helper.make_tensor_value_info(input_name, TensorProto.INT64, [1, "n"]),
              helper.make_tensor_value_info("input_lengths", TensorProto.INT64, [1]),
              helper.make_tensor_value_info("scales", TensorProto.FLOAT, [3])]
    if speakers > 1:
        gains = np.linspace(1.0, 0.5, speakers).astype(np.float32)
        inits.append(numpy_helper.from_array(gains, "gains"))
        nodes += [helper.make_node("Gather", ["gains", "sid"], ["gain"], axis=0),
                  helper.make_node("Mul", ["scaled", "gain"], ["output"])]
        inputs.append(helper.make_tensor_value_info("sid", TensorProto.INT64, [1]))
    graph = helper.make_graph(nodes, "tiny_piper", inputs,
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT,
                                                             [1, 1, "t"])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def settings(rate: int = 16_000, speakers: int = 1, **changes) -> dict:
    config = {"audio": {"sample_rate": rate}, "espeak": {"voice": "en-us"},
              "inference": {"noise_scale": 0.667, "length_scale": 1.0, "noise_w": 0.8},
              "phoneme_type": "espeak", "num_speakers": speakers,
              "language": {"code": "en_US"}, "phoneme_id_map": ID_MAP}
    config.update(changes)
    return config


def write_voice(folder: Path, name: str = "tiny", rate: int = 16_000, speakers: int = 1,
                **changes) -> Path:
    """``folder/name.onnx`` and its ``.onnx.json``; the model's path."""
    folder.mkdir(parents=True, exist_ok=True)
    model = folder / f"{name}.onnx"
    model.write_bytes(model_bytes(rate, speakers))
    (folder / f"{name}.onnx.json").write_text(json.dumps(settings(rate, speakers, **changes)),
                                               "utf-8")
    return model
