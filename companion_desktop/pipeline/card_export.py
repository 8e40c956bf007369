"""Her character card written as a PNG: a V3 ``ccv3`` chunk and a V2 ``chara`` chunk for
older readers, on a render of her avatar (no Qt).

The picture is an offscreen render of her model (``avatar.render.offscreen``, with the
context factory the caller installed); where no OpenGL context can be made, her card's
portrait, else a plain image, and :class:`CardPicture` says which and why.
"""

from __future__ import annotations

import io
import json
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from companion_desktop.engine.card_text import card_json
from companion_desktop.storage.card_file import png_with_card
from companion_desktop.storage.card_store import current_card, load_card
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import AvatarSettings, load_settings

log = logging.getLogger(__name__)
RENDER_SIZE = (512, 768)


@dataclass(frozen=True)
class CardPicture:
    """The card's image (PNG bytes), what it is ("render", "portrait", "plain") and, when
    it is not a render, why."""

    png: bytes
    kind: str
    reason: str = ""


def _plain_png(width: int = 400, height: int = 600) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGBA", (width, height), (236, 220, 247, 255)).save(out, "PNG")
    return out.getvalue()


def render_avatar(model_path: str | None) -> bytes:
    """A PNG render of her model (the built-in one for None), upper body, relaxed pose.
    Raises ``RenderUnavailable`` without an OpenGL context, AvatarLoadError for a bad model."""
    from PIL import Image

    from companion_desktop.avatar.render.offscreen import render_image
    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.avatar.vrm.relaxed import relaxed_pose
    from companion_desktop.avatar.vrm.runtime import AvatarRuntime
    from companion_desktop.resources import default_avatar_path

    model = load_model(Path(model_path) if model_path else default_avatar_path())
    runtime = AvatarRuntime(model, random.Random(0), animation=relaxed_pose)
    runtime.set_blink_enabled(False)
    frame = runtime.update(1 / 30)
    for _ in range(30):  # the resting face fades in
        frame = runtime.update(1 / 30)
    rgba = render_image(model, frame, *RENDER_SIZE, shot="upper")
    out = io.BytesIO()
    Image.fromarray(rgba).save(out, "PNG")
    return out.getvalue()


def card_picture(db: Database, render: Callable[[], bytes] | None = None) -> CardPicture:
    """A render of her avatar (``render()``: PNG bytes; by default :func:`render_avatar` of
    her model), else her portrait, else a plain image (see the module)."""
    with db.read_session() as session:
        model = load_settings(session, AvatarSettings).model_path
        portrait = load_card(session).portrait()
    try:
        return CardPicture(render() if render else render_avatar(model), "render")
    except Exception as error:  # noqa: BLE001 - any failure to render falls back
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        log.info("no avatar render for the card: %s", reason)
    if portrait:
        return CardPicture(portrait, "portrait", reason)
    return CardPicture(_plain_png(), "plain", reason)


def card_png(db: Database, now: datetime, picture: CardPicture) -> bytes:
    """Her card as PNG bytes on ``picture``: ``ccv3`` (V3) and ``chara`` (V2) chunks."""
    with db.read_session() as session:
        card = current_card(session, now)
    texts = {b"chara": json.dumps(card_json(card, "V2"), ensure_ascii=False),
             b"ccv3": json.dumps(card_json(card, "V3"), ensure_ascii=False)}
    return png_with_card(picture.png, texts)
