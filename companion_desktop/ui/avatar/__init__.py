"""Her picture, shared by both windows: the one GL context, the host that animates her, the views that show her."""
