"""The bundle's program: the same entry point as the ``companion-desktop`` console script."""

from companion_desktop.cli import main

raise SystemExit(main())
