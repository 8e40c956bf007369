"""Her voice and her hearing in the app: speech played with lip-sync, the microphone, the mic button and listening line."""
