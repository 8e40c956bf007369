"""The Settings window and its pages; the first run's welcome; the bigger pages in folders."""

from companion_desktop.ui.settings.dialog import SettingsDialog

__all__ = ["SettingsDialog"]
