"""The desktop side of the app and her life there: the X11 layer, where she stands, walking, out-of-the-way rules, speaking first, idle time, global hotkeys."""
