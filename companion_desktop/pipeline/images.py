"""Preparing a picture the user shows her: decode safely, turn upright, shrink, strip.

A picture comes from a file (paperclip, drag-drop, ``chat --image``) or from
bytes (paste). Whatever it was, the result is one image in a wire format
(JPEG, PNG, GIF or WebP) whose longest edge is at most :data:`MAX_EDGE` pixels,
with no EXIF, GPS, XMP, C2PA or text metadata and nothing after its end marker,
plus a small JPEG thumbnail for the photoboard. A file that already fits (a wire
format, small enough, upright, still) is sent as its bare copy: a PNG or JPEG with
only the chunks or segments that carry pixels and colour, nothing after its end
marker (``image_containers.bare_copy``; byte for byte when it was bare already);
everything else is re-encoded from its pixels. Anything that cannot be opened
safely raises :class:`ImageRefused`, whose text is meant for the user; no other
exception type escapes.
"""

from __future__ import annotations

import io
import math
import re
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import ExifTags, Image, ImageCms, ImageOps, UnidentifiedImageError

from companion_desktop.llm.base import WIRE_IMAGE_TYPES, ImagePart
from companion_desktop.pipeline.image_containers import bare_copy

MAX_EDGE = 1568  # pixels: the longest edge sent to a model
MAX_FILE_BYTES = 25_000_000  # bytes (25 MB): larger files are refused before reading
MAX_PIXELS = 50_000_000  # width x height from the header: more is refused before decoding
MAX_SEND_BYTES = 3_750_000  # bytes: under the strictest API limit (5 MiB of base64)
THUMB_EDGE = 320  # pixels: the longest edge of a thumbnail
JPEG_QUALITY = 88  # 1-95
THUMB_QUALITY = 85  # 1-95
PASTED_NAME = "pasted image"

_WIRE_FORMATS = {"JPEG": "image/jpeg", "PNG": "image/png", "GIF": "image/gif", "WEBP": "image/webp"}
_PASS_MODES = frozenset({"1", "L", "LA", "P", "PA", "RGB", "RGBA"})
_UNSAFE_DECODERS = frozenset({"EPS"})  # Pillow hands EPS to Ghostscript: never for shown files
_heif_lock = threading.Lock()
_heif_ready = False
_decoders: list[str] = []  # Pillow format ids allowed to open shown files


class ImageRefused(ValueError):
    """A picture that cannot be shown; ``str()`` is the message for the user."""


@dataclass(frozen=True)
class PreparedImage:
    """A picture ready to send. ``width``/``height`` (pixels) are those of ``data``;
    ``thumbnail`` is a JPEG whose longest edge is at most :data:`THUMB_EDGE` pixels."""

    data: bytes
    mime_type: str  # one of WIRE_IMAGE_TYPES
    width: int
    height: int
    thumbnail: bytes
    thumbnail_mime: str
    source_name: str
    original_format: str  # Pillow's name for what was given: "JPEG", "HEIF", "BMP", ...
    converted: bool  # False when ``data`` is the file exactly as given
    #: A picture of the user's screen: what it shows ("Firefox", "your screen"); None for
    #: a photo. A screen picture is kept only when ``keep`` (photos always are).
    screen: str | None = None
    keep: bool = True

    def part(self) -> ImagePart:
        """The picture as a message part for a provider."""
        return ImagePart(mime_type=self.mime_type, data=self.data)


def prepare_image_file(path: Path | str) -> PreparedImage:
    """Read and prepare the picture at ``path``; ImageRefused for anything unusable.

    The size is checked before the file is read: over :data:`MAX_FILE_BYTES` is refused.
    """
    file = Path(path).expanduser()
    name = file.name or str(file)
    try:
        if not file.exists():
            raise ImageRefused(f"I can't find that picture ({file} is not there).")
        if not file.is_file():
            raise ImageRefused(f"That is not a picture file ({name} is a folder or a device).")
        _check_byte_size(file.stat().st_size, name)
        with file.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        reason = error.strerror or "it could not be read"
        raise ImageRefused(f"I couldn't read that picture ({name}: {reason}).") from error
    return prepare_image_bytes(data, name)


def prepare_image_bytes(data: bytes, name: str = PASTED_NAME) -> PreparedImage:
    """Prepare a picture given as encoded bytes (any format Pillow decodes)."""
    name = (name or PASTED_NAME).strip()[:200] or PASTED_NAME
    _check_byte_size(len(data), name)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # Pillow's notes on damaged files
            return _prepare(bytes(data), name)
    except ImageRefused:
        raise
    except Image.DecompressionBombError as error:
        raise ImageRefused(_bomb_message(None, error)) from error
    except Exception as error:  # noqa: BLE001 - a damaged file must only ever be refused
        raise ImageRefused(
            f"That file is not a picture I can open ({name}: {_reason(error)})."
        ) from error


def _check_byte_size(size: int, name: str) -> None:
    if size <= 0:
        raise ImageRefused(f"That picture is empty ({name} has no data).")
    if size > MAX_FILE_BYTES:
        shown = math.ceil(size / 100_000) / 10  # MB, rounded up to 0.1
        limit = MAX_FILE_BYTES // 10**6
        raise ImageRefused(f"That picture is too large ({shown:.1f} MB; the limit is {limit} MB).")


def _reason(error: Exception) -> str:
    if isinstance(error, UnidentifiedImageError):
        return "not an image format I know"
    if "truncated" in str(error).lower() or isinstance(error, EOFError):
        return "the file is cut short"
    if isinstance(error, MemoryError):
        return "not enough memory to open it"
    return "the file looks damaged"


def _bomb_message(size: tuple[int, int] | None, error: Exception | None = None) -> str:
    limit = f"the limit is {MAX_PIXELS // 10**6} million pixels"
    if size is not None:
        return f"That picture is too large to open safely ({size[0]} × {size[1]} pixels; {limit})."
    found = re.search(r"\((\d+) pixels\)", str(error or ""))
    count = f"{int(found.group(1)):,} pixels" if found else "too many pixels"
    return f"That picture is too large to open safely ({count}; {limit})."


def _register_heif() -> None:
    """Teach Pillow HEIC/HEIF and list the allowed decoders (once, on first use)."""
    global _heif_ready
    with _heif_lock:
        if not _heif_ready:
            import pillow_heif

            pillow_heif.register_heif_opener()
            Image.init()
            _decoders.extend(fmt for fmt in Image.ID if fmt not in _UNSAFE_DECODERS)
            _heif_ready = True


def _open(data: bytes) -> Image.Image:
    """Open (header only) and check the pixel count before anything is decoded."""
    _register_heif()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", Image.DecompressionBombWarning)
        image = Image.open(io.BytesIO(data), formats=_decoders)
    width, height = image.size
    bombed = any(issubclass(w.category, Image.DecompressionBombWarning) for w in caught)
    if bombed or width * height > MAX_PIXELS:
        image.close()
        raise ImageRefused(_bomb_message((width, height)))
    if width < 1 or height < 1:
        image.close()
        raise ImageRefused("That file is not a picture I can open (it has no pixels).")
    return image


def _prepare(data: bytes, name: str) -> PreparedImage:
    with _open(data) as image:
        image.seek(0)  # animated pictures: the first frame
        image.load()
        fmt = image.format or "unknown"
        bare = bare_copy(data, fmt) if _can_pass(image, data) else None
        if bare is not None:
            still = _to_rgb(image, image.info.get("icc_profile"))
            return _result(bare, _WIRE_FORMATS[fmt], still, name, fmt, converted=bare != data)
        upright = ImageOps.exif_transpose(image)
        rgb = _downscale(_to_rgb(upright, image.info.get("icc_profile")), MAX_EDGE)
    sent, mime, rgb = _encode(rgb)
    return _result(sent, mime, rgb, name, fmt, converted=True)


def _can_pass(image: Image.Image, data: bytes) -> bool:
    """True when ``data``'s bare copy may be sent as it is: a still wire format, small
    enough and upright (the metadata itself is left out by ``bare_copy``)."""
    return (
        image.format in _WIRE_FORMATS
        and len(data) <= MAX_SEND_BYTES
        and max(image.size) <= MAX_EDGE
        and not getattr(image, "is_animated", False)
        and image.mode in _PASS_MODES
        and image.getexif().get(ExifTags.Base.Orientation, 1) == 1
    )


def _to_rgb(image: Image.Image, icc: bytes | None) -> Image.Image:
    """``image`` as RGB, or RGBA when it has real transparency, in sRGB when its
    colour profile can be applied. The result carries no metadata."""
    if image.mode in ("I", "F") or image.mode.startswith("I;16"):
        image = _to_8bit(image)
    transparent = "transparency" in image.info
    has_alpha = transparent or image.mode in ("RGBA", "LA", "PA", "La", "RGBa")
    out = None
    if icc and not transparent and image.mode in ("RGB", "RGBA", "L", "CMYK"):
        out = _srgb(image, icc)
    if out is None:
        out = image.convert("RGBA" if has_alpha else "RGB")
    if out.mode == "RGBA" and out.getchannel("A").getextrema()[0] == 255:
        out = out.convert("RGB")
    out.info = {}
    return out


def _to_8bit(image: Image.Image) -> Image.Image:
    """A 16-bit, 32-bit or float greyscale image scaled into 0-255 (mode L)."""
    values = np.asarray(image, dtype=np.float64)
    peak = float(values.max()) if values.size else 0.0
    top = 1.0 if peak <= 1.0 else 255.0 if peak <= 255.0 else 65535.0 if peak <= 65535.0 else peak
    scaled = np.clip(values * (255.0 / top), 0.0, 255.0).round().astype(np.uint8)
    return Image.fromarray(scaled, "L")


def _srgb(image: Image.Image, icc: bytes) -> Image.Image | None:
    """``image`` (RGB, RGBA, L or CMYK) converted from its profile to sRGB; None on failure."""
    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        target = ImageCms.createProfile("sRGB")
        alpha = image.getchannel("A") if image.mode == "RGBA" else None
        colour = image.convert("RGB") if alpha is not None else image
        out = ImageCms.profileToProfile(colour, source, target, outputMode="RGB")
    except Exception:  # noqa: BLE001 - a broken profile only costs colour accuracy
        return None
    if out is None:
        return None
    if alpha is not None:
        out.putalpha(alpha)
    return out


def _downscale(image: Image.Image, edge: int) -> Image.Image:
    """``image`` shrunk (Lanczos) so its longest edge is at most ``edge`` pixels."""
    width, height = image.size
    longest = max(width, height)
    if longest <= edge:
        return image
    scale = edge / longest
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return image.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)


def _encode(image: Image.Image) -> tuple[bytes, str, Image.Image]:
    """Encode as PNG (transparency) or JPEG; WebP when a PNG is too big; smaller
    still until it fits :data:`MAX_SEND_BYTES`. Returns bytes, MIME type, image."""
    for _ in range(6):
        formats = ("PNG", "WEBP") if image.mode == "RGBA" else ("JPEG",)
        for fmt in formats:
            data = _save(image, fmt, JPEG_QUALITY)
            if len(data) <= MAX_SEND_BYTES:
                return data, _WIRE_FORMATS[fmt], image
        image = _downscale(image, max(1, int(max(image.size) * 0.75)))
    raise ImageRefused("That picture has too much detail to send, even made smaller.")


def _save(image: Image.Image, fmt: str, quality: int) -> bytes:
    buffer = io.BytesIO()
    if fmt == "PNG":
        image.save(buffer, "PNG")
    else:
        image.save(buffer, fmt, quality=quality)
    return buffer.getvalue()


def _thumbnail(image: Image.Image) -> bytes:
    """A JPEG whose longest edge is at most THUMB_EDGE; transparency goes on white."""
    thumb = image.copy()
    thumb.thumbnail((THUMB_EDGE, THUMB_EDGE), Image.Resampling.LANCZOS)
    if thumb.mode == "RGBA":
        flat = Image.new("RGB", thumb.size, "white")
        flat.paste(thumb, mask=thumb.getchannel("A"))
        thumb = flat
    return _save(thumb, "JPEG", THUMB_QUALITY)


def _result(
    data: bytes, mime: str, image: Image.Image, name: str, fmt: str, *, converted: bool
) -> PreparedImage:
    assert mime in WIRE_IMAGE_TYPES
    return PreparedImage(
        data=data, mime_type=mime, width=image.width, height=image.height,
        thumbnail=_thumbnail(image), thumbnail_mime="image/jpeg", source_name=name,
        original_format=fmt, converted=converted,
    )  # fmt: skip
