"""Voice input: hearing (capture-independent), voice activity, echo removal, speech to text.

No Qt here: the UI hands captured 16 kHz mono float32 samples to :class:`listener.Listener`
and the recognised audio to a :class:`stt.Transcriber`. The optional packages
(``pip install companion-desktop[voice]``) are imported only when used.
"""
