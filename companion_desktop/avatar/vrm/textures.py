"""glTF textures: images decoded with Pillow to RGBA uint8, plus their samplers.

An image that cannot be read (corrupt bytes, a missing file, an unsupported format,
more pixels than ``Limits.max_image_pixels``) becomes a 2x2 magenta checker with
``placeholder=True`` and a warning; the model still loads. Images shared by several
textures are decoded once.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from PIL import Image

from .errors import AvatarLoadError
from .fields import as_dict, as_int, as_str, get, index_or_none
from .load_context import LoadContext
from .model import Sampler, Texture

#: Pillow formats we decode (glTF core: PNG, JPEG; EXT_texture_webp: WEBP).
FORMATS = ("PNG", "JPEG", "WEBP")
#: Extensions that name an alternative image source for a texture.
SOURCE_EXTENSIONS = ("EXT_texture_webp", "KHR_texture_basisu", "MSFT_texture_dds")


def placeholder_pixels() -> np.ndarray:
    """A 2x2 magenta / dark magenta checker (RGBA uint8)."""
    light, dark = (255, 0, 255, 255), (128, 0, 128, 255)
    return np.array([[light, dark], [dark, light]], np.uint8)


def decode_image(
    data: bytes, max_pixels: int, reserve: Callable[[int], None] | None = None
) -> np.ndarray:
    """RGBA uint8 pixels (height, width, 4), top row first; raises ValueError when unusable.

    ``reserve(nbytes)`` is called with the size of the pixels before they are decoded.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with Image.open(io.BytesIO(data)) as image:
                if image.format not in FORMATS:
                    raise ValueError(f"unsupported image format {image.format}")
                width, height = image.size
                if width < 1 or height < 1 or width * height > max_pixels:
                    raise ValueError(f"image size {width}x{height} is not allowed")
                if reserve is not None:
                    reserve(width * height * 4)
                pixels = np.asarray(image.convert("RGBA"), dtype=np.uint8)
        except (ValueError, AvatarLoadError):
            raise
        except Exception as exc:  # Pillow raises many types for broken data
            raise ValueError(f"{type(exc).__name__}: {exc}") from exc
    if pixels.shape != (height, width, 4):
        raise ValueError("the decoded image has an unexpected shape")
    return np.ascontiguousarray(pixels)


def read_samplers(ctx: LoadContext) -> list[Sampler]:
    samplers = []
    for raw in ctx.doc.gltf.samplers or []:
        mag, min_ = get(raw, "magFilter"), get(raw, "minFilter")
        samplers.append(Sampler(
            mag_filter=as_int(mag, 0) or None,
            min_filter=as_int(min_, 0) or None,
            wrap_s=as_int(get(raw, "wrapS"), 10497),
            wrap_t=as_int(get(raw, "wrapT"), 10497),
        ))  # fmt: skip
    return samplers


class _ImageCache:
    def __init__(self, ctx: LoadContext) -> None:
        self.ctx = ctx
        self.images = list(ctx.doc.gltf.images or [])
        self.decoded: dict[int, np.ndarray | str] = {}

    def pixels(self, index: int) -> np.ndarray | str:
        """Pixels of image ``index``, or the reason it could not be read."""
        if index not in self.decoded:
            try:
                self.decoded[index] = decode_image(
                    self._bytes(index), self.ctx.limits.max_image_pixels,
                    lambda nbytes: self.ctx.budget.take(nbytes, f"image {index}"),
                )  # fmt: skip
            except ValueError as exc:
                self.decoded[index] = str(exc)
        return self.decoded[index]

    def _bytes(self, index: int) -> bytes:
        raw = self.images[index]
        view, uri = get(raw, "bufferView"), get(raw, "uri")
        try:
            if view is not None:
                return bytes(self._view_bytes(view))
            if isinstance(uri, str):
                return self.ctx.doc.load_uri(uri, f"image {index}")
        except AvatarLoadError as exc:
            raise ValueError(exc.message) from exc
        raise ValueError("the image has neither a bufferView nor a URI")

    def _view_bytes(self, view: Any) -> memoryview:
        views = self.ctx.doc.gltf.bufferViews or []
        v = index_or_none(view, len(views))
        if v is None:
            raise ValueError(f"bufferView {view!r} does not exist")
        buffers = self.ctx.doc.buffers
        b = index_or_none(get(views[v], "buffer"), len(buffers))
        offset = as_int(get(views[v], "byteOffset", 0), -1)
        length = as_int(get(views[v], "byteLength"), -1)
        if b is None or offset < 0 or length < 1 or offset + length > len(buffers[b]):
            raise ValueError(f"bufferView {v} lies outside its buffer")
        return buffers[b][offset : offset + length]


def read_textures(ctx: LoadContext) -> list[Texture]:
    samplers = read_samplers(ctx)
    cache = _ImageCache(ctx)
    placeholder = placeholder_pixels()
    textures = []
    for t, raw in enumerate(ctx.doc.gltf.textures or []):
        source = _source(raw, len(cache.images))
        pixels = cache.pixels(source) if source is not None else "it has no valid image source"
        sampler_index = index_or_none(get(raw, "sampler"), len(samplers))
        sampler = samplers[sampler_index] if sampler_index is not None else Sampler()
        name = as_str(get(raw, "name")) or _image_name(cache, source) or f"texture{t}"
        if isinstance(pixels, str):
            ctx.warn(f"texture {t} could not be read ({pixels}); it is drawn with a placeholder",
                     "drawn with a magenta placeholder")
            textures.append(Texture(name, placeholder, sampler, placeholder=True))
        else:
            textures.append(Texture(name, pixels, sampler))
    return textures


def _source(raw: Any, image_count: int) -> int | None:
    source = index_or_none(get(raw, "source"), image_count)
    if source is not None:
        return source
    extensions = as_dict(get(raw, "extensions"))
    for name in SOURCE_EXTENSIONS:
        source = index_or_none(as_dict(extensions.get(name)).get("source"), image_count)
        if source is not None:
            return source
    return None


def _image_name(cache: _ImageCache, source: int | None) -> str:
    if source is None:
        return ""
    raw = cache.images[source]
    uri = get(raw, "uri")
    if isinstance(uri, str) and not uri.startswith("data:"):
        return as_str(get(raw, "name")) or uri
    return as_str(get(raw, "name"))
