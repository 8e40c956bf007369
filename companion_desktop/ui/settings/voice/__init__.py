"""Settings > Voice: her voice and how she listens."""
