"""Vector bytes: float32 little-endian round trip, and refusal of anything else."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.memory.vectors import from_bytes, l2_normalize, to_bytes


def test_round_trip_is_exact_float32_little_endian():
    vec = np.random.default_rng(1).standard_normal(384).astype(np.float32)
    data = to_bytes(vec)
    assert isinstance(data, bytes) and len(data) == 384 * 4
    assert data == vec.astype("<f4").tobytes()
    assert to_bytes(vec.astype(">f4")) == data  # big-endian input is stored little-endian
    back = from_bytes(data, 384)
    assert back is not None and back.dtype == np.float32 and back.shape == (384,)
    np.testing.assert_array_equal(back, vec)
    back[0] = 5.0  # writable, not a view of the bytes
    assert from_bytes(memoryview(data), 384) is not None
    assert from_bytes(bytearray(data), 384) is not None


def test_float64_input_is_stored_as_float32():
    vec = np.linspace(-1, 1, 8)
    assert len(to_bytes(vec)) == 32
    np.testing.assert_allclose(from_bytes(to_bytes(vec), 8), vec, rtol=1e-6)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00" * 3, b"\x00" * (384 * 4 - 4), b"\x00" * (384 * 4 + 1), b"\x00" * 768 * 4, None],
)
def test_wrong_lengths_are_refused(data):
    assert from_bytes(data, 384) is None


def test_non_finite_values_and_nonsense_are_refused():
    assert from_bytes(to_bytes(np.array([1.0, np.nan])), 2) is None
    assert from_bytes(to_bytes(np.array([np.inf, 0.0])), 2) is None
    assert from_bytes("not bytes", 2) is None  # type: ignore[arg-type]
    assert from_bytes(b"\x00" * 8, 0) is None


def test_l2_normalize_keeps_zero_rows():
    out = l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])
    assert out.dtype == np.float32
