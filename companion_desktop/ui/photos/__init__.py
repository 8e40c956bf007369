"""Photos shown to her: preparing a shown photo, the photoboard that keeps them, their widgets."""
