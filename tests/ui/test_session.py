"""Which Qt platform she starts on (``ui.start.session``): XWayland by default in a Wayland
session, native Wayland when chosen or without XWayland, the user's own choice kept;
Settings > Display's switch and the line that says what native Wayland gives up; the
overlay bypassing a window manager that cannot keep her above."""

from __future__ import annotations

import socket

import pytest

from companion_desktop.storage.quick_read import setting
from companion_desktop.storage.settings import DisplaySettings, load_settings
from companion_desktop.ui.start import session
from tests.conftest import T0

WAYLAND = {"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}


def usable(display: str) -> bool:
    return True


def unusable(display: str) -> bool:
    return False


@pytest.mark.parametrize("env,native,x11,platform,why", [
    ({**WAYLAND, "DISPLAY": ":0"}, False, usable, "xcb;wayland", "xwayland"),
    ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, False, usable, "xcb;wayland", "xwayland"),
    ({"XDG_SESSION_TYPE": "wayland", "DISPLAY": ":1"}, False, usable, "xcb;wayland", "xwayland"),
    ({**WAYLAND, "DISPLAY": ":0"}, True, usable, "wayland;xcb", "native"),
    ({**WAYLAND}, True, usable, "wayland", "native"),
    ({**WAYLAND}, False, usable, "wayland", "no-xwayland"),
    ({**WAYLAND, "DISPLAY": ":0"}, False, unusable, "wayland", "no-xwayland"),
    ({**WAYLAND, "DISPLAY": ":0", "QT_QPA_PLATFORM": "wayland"}, False, usable, None, "user"),
    ({**WAYLAND, "DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}, True, usable, None, "user"),
    ({"XDG_SESSION_TYPE": "x11", "DISPLAY": ":0"}, True, usable, None, "x11"),
    ({"DISPLAY": ":0"}, False, usable, None, "x11"),
])
def test_choice(env, native, x11, platform, why):
    assert session.choose(env, native, x11) == session.Choice(platform, why)


def test_apply_sets_the_platform_and_keeps_the_users():
    env = {**WAYLAND}
    assert session.apply(False, env).why == "no-xwayland"
    assert env["QT_QPA_PLATFORM"] == "wayland"
    env = {**WAYLAND, "QT_QPA_PLATFORM": "offscreen"}
    assert session.apply(False, env) == session.Choice(None, "user")
    assert env["QT_QPA_PLATFORM"] == "offscreen"


def test_an_x_server_answers_on_its_socket(tmp_path, monkeypatch):
    assert not session.x_server_answers(":4242", timeout_s=0.1)  # nobody listens there
    assert session.x_server_answers("remote-host:0")  # not checked: taken as it is
    assert not session.x_server_answers("")
    path = tmp_path / "X7"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    real = socket.socket.connect

    def connect(sock, address):  # noqa: ANN001, ANN202 - the display's socket lives here
        if isinstance(address, str) and address.endswith("/X7"):
            address = "\0" if address.startswith("\0") else str(path)
        return real(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    try:
        assert session.x_server_answers(":7", timeout_s=0.5)
    finally:
        listener.close()


def test_the_x11_plugin_loads_here():
    assert session.xcb_plugin_loads()  # PySide6 ships it; the bootstrap installs its libraries


def test_native_wayland_is_read_before_storage(service):
    folder = service.db.path.parent
    assert setting(folder, "display", "native_wayland", False) is False
    from companion_desktop.storage.settings import save_settings

    with service.db.session() as db_session:
        save_settings(db_session, DisplaySettings(native_wayland=True))
    assert setting(folder, "display", "native_wayland", False) is True


def test_display_page_switch_and_limits_line(qtbot, service, monkeypatch):
    from companion_desktop.ui.settings import SettingsDialog

    dialog = SettingsDialog(service, lambda: T0, page="Display")
    qtbot.addWidget(dialog)
    assert not dialog.display.native_wayland.isChecked()  # XWayland by default
    assert dialog.display.limits.isHidden()  # nothing is missing on this platform
    dialog.display.native_wayland.setChecked(True)
    assert dialog.save()
    with service.db.read_session() as db_session:
        assert load_settings(db_session, DisplaySettings).native_wayland is True
    monkeypatch.setattr(session, "platform_name", lambda: "wayland")
    native = SettingsDialog(service, lambda: T0, page="Display")
    qtbot.addWidget(native)
    assert native.display.native_wayland.isChecked()
    assert not native.display.limits.isHidden()
    assert native.display.limits.text() == session.NATIVE_LIMITS


def test_xwayland_note_only_in_a_wayland_session(monkeypatch):
    monkeypatch.setattr(session, "platform_name", lambda: "xcb")
    assert session.xwayland_note({**WAYLAND, "DISPLAY": ":0"}) == session.XWAYLAND_NOTE
    assert session.xwayland_note({"DISPLAY": ":0"}) is None
    monkeypatch.setattr(session, "platform_name", lambda: "wayland")
    assert session.xwayland_note(WAYLAND) is None
    assert session.limits() == session.NATIVE_LIMITS
