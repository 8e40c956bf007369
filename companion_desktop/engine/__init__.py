"""Pure rules: standard library only; the clock and randomness are passed in."""
