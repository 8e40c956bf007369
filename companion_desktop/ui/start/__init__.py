"""Her start: the Qt platform chosen before Qt starts (``session``: XWayland or native
Wayland, and what the session allows) and the first window shown before storage opens
(``first_window``). Neither imports storage or the pipeline."""
