"""Screenshots of the real windows under Xvfb, written to shots/ (git-ignored).

Run with a display, e.g. `DISPLAY=:99 .venv/bin/python tools/screenshots.py chat`.
Not part of the tests: it is how we look at what we build.
"""

import faulthandler
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage import repository
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import LlmSettings, save_settings
from companion_desktop.ui.chat import ChatBackend, ChatWindow
from companion_desktop.ui.settings import SettingsDialog
from companion_desktop.ui.settings.welcome import LocalServer, WelcomeDialog
from tests.ui.scripted_provider import Script, ScriptedServer, reply_with_block

OUT = Path(__file__).resolve().parents[1] / "shots"
OUT.mkdir(exist_ok=True)
which = sys.argv[1] if len(sys.argv) > 1 else "chat"


def shot(name):
    QApplication.processEvents()
    subprocess.run(["import", "-window", "root", str(OUT / name)], check=True)
    print("shot", name, flush=True)


def clock():
    return datetime.now().astimezone()


if os.environ.get("SHOTS_DEBUG"):
    faulthandler.dump_traceback_later(25, exit=True)
app = QApplication(sys.argv)
data = Path("/tmp/shots-data-" + which)
shutil.rmtree(data, ignore_errors=True)
db = Database.open(data)
service = CompanionService(db)
server = ScriptedServer().__enter__()
server.models = ["llama3.2:3b", "qwen2.5:7b", "gemma3:4b"]
steps = []


def run_steps():
    if not steps:
        app.quit()
        return
    delay, fn = steps.pop(0)
    def go():
        again = fn()
        if again is True:  # a condition not met yet: poll
            steps.insert(0, (100, fn))
        run_steps()
    QTimer.singleShot(delay, go)


def open_desktop(tools=None):
    """Hana in the chat window and on the desktop overlay, as the app wires them."""
    from companion_desktop.resources import default_avatar_path
    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.desktop import Desktop

    host = AvatarHost(fps=30)
    host.load_now(default_avatar_path())
    backend = ChatBackend(service, clock, tools=tools)
    backend.connect()
    win = ChatWindow(service, clock, backend, host)
    desk = Desktop(service, host, win, backend)
    win.move(0, 0)
    win.show()
    desk.overlay.show()
    return backend, win, desk


if which == "chat":
    now = clock()
    with db.session() as s:
        save_settings(s, LlmSettings(provider="ollama", base_url=server.base_url,
                                     model="llama3.2:3b"))
        sid = repository.start_session(s, now - timedelta(days=1))
        repository.add_turn(s, sid, "user", "Good morning! I have my driving test today…",
                            now - timedelta(days=1))
        repository.add_turn(s, sid, "assistant",
                            "Oh, today's the day! You've practised so much. Breathe, check your "
                            "mirrors, and remember I'm cheering for you.",
                            now - timedelta(days=1))
    service.load(now)
    backend = ChatBackend(service, clock)
    backend.connect()
    win = ChatWindow(service, clock, backend)
    win.move(0, 0)
    win.show()
    long = ("I passed! I can't believe it, the examiner even said my parking was perfect. "
            "I wanted you to be the first to know.")
    reply = ("Wait, really?! That's amazing, congratulations! I knew you could do it. "
             "All those early mornings practising parallel parking in the rain paid off. "
             "How does it feel to finally be free? Where do you want to drive first?")
    server.scripts.append(Script(reply_with_block(reply, affection_delta=6, trust_delta=2),
                                 delay=0.12, first_delay=1.5))
    def send():
        win.input.setPlainText(long)
        win.submit(win.input.toPlainText())
    steps += [
        (800, send),
        (700, lambda: shot("chat_phase.png")),
        (100, lambda: len(win.transcript.bubbles("her")) < 2
                      or len(win.transcript.bubbles("her")[-1].text()) < 90),
        (0, lambda: shot("chat_midstream.png")),
        (100, lambda: win.busy),
        (300, lambda: shot("chat_done.png")),
        (0, lambda: server.scripts.append(
            Script(status=503, error="model is loading, try again in a moment"))),
        (0, lambda: (win.input.setPlainText("Let's celebrate tonight?"),
                     win.submit(win.input.toPlainText()))),
        (100, lambda: win.busy),
        (300, lambda: (win.input.setPlainText("/relationship"), win.submit("/relationship"))),
        (300, lambda: shot("chat_error.png")),
        (0, lambda: server.scripts.append(Script(status=401, error="Incorrect API key provided"))),
        (0, lambda: (win.input.setPlainText("hello?"), win.submit("hello?"))),
        (100, lambda: win.busy),
        (300, lambda: shot("chat_error_401.png")),
    ]
elif which == "nomodel":
    backend = ChatBackend(service, clock)
    backend.connect()
    win = ChatWindow(service, clock, backend)
    win.move(0, 0)
    win.show()
    steps += [(800, lambda: shot("chat_no_provider.png"))]
elif which == "settings":
    with db.session() as s:
        save_settings(s, LlmSettings(provider="ollama", base_url=server.base_url,
                                     model="llama3.2:3b"))
    dlg = SettingsDialog(service, clock)
    dlg.move(0, 0)
    dlg.show()
    steps += [
        (400, lambda: dlg.llm.refresh_models()),
        (100, lambda: dlg.llm.model.count() == 0),
        (0, lambda: dlg.llm.test_connection()),
        (100, lambda: not dlg.llm.test_button.isEnabled()),
        (300, lambda: shot("settings_llm.png")),
        (0, lambda: dlg.show_page("Character")),
        (300, lambda: shot("settings_character.png")),
        (0, lambda: dlg.show_page("Display")),
        (300, lambda: shot("settings_display.png")),
        (0, lambda: dlg.show_page("Animations")),
        (300, lambda: shot("settings_animations.png")),
    ]
elif which == "welcome":
    servers = (LocalServer("ollama", server.root + "/api/tags", server.base_url),
               LocalServer("lmstudio", "http://127.0.0.1:9/v1/models", "http://127.0.0.1:9/v1"))
    service.load(clock())
    dlg = WelcomeDialog(service, servers)
    dlg.move(0, 0)
    dlg.show()
    steps += [
        (100, lambda: not dlg.again_button.isEnabled()),
        (400, lambda: shot("welcome.png")),
    ]

elif which == "overlay":
    with db.session() as s:
        save_settings(s, LlmSettings(provider="ollama", base_url=server.base_url,
                                     model="llama3.2:3b"))
    service.load(clock())
    backend, win, desk = open_desktop()
    reply = "Welcome back! I missed you. Tell me everything about your day?"
    server.scripts.append(Script(reply_with_block(reply, affection_delta=3),
                                 delay=0.15, first_delay=1.2))
    steps += [
        (1500, lambda: (desk.overlay.show_input(), desk.overlay.input.setText("I'm home!"))),
        (400, lambda: shot("overlay_input.png")),
        (0, lambda: [desk.overlay.input.returnPressed.emit()] and None),
        (600, lambda: shot("overlay_phase.png")),
        (100, lambda: len(desk.overlay.bubble.label.text()) < 30),
        (0, lambda: shot("overlay_midstream.png")),
        (100, lambda: win.busy),
        (500, lambda: shot("overlay_done.png")),
    ]

elif which == "media":  # a photo dropped on her, a spoken reply, a tool she must ask for
    import json as _json

    from PIL import Image

    from companion_desktop.pipeline.tool_access import ToolAccess
    from companion_desktop.storage.settings import McpServerEntry, McpSettings, VoiceSettings
    from tests.llm.provider_server import StreamReply
    from tests.llm.wire_formats import openai_tool_call_events

    class ToolCall(Script):
        def reply(self):
            return StreamReply(openai_tool_call_events([("c1", "demo__add", {"a": 19, "b": 23})],
                                                       texts=["Let me add that up. "]))

    demo = Path(__file__).resolve().parents[1] / "tests" / "mcp_servers" / "demo_server.py"
    with db.session() as s:
        save_settings(s, LlmSettings(provider="ollama", base_url=server.base_url,
                                     model="llava:13b"))
        save_settings(s, VoiceSettings(enabled=True))
        save_settings(s, McpSettings(servers=[McpServerEntry(name="demo", command=sys.executable,
                                                             args=[str(demo)], ask_tools=["add"])]))
    service.load(clock())
    service.set_mode("companion", clock())  # no first-meeting scene over the pictures
    photo = data / "sunset-at-the-lake.jpg"
    picture = Image.new("RGB", (1200, 800))
    for y in range(800):  # a sky that fades into a lake
        colour = ((250 - y // 6, 140 - y // 8, 90 + y // 8) if y < 480
                  else (40, 60 + (y - 480) // 8, 120))
        picture.paste(colour, (0, y, 1200, y + 1))
    picture.paste((255, 220, 120), (560, 380, 640, 460))
    picture.save(photo, "JPEG")
    tools = ToolAccess(db)
    backend, win, desk = open_desktop(tools)
    said = 'speak("Oh wow, what a sunset! The sky is melting right into the lake.") *leans closer*'
    block = {"mood_change": {"emotion": "excited", "intensity_delta": 10}, "expression": "happy",
             "new_memory": "They watched a sunset at the lake"}
    server.scripts.append(Script([said, "\n```json\n" + _json.dumps(block) + "\n```"], delay=0.05,
                                 first_delay=1.0))
    server.scripts += [ToolCall(), Script(reply_with_block("It makes 42! Easy."))]

    def ask_tool():
        win.input.setPlainText("What is 19 + 23?")
        win.submit(win.input.toPlainText())

    def allow():
        win.transcript.notices("ask")[0].buttons["Allow"].click()

    steps += [
        (1500, lambda: desk._show_image(str(photo), photo.name)),
        (700, lambda: shot("media_seeing.png")),
        (100, lambda: not desk.voice.speaking),
        (900, lambda: shot("media_speaking.png")),
        (100, lambda: desk.voice.speaking or win.busy),
        (300, ask_tool),
        (100, lambda: not win.transcript.notices("ask")),
        (300, lambda: shot("media_tool_ask.png")),
        (0, allow),
        (100, lambda: win.busy),
        (400, lambda: shot("media_tool_done.png")),
        (0, lambda: tools.close()),
    ]

run_steps()
app.exec()
try:
    backend.shutdown()
except NameError:
    pass
server.__exit__()
db.close()
