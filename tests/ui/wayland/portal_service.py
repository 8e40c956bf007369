"""A desktop portal's Screenshot call on a private session bus, speaking the portal's
D-Bus interface (``org.freedesktop.portal.Screenshot`` and its Request ``Response``
signal): it writes a known picture to a file, answers with its URI, and records the
options each call carried in ``calls.jsonl`` beside that file. Run as a program:
``python portal_service.py FOLDER [cancel]`` with DBUS_SESSION_BUS_ADDRESS set."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from jeepney import DBusAddress, HeaderFields, MessageType, new_error, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection
from PIL import Image

PORTAL = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"
INTROSPECTION = """<node><interface name="org.freedesktop.portal.Screenshot">
<method name="Screenshot"><arg type="s" name="parent_window" direction="in"/>
<arg type="a{sv}" name="options" direction="in"/><arg type="o" name="handle" direction="out"/>
</method><property name="version" type="u" access="read"/></interface></node>"""


def main(folder: Path, cancel: bool) -> None:
    conn = open_dbus_connection(bus="SESSION")
    conn.send_and_get_reply(message_bus.RequestName(PORTAL))
    print("ready", flush=True)
    count = 0
    while True:
        msg = conn.receive()
        if msg.header.message_type != MessageType.method_call:
            continue
        member = msg.header.fields.get(HeaderFields.member)
        if member == "Introspect":
            conn.send(new_method_return(msg, "s", (INTROSPECTION,)))
            continue
        if member != "Screenshot":
            conn.send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod"))
            continue
        parent, options = msg.body
        sender = msg.header.fields[HeaderFields.sender].lstrip(":").replace(".", "_")
        token = options["handle_token"][1]
        handle = f"{PATH}/request/{sender}/{token}"
        with (folder / "calls.jsonl").open("a") as out:
            out.write(json.dumps({"parent": parent, "handle": handle,
                                  "options": {k: v[1] for k, v in options.items()}}) + "\n")
        conn.send(new_method_return(msg, "o", (handle,)))
        count += 1
        picture = folder / f"Screenshot-{count}.png"
        image = Image.new("RGB", (320, 200), (0, 0, 255))
        image.paste((255, 0, 0), (0, 0, 160, 200))
        image.save(picture)
        code, results = (1, {}) if cancel else (0, {"uri": ("s", picture.as_uri())})
        conn.send(new_signal(DBusAddress(handle, interface="org.freedesktop.portal.Request"),
                             "Response", "ua{sv}", (code, results)))


if __name__ == "__main__":
    main(Path(sys.argv[1]), len(sys.argv) > 2 and sys.argv[2] == "cancel")
