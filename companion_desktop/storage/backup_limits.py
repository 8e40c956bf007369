"""How much a restore may unpack: checked before one byte is written.

An archive is untrusted input, and its manifest's sizes are only its claim. Before
anything is unpacked, every member must fit the limit of its kind (a kept photo is
never larger than a few MB, a clip at most 25 MB, a model at most what the avatar
loader reads), the whole must fit :data:`MAX_TOTAL_BYTES`, no deflated member may
expand more than :data:`MAX_RATIO` times (a bomb of zeros does), and the disk must
have room for the new files, the backup of what is here now and a margin. Unpacking
then stops at each member's listed size (``backup_restore.verify``).
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path, PurePosixPath

from .backup_manifest import MODELS_DIR, UPLOADS_DIR, BackupError
from .backup_text import size_text
from .keepsakes import KEEPSAKE_DIR
from .paths import DB_FILENAME

MIB, GIB = 1 << 20, 1 << 30
#: The largest file of each kind an archive may hold, in bytes.
MAX_MEMBER_BYTES = {
    DB_FILENAME: 4 * GIB,
    KEEPSAKE_DIR: 32 * MIB,  # photos are kept scaled to 1568 px: a few MB at most
    UPLOADS_DIR: 32 * MIB,  # uploaded clips are at most 25 MB (pipeline.animations)
    MODELS_DIR: 512 * MIB,  # avatar.vrm.limits: the largest model the loader reads
}
#: The most a whole archive may unpack to, in bytes.
MAX_TOTAL_BYTES = 8 * GIB
#: How many times its compressed size a member may expand (real data: a few times).
MAX_RATIO = 100
#: Members this small are not held to the ratio (a tiny file of one repeated byte is fine).
RATIO_FLOOR_BYTES = 1 * MIB
#: Free space kept on the disk beyond what a restore needs, in bytes.
SPACE_MARGIN_BYTES = 64 * MIB


def kind_of(name: str) -> str:
    """The limit a member falls under: the database, or its top folder."""
    return name if name == DB_FILENAME else PurePosixPath(name).parts[0]


def check_sizes(archive: Path, listed: dict[str, dict], infos: dict[str, zipfile.ZipInfo]) -> int:
    """The total the listed members unpack to; BackupError when one is past a limit."""
    total = 0
    for name, entry in listed.items():
        size = entry.get("size")
        info = infos.get(name)
        if info is None:
            raise BackupError(f"{archive} is missing {name}.", archive)
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise BackupError(f"{archive} is damaged: {name} does not match its checksum.",
                              archive)
        limit = MAX_MEMBER_BYTES[kind_of(name)]
        if size > limit:
            raise BackupError(f"{archive} is refused: {name} would be {size_text(size)}, more "
                              f"than the {size_text(limit)} such a file may be.", archive)
        packed = max(info.compress_size, 1)
        if size > RATIO_FLOOR_BYTES and size > MAX_RATIO * packed:
            raise BackupError(f"{archive} is refused: {name} would expand from "
                              f"{size_text(packed)} to {size_text(size)}, as no real file "
                              "does.", archive)
        total += size
    if total > MAX_TOTAL_BYTES:
        raise BackupError(f"{archive} is refused: it would unpack to {size_text(total)}, more "
                          f"than the {size_text(MAX_TOTAL_BYTES)} a backup may hold.", archive)
    return total


def current_size(data_dir: Path, items: tuple[str, ...]) -> int:
    """Bytes the items a restore replaces take now (what its safety backup copies)."""
    total = 0
    for item in items:
        path = data_dir / item
        if path.is_file():
            total += path.stat().st_size
        elif path.is_dir():
            total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return total


def check_space(archive: Path, data_dir: Path, need: int) -> None:
    """BackupError when ``data_dir``'s disk has less than ``need`` bytes and the margin."""
    free = shutil.disk_usage(data_dir).free
    if free < need + SPACE_MARGIN_BYTES:
        raise BackupError(f"There is not enough free space to restore {archive.name}: it needs "
                          f"about {size_text(need + SPACE_MARGIN_BYTES)}, and "
                          f"{size_text(free)} is free. Nothing changed.", archive)
