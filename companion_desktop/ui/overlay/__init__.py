"""Her window on the desktop: the frameless overlay, her speech bubble and compact input, photo mode."""
