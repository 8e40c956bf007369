"""Settings > Memory: the facts she keeps, their graph, the embedding model."""
