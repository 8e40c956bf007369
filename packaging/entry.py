"""The bundle's program: the same entry point as the ``companion-desktop`` console script.

Called as ``companion-desktop --run-her-mind ...`` (by the app itself: a bundle has no
separate Python to run a module with), it is her own mind's process instead
(``companion_desktop.llm.mind.serve``).
"""

import sys

if len(sys.argv) > 1 and sys.argv[1] == "--run-her-mind":  # host.FROZEN_SERVE_FLAG
    from companion_desktop.llm.mind.serve import main as serve

    raise SystemExit(serve(sys.argv[2:]))

from companion_desktop.cli import main  # noqa: E402 - after the mind's early exit

raise SystemExit(main())
