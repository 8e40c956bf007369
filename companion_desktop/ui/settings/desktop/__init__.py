"""Settings > Desktop: life on the desktop, walking, quiet time, speaking first, hotkeys."""
