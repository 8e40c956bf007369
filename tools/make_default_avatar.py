"""Generate Hana, the built-in avatar: ``resources/avatar/hana.vrm`` (VRM 1.0).

Usage: python tools/make_default_avatar.py [--out PATH]

The output is deterministic (same bytes every run); tests/avatar/test_default_avatar.py
checks that the committed file equals what this script writes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from avatar_gen.build import build  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "resources" / "avatar" / "hana.vrm"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the .vrm")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    data, summary = build()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    if not args.quiet:
        print(
            f"wrote {args.out} ({summary['bytes']} bytes): {summary['triangles']} triangles, "
            f"{summary['vertices']} vertices, {summary['bones']} joints "
            f"({summary['humanoid_bones']} humanoid), {summary['springs']} spring chains"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
