"""Generate the built-in animations:
``resources/animations/*.vrma``, ``library.json``
and ``README.md``.

Usage: python tools/make_builtin_clips.py [--out DIR] [--quiet]

Every keyframe is authored in ``tools/clips_gen`` (no third-party motion data). The output
is deterministic (same bytes every run); tests/avatar/test_builtin_clips.py checks that
the committed files equal what this script writes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clips_gen.build import build  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "resources" / "animations"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the folder to write")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    files, motions = build()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (args.out / name).write_bytes(data)
    if not args.quiet:
        for m in motions:
            size = len(files[f"{m.id}.vrma"])
            print(f"{m.id:20s} {m.kind:8s} {m.duration:5.2f} s  {'loop' if m.loop else '    '}"
                  f"  {size:7d} bytes")
        print(f"wrote {len(files)} files to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
