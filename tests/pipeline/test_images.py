"""Preparing shown pictures: real files made with Pillow and pillow_heif, real refusals."""

from __future__ import annotations

import io
import json
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import ExifTags, Image, PngImagePlugin

from companion_desktop.llm.base import WIRE_IMAGE_TYPES, ImagePart
from companion_desktop.pipeline import images
from companion_desktop.pipeline.images import (
    MAX_EDGE,
    MAX_FILE_BYTES,
    THUMB_EDGE,
    ImageRefused,
    PreparedImage,
    prepare_image_bytes,
    prepare_image_file,
)
from tests.conftest import SHARED_ASSETS

RED, BLUE = (255, 0, 0), (0, 0, 255)


def encode(image: Image.Image, fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def close_to(pixel: tuple[int, ...], want: tuple[int, ...], tolerance: int = 24) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, want, strict=False))


def png_header_only(width: int, height: int) -> bytes:
    """A tiny PNG whose IHDR claims ``width`` x ``height`` (no pixel data at all)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def left_red(width: int = 200, height: int = 100) -> Image.Image:
    """Blue with a red band on the left tenth."""
    image = Image.new("RGB", (width, height), BLUE)
    image.paste(RED, (0, 0, width // 10, height))
    return image


def check_common(prepared: PreparedImage) -> Image.Image:
    """The invariants of every prepared image; returns the decoded data."""
    assert prepared.mime_type in WIRE_IMAGE_TYPES
    sent = decode(prepared.data)
    assert sent.size == (prepared.width, prepared.height)
    assert max(sent.size) <= MAX_EDGE
    assert Image.MIME[sent.format] == prepared.mime_type
    thumb = decode(prepared.thumbnail)
    assert thumb.format == "JPEG" and prepared.thumbnail_mime == "image/jpeg"
    assert max(thumb.size) <= THUMB_EDGE
    return sent


# --- pass-through and re-encoding -------------------------------------------------


def test_clean_png_is_sent_byte_for_byte(tmp_path: Path) -> None:
    data = encode(left_red(), "PNG")
    path = tmp_path / "drawing.png"
    path.write_bytes(data)
    prepared = prepare_image_file(path)
    assert prepared.data == data and not prepared.converted
    assert (prepared.mime_type, prepared.width, prepared.height) == ("image/png", 200, 100)
    assert prepared.source_name == "drawing.png" and prepared.original_format == "PNG"
    check_common(prepared)
    assert prepared.part() == ImagePart(mime_type="image/png", data=data)


@pytest.mark.parametrize("fmt,mime", [("JPEG", "image/jpeg"), ("WEBP", "image/webp"),
                                      ("GIF", "image/gif")])
def test_clean_wire_formats_pass_through(fmt: str, mime: str) -> None:
    data = encode(left_red(), fmt)
    prepared = prepare_image_bytes(data)
    assert prepared.data == data and not prepared.converted and prepared.mime_type == mime
    assert prepared.source_name == "pasted image"
    check_common(prepared)


def test_jpeg_with_exif_orientation_and_gps_is_turned_upright_and_stripped() -> None:
    exif = Image.Exif()
    exif[ExifTags.Base.Orientation] = 6  # stored 90 degrees anticlockwise: turn it clockwise
    exif[ExifTags.Base.Make] = "PhoneCo"
    exif[ExifTags.IFD.GPSInfo] = {
        ExifTags.GPS.GPSLatitudeRef: "N", ExifTags.GPS.GPSLatitude: (52.0, 22.0, 7.5),
        ExifTags.GPS.GPSLongitudeRef: "E", ExifTags.GPS.GPSLongitude: (4.0, 53.0, 2.25),
    }  # fmt: skip
    data = encode(left_red(), "JPEG", exif=exif.tobytes(), quality=95)
    assert decode(data).getexif().get_ifd(ExifTags.IFD.GPSInfo)  # the fixture really has GPS
    prepared = prepare_image_bytes(data, "holiday.jpg")
    sent = check_common(prepared)
    assert prepared.converted and prepared.mime_type == "image/jpeg"
    assert (prepared.width, prepared.height) == (100, 200)  # upright: portrait now
    assert close_to(sent.convert("RGB").getpixel((50, 5)), RED)  # left band is now on top
    assert close_to(sent.convert("RGB").getpixel((50, 150)), BLUE)
    assert len(sent.getexif()) == 0 and "exif" not in sent.info
    assert b"Exif" not in prepared.data and b"PhoneCo" not in prepared.data
    assert b"Exif" not in prepared.thumbnail


def test_exif_without_rotation_is_still_stripped() -> None:
    exif = Image.Exif()
    exif[ExifTags.Base.Make] = "PhoneCo"
    prepared = prepare_image_bytes(encode(left_red(), "JPEG", exif=exif.tobytes()))
    assert prepared.converted and b"PhoneCo" not in prepared.data
    assert (prepared.width, prepared.height) == (200, 100)


def test_png_text_chunks_are_not_passed_on() -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "taken at 12 Secret Lane")
    data = encode(left_red(), "PNG", pnginfo=info)
    prepared = prepare_image_bytes(data)
    assert prepared.converted and b"Secret Lane" not in prepared.data
    check_common(prepared)


def test_jpeg_comment_is_not_passed_on() -> None:
    prepared = prepare_image_bytes(encode(left_red(), "JPEG", comment=b"home address"))
    assert prepared.converted and b"home address" not in prepared.data


def test_large_photo_is_downscaled_to_the_longest_edge(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    small = Image.fromarray(rng.integers(0, 255, (300, 400, 3), dtype=np.uint8))
    photo = small.resize((4000, 3000), Image.Resampling.BILINEAR)
    path = tmp_path / "photo.jpg"
    photo.save(path, "JPEG", quality=90)
    prepared = prepare_image_file(path)
    check_common(prepared)
    assert (prepared.width, prepared.height) == (1568, 1176)
    assert prepared.mime_type == "image/jpeg" and prepared.converted
    thumb = decode(prepared.thumbnail)
    assert thumb.size == (320, 240)


def test_heic_becomes_jpeg() -> None:
    import pillow_heif

    buffer = io.BytesIO()
    pillow_heif.from_pillow(left_red(64, 32)).save(buffer, quality=90)
    assert buffer.getvalue()[4:12] in (b"ftypheic", b"ftypmif1", b"ftypheix")
    prepared = prepare_image_bytes(buffer.getvalue(), "IMG_0001.HEIC")
    sent = check_common(prepared)
    assert prepared.original_format == "HEIF" and prepared.mime_type == "image/jpeg"
    assert (prepared.width, prepared.height) == (64, 32)
    assert close_to(sent.convert("RGB").getpixel((2, 16)), RED, 40)
    assert close_to(sent.convert("RGB").getpixel((50, 16)), BLUE, 40)


@pytest.mark.parametrize("fmt", ["BMP", "TIFF", "AVIF", "PPM"])
def test_formats_the_apis_reject_become_jpeg(fmt: str) -> None:
    prepared = prepare_image_bytes(encode(left_red(), fmt), f"picture.{fmt.lower()}")
    sent = check_common(prepared)
    assert prepared.converted and prepared.mime_type == "image/jpeg"
    assert prepared.original_format == fmt
    assert close_to(sent.getpixel((190, 50)), BLUE, 40)


def test_animated_gif_sends_its_first_frame() -> None:
    frames = [Image.new("RGB", (40, 40), colour) for colour in (RED, BLUE, RED)]
    data = encode(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=100)
    assert getattr(decode(data), "n_frames", 1) == 3
    prepared = prepare_image_bytes(data, "wave.gif")
    sent = check_common(prepared)
    assert prepared.converted and not getattr(sent, "is_animated", False)
    assert close_to(sent.convert("RGB").getpixel((20, 20)), RED)


def test_animated_webp_sends_its_first_frame() -> None:
    frames = [Image.new("RGB", (40, 40), colour) for colour in (BLUE, RED)]
    data = encode(frames[0], "WEBP", save_all=True, append_images=frames[1:], duration=100)
    prepared = prepare_image_bytes(data)
    sent = check_common(prepared)
    assert prepared.converted and close_to(sent.convert("RGB").getpixel((20, 20)), BLUE)


def test_transparency_survives_as_png_and_thumbnail_goes_on_white() -> None:
    image = Image.new("RGBA", (2000, 1000), (255, 0, 0, 255))
    image.paste((0, 0, 0, 0), (1000, 0, 2000, 1000))
    prepared = prepare_image_bytes(encode(image, "PNG"))
    sent = check_common(prepared)
    assert prepared.mime_type == "image/png" and sent.mode == "RGBA"
    assert (prepared.width, prepared.height) == (1568, 784)
    assert sent.getpixel((1500, 400))[3] == 0 and sent.getpixel((100, 400))[3] == 255
    thumb = decode(prepared.thumbnail)
    assert close_to(thumb.getpixel((300, 80)), (255, 255, 255))
    assert close_to(thumb.getpixel((20, 80)), RED)


def test_opaque_alpha_is_dropped_for_jpeg() -> None:
    image = Image.new("RGBA", (2000, 100), (0, 0, 255, 255))
    prepared = prepare_image_bytes(encode(image, "TIFF"))
    assert prepared.mime_type == "image/jpeg" and decode(prepared.data).mode == "RGB"


def test_palette_with_transparency_keeps_it() -> None:
    image = Image.new("P", (1800, 20), 1)
    image.putpalette([0, 0, 0, 255, 0, 0] + [0] * 762)
    image.paste(0, (0, 0, 900, 20))
    prepared = prepare_image_bytes(encode(image, "BMP"))  # BMP drops transparency: JPEG
    assert prepared.mime_type == "image/jpeg"
    prepared = prepare_image_bytes(encode(image, "PNG", transparency=0))
    sent = check_common(prepared)
    assert prepared.mime_type == "image/png"
    assert sent.getpixel((10, 5))[3] == 0 and sent.getpixel((1500, 5))[:3] == RED


def test_cmyk_jpeg_becomes_rgb() -> None:
    prepared = prepare_image_bytes(encode(Image.new("CMYK", (60, 40), (0, 255, 255, 0)), "JPEG"))
    sent = check_common(prepared)
    assert prepared.converted and sent.mode == "RGB"
    assert close_to(sent.getpixel((30, 20)), RED, 40)


def test_sixteen_bit_grey_keeps_its_range() -> None:
    ramp = np.tile(np.linspace(0, 65535, 256).astype(np.uint16), (16, 1))
    prepared = prepare_image_bytes(encode(Image.fromarray(ramp), "PNG"))
    sent = check_common(prepared).convert("L")
    assert sent.getpixel((2, 8)) < 20 and sent.getpixel((250, 8)) > 235
    assert 100 < sent.getpixel((128, 8)) < 160


def test_la_and_bilevel_modes() -> None:
    for image, fmt in ((Image.new("LA", (1700, 10), (90, 128)), "PNG"),
                       (Image.new("1", (1700, 10), 1), "TIFF")):  # fmt: skip
        prepared = prepare_image_bytes(encode(image, fmt))
        check_common(prepared)
        assert prepared.width == MAX_EDGE


def test_too_big_to_send_falls_back_to_smaller_encodings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(images, "MAX_SEND_BYTES", 40_000)
    noise = np.random.default_rng(3).integers(0, 255, (300, 300, 4), dtype=np.uint8)
    data = encode(Image.fromarray(noise, "RGBA"), "PNG")
    assert len(data) > 40_000
    prepared = prepare_image_bytes(data)
    check_common(prepared)
    assert len(prepared.data) <= 40_000 and prepared.converted


def noise_png(rows: int) -> bytes:
    """A 1000-pixel-wide RGBA noise PNG (about 4 KB a row: noise does not compress)."""
    noise = np.random.default_rng(5).integers(0, 255, (rows, 1000, 4), dtype=np.uint8)
    return encode(Image.fromarray(noise, "RGBA"), "PNG")


def test_a_photo_over_the_send_cap_is_shrunk_under_it() -> None:
    """The cap is 3.75 MB (under the strictest API limit): a 4.8 MB PNG that is otherwise
    sendable as it is (small, upright, a wire format) is re-encoded to fit."""
    data = noise_png(1200)
    assert 3_750_000 < len(data) < 9_000_000
    prepared = prepare_image_bytes(data)
    check_common(prepared)
    assert prepared.converted and len(prepared.data) <= 3_750_000


def test_a_photo_under_the_send_cap_goes_as_it_is() -> None:
    data = noise_png(900)
    assert 3_500_000 < len(data) <= 3_750_000
    prepared = prepare_image_bytes(data)
    assert not prepared.converted and prepared.data == data


def test_icc_profile_is_applied_and_dropped() -> None:
    from PIL import ImageCms

    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    data = encode(left_red(2000, 100), "JPEG", icc_profile=icc)
    prepared = prepare_image_bytes(data)
    sent = check_common(prepared)
    assert "icc_profile" not in sent.info
    assert close_to(sent.getpixel((1500, 40)), BLUE, 30)
    broken = encode(left_red(2000, 100), "JPEG", icc_profile=b"not a profile")
    assert prepare_image_bytes(broken).width == MAX_EDGE


# --- refusals ----------------------------------------------------------------------


def test_missing_empty_folder_and_text_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ImageRefused, match="can't find"):
        prepare_image_file(tmp_path / "nope.png")
    (tmp_path / "empty.png").write_bytes(b"")
    with pytest.raises(ImageRefused, match="empty"):
        prepare_image_file(tmp_path / "empty.png")
    with pytest.raises(ImageRefused, match="not a picture file"):
        prepare_image_file(tmp_path)
    (tmp_path / "notes.jpg").write_text("dear diary, today I...")
    with pytest.raises(ImageRefused) as refused:
        prepare_image_file(tmp_path / "notes.jpg")
    assert str(refused.value) == (
        "That file is not a picture I can open (notes.jpg: not an image format I know)."
    )
    with pytest.raises(ImageRefused, match="empty"):
        prepare_image_bytes(b"")


def test_oversized_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.jpg"
    with path.open("wb") as handle:
        handle.truncate(31_200_000)  # sparse: instant, and not a picture at all
    with pytest.raises(ImageRefused) as refused:
        prepare_image_file(path)
    assert str(refused.value) == "That picture is too large (31.2 MB; the limit is 25 MB)."
    with pytest.raises(ImageRefused, match=r"too large \(26\.0 MB"):
        prepare_image_bytes(bytes(26_000_000))
    with pytest.raises(ImageRefused, match=r"too large \(25\.1 MB"):
        prepare_image_bytes(bytes(MAX_FILE_BYTES + 1))


def test_unreadable_file_is_refused(tmp_path: Path) -> None:
    import os

    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    path = tmp_path / "secret.png"
    path.write_bytes(encode(left_red(), "PNG"))
    path.chmod(0)
    with pytest.raises(ImageRefused, match="couldn't read"):
        prepare_image_file(path)


@pytest.mark.parametrize(
    "size", [(60000, 60000), (20000, 20000), (10000, 10000), (8000, 8000), (7072, 7072),
             (50_001, 1000)]
)
def test_decompression_bombs_are_refused_from_the_header(size: tuple[int, int]) -> None:
    data = png_header_only(*size)
    assert len(data) < 100
    with pytest.raises(ImageRefused, match="too large to open safely") as refused:
        prepare_image_bytes(data, "bomb.png")
    if size[0] * size[1] < 2 * Image.MAX_IMAGE_PIXELS:  # Pillow lets us read the header
        assert f"{size[0]} × {size[1]} pixels" in str(refused.value)
    else:
        assert f"{size[0] * size[1]:,} pixels" in str(refused.value)


@pytest.mark.parametrize("size", [(7000, 7000), (7071, 7071), (50_000, 1000)])
def test_just_under_the_pixel_limit_is_not_a_bomb(size: tuple[int, int]) -> None:
    with pytest.raises(ImageRefused) as refused:
        prepare_image_bytes(png_header_only(*size))  # up to 50 Mpx: allowed, but no data
    assert "cut short" in str(refused.value) or "damaged" in str(refused.value)


def test_the_bomb_message_names_the_limit() -> None:
    with pytest.raises(ImageRefused) as refused:
        prepare_image_bytes(png_header_only(7072, 7072), "bomb.png")
    assert str(refused.value) == (
        "That picture is too large to open safely (7072 × 7072 pixels; the limit is 50 million "
        "pixels)."
    )


def test_truncated_jpeg_is_refused() -> None:
    data = encode(left_red(400, 300), "JPEG")
    with pytest.raises(ImageRefused, match="cut short|damaged"):
        prepare_image_bytes(data[: len(data) // 2], "half.jpg")


def test_eps_is_never_handed_to_ghostscript() -> None:
    eps = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n%%EOF\n"
    with pytest.raises(ImageRefused, match="not an image format I know"):
        prepare_image_bytes(eps, "drawing.eps")


# --- fuzzing -----------------------------------------------------------------------


def _seed_files() -> list[bytes]:
    import pillow_heif

    small = left_red(24, 16)
    heic = io.BytesIO()
    pillow_heif.from_pillow(small).save(heic, quality=50)
    return [encode(small, fmt) for fmt in ("PNG", "JPEG", "GIF", "BMP", "TIFF", "WEBP")] + [
        heic.getvalue()
    ]


SEEDS = _seed_files()
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _outcome(data: bytes) -> None:
    try:
        prepared = prepare_image_bytes(data)
    except ImageRefused as refused:
        assert str(refused).startswith("That ") and str(refused).endswith(".")
    else:
        check_common(prepared)


@FUZZ
@given(st.binary(max_size=2048))
def test_random_bytes_are_prepared_or_refused(data: bytes) -> None:
    _outcome(data)


@FUZZ
@given(
    st.sampled_from(range(len(SEEDS))),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=8),
    st.integers(1, 10_000),
)
def test_mutated_real_files_are_prepared_or_refused(
    seed: int, edits: list[tuple[int, int]], keep: int
) -> None:
    data = bytearray(SEEDS[seed])
    for position, value in edits:
        data[position % len(data)] = value
    _outcome(bytes(data[:keep]))


# --- real textures from the shared assets --------------------------------------------


def _embedded_images(path: Path) -> list[bytes]:
    """The images stored in a GLB's binary chunk (a minimal reader: JSON + BIN)."""
    blob = path.read_bytes()
    json_length = struct.unpack_from("<I", blob, 12)[0]
    doc = json.loads(blob[20 : 20 + json_length])
    binary = blob[20 + json_length + 8 :]
    found = []
    for image in doc.get("images", []):
        if "bufferView" in image:
            view = doc["bufferViews"][image["bufferView"]]
            start = view.get("byteOffset", 0)
            found.append(binary[start : start + view["byteLength"]])
    return found


@pytest.mark.skipif(not SHARED_ASSETS.is_dir(), reason="shared assets are not here")
def test_real_textures_from_shared_assets() -> None:
    models = sorted(SHARED_ASSETS.glob("vrm*/*.vrm")) + sorted(SHARED_ASSETS.glob("gltf/*.glb"))
    textures = [data for model in models for data in _embedded_images(model)]
    if not textures:
        pytest.skip("no embedded textures in the shared assets")
    for data in textures:
        prepared = prepare_image_bytes(data, "texture")
        sent = check_common(prepared)
        source = decode(data)
        assert max(sent.size) == min(max(source.size), MAX_EDGE)
        if not prepared.converted:
            assert prepared.data == data
