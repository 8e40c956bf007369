"""What other programs' windows say about themselves, read as EWMH and ICCCM define it, on a
real X display with openbox: a title of the wrong type or format falls back to WM_NAME (or
is empty) and never shows as numbers; window types the app cannot name are passed over;
an atom the X server never made hides no window."""

from __future__ import annotations

import time

import pytest

from tests.ui.desktop.x11_desktop import start_window_manager, windows  # noqa: F401 - a fixture

pytestmark = [pytest.mark.qt, pytest.mark.slow]
BOGUS = 0x1FFFFFF0  # an atom number no X server has made (atoms are counted up from 69)
FUTURE = "_NET_WM_WINDOW_TYPE_NOT_YET_INVENTED"  # a real atom, but no type EWMH defines
NORMAL, DOCK, DIALOG = (f"_NET_WM_WINDOW_TYPE_{kind}" for kind in ("NORMAL", "DOCK", "DIALOG"))


@pytest.fixture(scope="module")
def xd():
    yield from start_window_manager()


@pytest.fixture
def desk(xd, qtbot):  # noqa: ARG001 - qtbot: the Qt application
    from companion_desktop.ui.desktop.x11 import DesktopX11

    desk = DesktopX11()
    if not desk.available:
        pytest.skip(desk.reason)
    yield desk
    desk.want("test", False)


def managed(xd, wins) -> None:  # noqa: ANN001
    """Waits until the window manager lists every one of ``wins`` (so the desktop's first
    read sees them all)."""
    atom = xd.intern_atom("_NET_CLIENT_LIST")
    deadline = time.monotonic() + 5
    while True:
        listed = xd.screen().root.get_full_property(atom, 0)
        if listed is not None and {w.win.id for w in wins} <= set(listed.value):
            return
        assert time.monotonic() < deadline, "openbox did not manage the test windows"
        time.sleep(0.02)


def read(qtbot, desk, wins, expected: int) -> dict[int, str]:  # noqa: ANN001
    """The titles of those of ``wins`` that the desktop model holds, once it holds
    ``expected`` of them, by window id."""
    ids = {w.win.id for w in wins}
    desk.want("test", True)
    qtbot.waitUntil(lambda: len([w for w in desk.windows() if w.wid in ids]) >= expected,
                    timeout=3000)
    qtbot.wait(50)  # nothing more arrives
    return {w.wid: w.title for w in desk.windows() if w.wid in ids}


def test_a_title_of_the_wrong_type_or_format_falls_back_or_is_empty(qtbot, xd, windows, desk):
    numbers = windows(0, 0, 200, 150, props=(("_NET_WM_NAME", "CARDINAL", 32, [1, 2, 3]),
                                             ("WM_NAME", "STRING", 8, b"Numbers")))
    utf8 = windows(210, 0, 200, 150, title="Plain",
                   props=(("_NET_WM_NAME", "UTF8_STRING", 8, "Grüße ✓".encode()),))
    latin1 = windows(420, 0, 200, 150, props=(("_NET_WM_NAME", "STRING", 8, b"wrong type"),
                                              ("WM_NAME", "STRING", 8, "Café".encode("latin-1"))))
    compound = windows(630, 0, 200, 150, props=(("_NET_WM_NAME", "INTEGER", 32, [7]),
                                                ("WM_NAME", "COMPOUND_TEXT", 8, b"Compound")))
    wide = windows(840, 0, 200, 150, props=(("_NET_WM_NAME", "UTF8_STRING", 16, [72, 105]),
                                            ("WM_NAME", "CARDINAL", 32, [4, 5])))
    made = (numbers, utf8, latin1, compound, wide)
    managed(xd, made)
    titles = read(qtbot, desk, made, len(made))
    assert [titles[w.win.id] for w in made] == ["Numbers", "Grüße ✓", "Café", "Compound", ""]

    numbers.activate()  # the active window's title, read again when it changes
    qtbot.waitUntil(lambda: desk.active_window() == ("testapp", "Numbers", False), timeout=3000)
    numbers.set("_NET_WM_NAME", "CARDINAL", 32, [9, 9])
    numbers.set("WM_NAME", "STRING", 8, b"Renamed")
    qtbot.waitUntil(lambda: desk.active_window() == ("testapp", "Renamed", False), timeout=3000)


def test_window_types_the_app_cannot_name_are_passed_over(qtbot, xd, windows, desk):
    """EWMH: types in order of preference; unknown ones are ignored, the first known one is
    the window's type, a window with none it knows is NORMAL."""
    shown = [windows(20 + 110 * i, 200, 100, 100, title=f"shown {i}", kind=kinds)
             for i, kinds in enumerate(([BOGUS, NORMAL], [FUTURE, NORMAL], [FUTURE], [BOGUS],
                                        [FUTURE, BOGUS, NORMAL, DOCK]))]
    hidden = [windows(20 + 110 * i, 400, 100, 100, title=f"hidden {i}", kind=kinds)
              for i, kinds in enumerate(([BOGUS, DOCK], [FUTURE, DIALOG, NORMAL]))]
    managed(xd, shown + hidden)
    titles = read(qtbot, desk, shown + hidden, len(shown))
    assert sorted(titles.values()) == [f"shown {i}" for i in range(len(shown))]


def test_a_state_atom_the_server_never_made_hides_no_window(qtbot, xd, windows, desk):
    odd = windows(100, 600, 300, 200, title="Odd state")
    managed(xd, [odd])
    # the window manager has written its state; a bogus atom beside the real ones
    state = xd.intern_atom("_NET_WM_STATE")
    odd.set("_NET_WM_STATE", "ATOM", 32, [BOGUS, xd.intern_atom("_NET_WM_STATE_ABOVE")])
    assert BOGUS in odd.win.get_full_property(state, 0).value
    assert read(qtbot, desk, [odd], 1) == {odd.win.id: "Odd state"}
