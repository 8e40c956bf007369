"""Nothing but pixels leaves the app: real files built here with C2PA chunks, text, EXIF
GPS, comments and bytes after the end marker; what is sent and what is kept (the
keepsake files on disk) contains none of it and shows the same picture."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import ExifTags, Image

from companion_desktop.pipeline.image_containers import is_bare
from companion_desktop.pipeline.images import prepare_image_bytes, prepare_image_file
from companion_desktop.pipeline.turn_parts import keep_photo
from companion_desktop.storage import repository
from companion_desktop.storage.db import Database
from tests.conftest import T0

MARKERS = (b"caBX", b"c2pa", b"tEXt", b"iTXt", b"zTXt", b"eXIf", b"Secret Lane", b"GPS",
           b"Exif", b"TRAILING-SECRET", b"home address", b"XMP ", b"<x:xmpmeta", b"JUMB")
TRAILER = b"TRAILING-SECRET: 51.5007N 0.1246W"


def picture(width: int = 64, height: int = 48) -> Image.Image:
    """A smooth gradient (JPEG keeps it within a few levels)."""
    x = np.linspace(0, 255, width, dtype=np.float64)[None, :].repeat(height, 0)
    y = np.linspace(0, 255, height, dtype=np.float64)[:, None].repeat(width, 1)
    rgb = np.stack([x, y, np.full_like(x, 128)], axis=-1).round().astype(np.uint8)
    return Image.fromarray(rgb, "RGB")


def encode(image: Image.Image, fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_with(data: bytes, *chunks: bytes) -> bytes:
    """``data`` (a PNG) with ``chunks`` inserted before IEND."""
    end = data.rindex(b"IEND") - 4
    return data[:end] + b"".join(chunks) + data[end:]


def jpeg_with(data: bytes, *segments: tuple[int, bytes]) -> bytes:
    """``data`` (a JPEG) with APPn/COM ``segments`` right after SOI."""
    extra = b"".join(bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body
                     for marker, body in segments)
    return data[:2] + extra + data[2:]


def gps_exif() -> bytes:
    exif = Image.Exif()
    exif[ExifTags.Base.Make] = "PhoneCo"
    exif.get_ifd(ExifTags.IFD.GPSInfo).update({1: "N", 2: (51.0, 30.0, 2.5), 3: "W",
                                               4: (0.0, 7.0, 28.6)})
    return exif.tobytes()


def assert_clean(data: bytes, original: Image.Image, tolerance: int) -> None:
    for marker in MARKERS:
        assert marker not in data, marker
    assert is_bare(data, Image.open(io.BytesIO(data)).format)  # and nothing after the end marker
    with Image.open(io.BytesIO(data)) as sent:
        pixels = np.asarray(sent.convert("RGB"), dtype=np.int16)
    want = np.asarray(original.convert("RGB"), dtype=np.int16)
    assert pixels.shape == want.shape
    assert int(np.abs(pixels - want).max()) <= tolerance
    assert float(np.abs(pixels - want).mean()) <= 3.0


C2PA_BOX = b"\x00\x00\x00\x20jumbc2pa" + b"c2pa.claim: camera=PhoneCo; gps=51.5,-0.12"


@pytest.mark.parametrize("extra", [
    pytest.param((png_chunk(b"caBX", C2PA_BOX),), id="c2pa-only"),
    pytest.param((png_chunk(b"caBX", C2PA_BOX), png_chunk(b"tEXt", b"Location\x00Secret Lane 5")),
                 id="c2pa-and-text"),
    pytest.param((png_chunk(b"zTXt", b"Comment\x00\x00" + zlib.compress(b"home address")),
                  png_chunk(b"iTXt", b"Where\x00\x00\x00\x00\x00Secret Lane")),
                 id="compressed-text"),
    pytest.param((png_chunk(b"eXIf", gps_exif()),), id="exif-chunk"),
    pytest.param((png_chunk(b"prVt", b"Secret Lane"),), id="unknown-private-chunk"),
])
@pytest.mark.parametrize("trailing", [b"", TRAILER], ids=["", "trailing"])
def test_png_private_chunks_and_trailing_bytes_never_leave(extra, trailing, tmp_path: Path) -> None:
    image = picture()
    data = png_with(encode(image, "PNG"), *extra) + trailing
    path = tmp_path / "photo.png"
    path.write_bytes(data)
    prepared = prepare_image_file(path)
    assert prepared.converted and prepared.mime_type == "image/png"
    assert_clean(prepared.data, image, tolerance=0)  # PNG is re-encoded losslessly
    assert_clean(prepared.thumbnail, image.resize(Image.open(io.BytesIO(prepared.thumbnail)).size,
                                                 Image.Resampling.LANCZOS), tolerance=40)


def test_clean_png_with_only_trailing_bytes_is_cut(tmp_path: Path) -> None:
    image = picture()
    clean = encode(image, "PNG")
    prepared = prepare_image_bytes(clean + TRAILER)
    assert TRAILER not in prepared.data and prepared.data.endswith(b"IEND\xaeB`\x82")
    assert_clean(prepared.data, image, tolerance=0)
    assert prepare_image_bytes(clean).data == clean  # a bare file still goes byte for byte


@pytest.mark.parametrize("segments", [
    pytest.param(((0xE1, b"Exif\x00\x00" + gps_exif()),), id="exif-gps"),
    pytest.param(((0xEB, b"JP\x00\x00\x00\x00\x00\x01" + C2PA_BOX),), id="c2pa-app11"),
    pytest.param(((0xE1, b"http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta>Secret Lane</x:xmpmeta>"),),
                 id="xmp"),
    pytest.param(((0xFE, b"home address"),), id="comment"),
    pytest.param((), id="plain"),
])
def test_jpeg_metadata_and_bytes_after_eoi_never_leave(segments) -> None:
    image = picture()
    data = jpeg_with(encode(image, "JPEG", quality=95), *segments) + TRAILER
    prepared = prepare_image_bytes(data, "photo.jpg")
    assert prepared.converted and prepared.mime_type == "image/jpeg"
    assert_clean(prepared.data, image, tolerance=16)


def test_gif_comment_and_webp_exif_never_leave() -> None:
    blocks = Image.new("RGB", (64, 48), (200, 40, 40))
    blocks.paste((40, 40, 200), (32, 0, 64, 48))  # two flat colours: a GIF keeps them exactly
    gif = encode(blocks.convert("P", palette=Image.Palette.ADAPTIVE), "GIF",
                 comment=b"home address")
    prepared = prepare_image_bytes(gif + TRAILER, "a.gif")
    assert prepared.converted
    assert_clean(prepared.data, blocks, tolerance=64)  # JPEG's chroma blurs the red/blue edge
    image = picture()
    webp = encode(image, "WEBP", lossless=True, exif=gps_exif())
    prepared = prepare_image_bytes(webp + TRAILER, "a.webp")
    assert prepared.converted
    assert_clean(prepared.data, image, tolerance=16)


def test_heic_with_gps_exif_becomes_bare_jpeg() -> None:
    import pillow_heif

    pillow_heif.register_heif_opener()
    image = picture()
    try:
        data = encode(image, "HEIF", quality=95, exif=gps_exif())
    except (KeyError, OSError) as error:  # no HEVC encoder in this build
        pytest.skip(f"cannot write HEIC here: {error}")
    prepared = prepare_image_bytes(data + TRAILER, "photo.heic")
    assert prepared.original_format == "HEIF" and prepared.mime_type == "image/jpeg"
    assert_clean(prepared.data, image, tolerance=24)


def test_the_kept_photo_on_disk_is_bare(tmp_path: Path) -> None:
    image = picture()
    data = png_with(encode(image, "PNG"), png_chunk(b"caBX", C2PA_BOX)) + TRAILER
    prepared = prepare_image_bytes(data, "photo.png")
    with Database.open(tmp_path / "data") as db, db.session() as session:
        repository.add_turn(session, None, "user", "look!", T0)
        kept = keep_photo(session, tmp_path / "data", prepared, "a gradient", T0)
    stored = kept.image_path.read_bytes()
    assert_clean(stored, image, tolerance=0)
    for marker in MARKERS:
        assert marker not in kept.thumbnail_path.read_bytes()
