"""Card files read with every limit: PNG chunks (written here by hand), JSON, CHARX, and
each kind of bad input refused in one line without reading past its limit."""

from __future__ import annotations

import base64
import io
import json
import struct
import zipfile
import zlib

import pytest

from companion_desktop.engine.card import CardError
from companion_desktop.storage.card_file import (
    MAX_FILE_BYTES,
    MAX_TEXT_CHUNK,
    is_card_file,
    png_with_card,
    read_card,
    read_card_file,
)
from tests.storage.card_samples import (
    SIGNATURE,
    card_png,
    charx,
    chunk_json,
    ihdr,
    png_chunk,
    read_chunks,
    text_chunk,
    tiny_png,
    v1_card,
    v2_card,
    v3_card,
    world_info,
)


def read(data: bytes):
    return read_card(io.BytesIO(data), len(data))


def test_png_of_each_version_and_v3_wins():
    assert read(card_png(chara=v1_card())).card.spec == "V1"
    assert read(card_png(chara=v2_card())).card.spec == "V2"
    both = read(card_png(chara=v2_card(name="Two"), ccv3=v3_card(name="Three")))
    assert (both.card.name, both.card.spec, both.kind) == ("Three", "V3", "png")
    assert both.image is not None and [k for k, _ in read_chunks(both.image)] == [
        b"IHDR", b"IDAT", b"IEND"]  # the picture without its text chunks


def test_compressed_and_international_text_chunks():
    raw = base64.b64encode(json.dumps(v2_card(name="Zed")).encode())
    ztxt = png_chunk(b"zTXt", b"chara\0\0" + zlib.compress(raw))
    assert read(tiny_png(middle=(ztxt,))).card.name == "Zed"
    itxt = png_chunk(b"iTXt", b"ccv3\0\x01\0en\0\0" + zlib.compress(
        base64.b64encode(json.dumps(v3_card(name="Ivy")).encode())))
    assert read(tiny_png(middle=(itxt,))).card.name == "Ivy"


@pytest.mark.parametrize("data, message", [
    (tiny_png(), "no character card"),
    (SIGNATURE + ihdr(4, 4)[:10], "cut short"),
    (SIGNATURE + png_chunk(b"tEXt", b"chara\0" + b"e30=", crc=1), "bad CRC"),
    (SIGNATURE + struct.pack(">I", MAX_TEXT_CHUNK + 1) + b"tEXt", "text chunk of 12 MB"),
    (SIGNATURE + struct.pack(">I", 2**31) + b"IDAT", "impossible length"),
    (tiny_png(middle=(png_chunk(b"tEXt", b"chara\0%%%not base64"),)), "not valid base64"),
    (tiny_png(middle=(text_chunk(b"chara", b"[" * 3000 + b"]" * 3000),)), "nested"),
    (tiny_png(middle=(text_chunk(b"chara", b'{"name": "\xff"}'),)), "not UTF-8"),
    (tiny_png(middle=(png_chunk(b"zTXt", b"chara\0\0" + zlib.compress(b"A" * (MAX_TEXT_CHUNK
                                                                             + 10))),)),
     "unpacks past"),
])
def test_bad_pngs_are_refused_in_one_line(data, message):
    with pytest.raises(CardError, match=message) as error:
        read(data)
    assert "\n" not in str(error.value)


def test_a_huge_file_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.png"
    with big.open("wb") as handle:
        handle.write(card_png(chara=v2_card()))
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing to read
    with pytest.raises(CardError, match="at most 32 MB"):
        read_card_file(big)
    assert not is_card_file(big)


def test_a_text_chunk_claiming_hundreds_of_mb_is_never_read():
    class Counting(io.BytesIO):
        taken = 0

        def read(self, size=-1):
            out = super().read(size)
            self.taken += len(out)
            return out

    head = SIGNATURE + struct.pack(">I", 300 * 1024 * 1024) + b"tEXt" + b"chara\0" * 1000
    handle = Counting(head)
    with pytest.raises(CardError):
        read_card(handle, 1000)
    assert handle.taken <= 24  # the signature (twice) and the chunk header


def test_json_cards_and_world_info():
    assert read(json.dumps(v3_card()).encode()).card.spec == "V3"
    assert read(b"\xef\xbb\xbf" + json.dumps(v1_card()).encode()).card.name == "Old Tom"
    found = read(json.dumps(world_info()).encode())
    assert found.card is None and len(found.lorebook.entries) == 2


def test_charx_with_its_icon_and_a_zip_bomb():
    found = read(charx(v3_card(name="Xia"), icon=tiny_png(16, 16)))
    assert found.card.name == "Xia" and found.kind == "charx" and found.image.startswith(SIGNATURE)
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("card.json", b" " * (9 * 1024 * 1024))
    with pytest.raises(CardError, match="larger than 8 MB"):
        read(bomb.getvalue())
    with pytest.raises(CardError, match="no card.json"):
        read(_zip_without_card())


def _zip_without_card() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("readme.txt", "hi")
    return out.getvalue()


def test_cards_are_told_apart_from_photos_by_content(tmp_path):
    photo, card, text, lore = (tmp_path / n for n in ("p.png", "c.png", "t.json", "w.json"))
    photo.write_bytes(tiny_png())
    card.write_bytes(card_png(chara=v2_card()))
    text.write_text('{"some": "settings"}')
    lore.write_text(json.dumps(world_info()))
    assert [is_card_file(p) for p in (photo, card, text, lore)] == [False, True, False, True]


def test_written_card_chunks_replace_the_old_ones():
    old = card_png(chara=v1_card())
    data = png_with_card(old, {b"chara": json.dumps(v2_card()), b"ccv3": json.dumps(v3_card())})
    kinds = [k for k, _ in read_chunks(data)]
    assert kinds.count(b"tEXt") == 2 and kinds[-1] == b"IEND"
    assert chunk_json(data, b"chara")["spec"] == "chara_card_v2"
    assert read(data).card.spec == "V3"
