"""glTF/VRM 0.x and 1.0 loaded into numpy data: humanoid, expressions, look-at, spring bones."""
