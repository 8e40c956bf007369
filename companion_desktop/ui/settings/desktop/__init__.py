"""Settings > Desktop: life on the desktop, walking, quiet time and speaking first, global hotkeys."""
