"""Her picture, shared by both windows: the GL context, the host that animates her, the views."""
