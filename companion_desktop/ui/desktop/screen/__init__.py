"""Her eyes on the screen: a capture of the active window or the whole screen with her
windows cut out and denied windows refused or blacked out (``capture``, X11; ``portal``,
the desktop portal on Wayland), and the opt-in glance now and then (``glance``)."""
