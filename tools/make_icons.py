"""Write the desktop icons from the app's SVG (companion_desktop.ui.app_icon):
``resources/icons/hicolor/scalable/apps/<id>.svg`` and a PNG for each size in
``hicolor/<n>x<n>/apps/``. Run it again after changing the SVG:

    .venv/bin/python tools/make_icons.py [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_icons(out: Path) -> list[Path]:
    """Write the SVG and the PNGs under ``out`` (a hicolor theme root); the paths."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    from companion_desktop.desktop_entry import APP_ID
    from companion_desktop.ui.app_icon import ICON_SIZES, ICON_SVG, icon_image

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # kept while drawing
    svg = out / "scalable" / "apps" / f"{APP_ID}.svg"
    svg.parent.mkdir(parents=True, exist_ok=True)
    svg.write_text(ICON_SVG, encoding="utf-8")
    written = [svg]
    for size in ICON_SIZES:
        png = out / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        png.parent.mkdir(parents=True, exist_ok=True)
        if not icon_image(size).save(str(png), "PNG"):
            raise OSError(f"{png} could not be written")
        written.append(png)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "resources" / "icons" / "hicolor",
                        help="the hicolor folder to write into")
    args = parser.parse_args(argv)
    for path in write_icons(args.out):
        print(path.relative_to(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
