"""``python -m companion_desktop``: the same entry point as the console script."""

from companion_desktop.cli import main

raise SystemExit(main())
