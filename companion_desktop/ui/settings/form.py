"""What the settings pages (and the first run's welcome) share: the save refusal, the
status line, the form layout and one provider call off a page's thread."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel

from companion_desktop.llm.base import ProviderConfig
from companion_desktop.pipeline.provider_setup import open_provider


class SettingsProblem(Exception):
    """A page cannot save as filled in; the message says why."""


def call_provider(config: ProviderConfig, method: str) -> object:
    """Open a provider for ``config``, call ``method`` (list_models, test_connection), close it."""
    provider = open_provider(config)
    try:
        return getattr(provider, method)()
    finally:
        client = getattr(provider, "client", None)
        if client is not None:
            client.close()


def status(label: QLabel, text: str, kind: str) -> None:
    """Show ``text`` in ``label`` styled as ``kind`` ("ok", "error", "hint")."""
    label.setText(text)
    label.setProperty("kind", kind)
    label.style().unpolish(label)
    label.style().polish(label)
    label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    label.setVisible(bool(text))


def new_form() -> QFormLayout:
    form = QFormLayout()
    form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
    form.setVerticalSpacing(12)
    form.setHorizontalSpacing(14)
    return form


def name_labels(form: QFormLayout) -> None:
    """Name the row labels so the style sheet lines them up with the first field line."""
    for row in range(form.rowCount()):
        item = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
        if item is not None and item.widget() is not None:
            item.widget().setObjectName("formLabel")
