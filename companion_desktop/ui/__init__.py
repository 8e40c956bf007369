"""The Qt widgets, in rooms of one concept each; this core holds what every room shares."""
