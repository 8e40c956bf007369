"""The Settings window and its pages (LLM Model, Character)."""

from companion_desktop.ui.settings.dialog import SettingsDialog

__all__ = ["SettingsDialog"]
