"""Settings > Tools: the MCP servers she may use, their tools, and which tools ask first.

A server is a local program (stdio: command, arguments, environment) or a web address
(streamable HTTP: URL, headers). Environment and header *values* are secrets: they go
to the system keyring on Save (``keys.set_mcp_secret``); only their names are stored in
the settings. Editing shows the names with masked values and keeps a stored value
unless it is changed. "List tools" connects off the GUI thread (20 s at most).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.llm import keys
from companion_desktop.llm.mcp_client import McpHub, McpServerConfig, McpTool
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.settings import (
    McpServerEntry,
    McpSettings,
    load_settings,
    save_settings,
)
from companion_desktop.ui.background import run_in_background
from companion_desktop.ui.settings.llm_page import SettingsProblem, name_labels, new_form, status
from companion_desktop.ui.switch import Switch
from companion_desktop.ui.style import STYLE_SHEET

MASK = "••••"
#: Seconds "List tools" waits for a server; at most this many of its tools are shown.
LIST_TIMEOUT_S, MAX_SHOWN_TOOLS = 20.0, 200
TRANSPORTS = {"stdio": "Local program (stdio)", "http": "Web (streamable HTTP)"}
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
Secret = tuple[str, str]  # (kind "env"|"header", name)


@dataclass
class Draft:
    """A server as edited on the page: its entry, the saved name, new secret values."""

    entry: McpServerEntry
    stored: McpServerEntry | None = None
    secrets: dict[Secret, str] = field(default_factory=dict)

    def secret(self, kind: str, name: str) -> str:
        """The value to use now: a newly typed one, else the keyring's ("" when none)."""
        if (kind, name) in self.secrets:
            return self.secrets[(kind, name)]
        owner = self.stored.name if self.stored is not None else self.entry.name
        return keys.get_mcp_secret(owner, kind, name) or ""

    def config(self) -> McpServerConfig:
        """The connection this draft describes (secrets read here: call off the GUI thread)."""
        e = self.entry

        def values(kind: str, names: list[str]) -> dict[str, str]:
            found = {name: self.secret(kind, name) for name in names}
            return {name: value for name, value in found.items() if value}

        return McpServerConfig(
            name=e.name, transport=e.transport, command=e.command, args=tuple(e.args),
            env=values("env", e.env_names), url=e.url,
            headers=values("header", e.header_names), enabled=True)


def parse_pairs(text: str, kind: str, known: list[str]) -> tuple[list[str], dict[str, str]]:
    """``NAME=value`` (env) or ``Name: value`` (header) lines -> names, new values.

    A value left as the mask keeps the stored one (only for ``known`` names).
    ValueError with a user-facing message on a malformed line.
    """
    sep, pattern = ("=", ENV_NAME) if kind == "env" else (":", HEADER_NAME)
    names: list[str] = []
    values: dict[str, str] = {}
    for line in (raw.strip() for raw in text.splitlines()):
        if not line:
            continue
        name, found, value = line.partition(sep)
        name, value = name.strip(), value.strip()
        what = "Environment" if kind == "env" else "Header"
        form = "NAME=value" if kind == "env" else "Name: value"
        if not found or not pattern.fullmatch(name):
            raise ValueError(f"{what} line “{line[:40]}” is not {form}.")
        if name in names:
            raise ValueError(f"{what} {name} is given twice.")
        if not value or (value == MASK and name not in known):
            raise ValueError(f"{what} {name} needs a value ({form}).")
        names.append(name)
        if value != MASK:
            values[name] = value
    return names, values


def problem_of(entry: McpServerEntry, others: list[str]) -> str | None:
    """What stops ``entry`` from being saved, or None."""
    if not entry.name.strip():
        return "Give the server a name."
    if entry.name in others:
        return f"There is already a server called {entry.name}."
    if entry.transport == "stdio" and not entry.command.strip():
        return f"{entry.name}: enter the program to run (command)."
    if entry.transport == "http" and not re.match(r"https?://[^\s/]+", entry.url):
        return f"{entry.name}: the URL must start with http:// or https://."
    return None


class ServerEditor(QDialog):
    """Edits one Draft in place on OK; ``others`` are the names already taken."""

    def __init__(self, draft: Draft, others: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcpEditor")
        self.setWindowTitle("MCP server")
        self.setStyleSheet(STYLE_SHEET)
        self.draft, self.others = draft, others
        e = draft.entry
        form = new_form()
        self.name = QLineEdit(e.name, objectName="mcpName", maxLength=64)
        self.transport = QComboBox(objectName="mcpTransport")
        for key, label in TRANSPORTS.items():
            self.transport.addItem(label, key)
        self.transport.setCurrentIndex(self.transport.findData(e.transport))
        self.command = QLineEdit(e.command, objectName="mcpCommand",
                                 placeholderText="e.g. npx or /usr/bin/python3")
        self.args = QLineEdit(shlex.join(e.args), objectName="mcpArgs",
                              placeholderText="e.g. -y @modelcontextprotocol/server-memory")
        self.env = QPlainTextEdit("\n".join(f"{n}={MASK}" for n in e.env_names),
                                  objectName="mcpEnv", placeholderText="NAME=value, one a line")
        self.url = QLineEdit(e.url, objectName="mcpUrl", placeholderText="https://example.com/mcp")
        self.headers = QPlainTextEdit("\n".join(f"{n}: {MASK}" for n in e.header_names),
                                      objectName="mcpHeaders",
                                      placeholderText="Authorization: Bearer …, one a line")
        for box in (self.env, self.headers):
            box.setFixedHeight(76)
        form.addRow("Name", self.name)
        form.addRow("Connection", self.transport)
        self.rows = {"stdio": [self.command, self.args, self.env], "http": [self.url, self.headers]}
        for label, widget in (("Command", self.command), ("Arguments", self.args),
                              ("Environment", self.env), ("URL", self.url),
                              ("Headers", self.headers)):
            form.addRow(label, widget)
        self.form = form
        name_labels(form)
        self.problem = QLabel(objectName="statusLine", wordWrap=True)
        buttons = QDialogButtonBox()
        buttons.addButton(QPushButton("Cancel", objectName="secondaryButton"),
                          QDialogButtonBox.ButtonRole.RejectRole)
        buttons.addButton(QPushButton("OK", objectName="primaryButton", default=True),
                          QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(22, 18, 22, 16)
        layout.addLayout(form)
        layout.addWidget(QLabel("Arguments are split like a shell does (quote paths with "
                                "spaces). Environment and header values are kept in the "
                                f"system keyring; saved ones show as {MASK}.",
                                objectName="pageHint", wordWrap=True))
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.problem.hide()
        self.transport.currentIndexChanged.connect(self._transport_changed)
        self._transport_changed()
        self.resize(540, 420)

    def _transport_changed(self) -> None:
        chosen = self.transport.currentData()
        for kind, widgets in self.rows.items():
            for widget in widgets:
                self.form.setRowVisible(widget, kind == chosen)

    def edited(self) -> Draft:
        """The draft as filled in; ValueError with a message when it cannot be used."""
        old = self.draft.entry
        try:
            args = shlex.split(self.args.text())
        except ValueError as error:
            raise ValueError(f"Arguments: {error} (check the quotes).") from None
        env_names, env = parse_pairs(self.env.toPlainText(), "env", old.env_names)
        header_names, headers = parse_pairs(self.headers.toPlainText(), "header",
                                            old.header_names)
        entry = old.model_copy(update=dict(
            name=self.name.text().strip(), transport=self.transport.currentData(),
            command=self.command.text().strip(), args=args, env_names=env_names,
            url=self.url.text().strip(), header_names=header_names))
        problem = problem_of(entry, self.others)
        if problem:
            raise ValueError(problem)
        secrets = {k: v for k, v in self.draft.secrets.items()
                   if k[1] in (env_names if k[0] == "env" else header_names)}
        secrets.update({("env", n): v for n, v in env.items()})
        secrets.update({("header", n): v for n, v in headers.items()})
        return Draft(entry, self.draft.stored, secrets)

    def accept(self) -> None:
        try:
            result = self.edited()
        except ValueError as error:
            status(self.problem, str(error), "error")
            return
        self.draft.entry, self.draft.secrets = result.entry, result.secrets
        super().accept()


class ServerRow(QFrame):
    """One line of the server list: name, connection kind, status, on/off switch."""

    def __init__(self, draft: Draft, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcpServerRow")
        line = QHBoxLayout(self)
        line.setContentsMargins(10, 6, 10, 6)
        self.name = QLabel(objectName="mcpServerName")
        self.kind = QLabel(objectName="pageHint")
        self.state = QLabel("not checked", objectName="statusLine")
        self.enabled = Switch()
        self.enabled.setObjectName("mcpEnabled")
        self.enabled.setToolTip("Let her use this server's tools")
        line.addWidget(self.name)
        line.addWidget(self.kind)
        line.addStretch(1)
        line.addWidget(self.state)
        line.addWidget(self.enabled)
        self.show_draft(draft)

    def show_draft(self, draft: Draft) -> None:
        self.name.setText(draft.entry.name)
        self.kind.setText(TRANSPORTS[draft.entry.transport])
        self.enabled.setChecked(draft.entry.enabled)


class McpPage(QWidget):
    """Reads the saved McpSettings; ``apply()`` writes secrets to the keyring, then them."""

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        #: Asks the user a yes/no question (tests replace it).
        self.confirm: Callable[[str], bool] = self._ask
        #: Opens the editor; returns True when the user pressed OK (tests replace it).
        self.edit_dialog: Callable[[ServerEditor], bool] = lambda dlg: bool(dlg.exec())
        self.tools: dict[str, list[McpTool]] = {}
        self.setStyleSheet(PAGE_STYLE)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Tools", objectName="pageTitle"))
        layout.addWidget(QLabel(
            "MCP servers give her tools: programs on this computer or web services she can "
            "use while she answers.", objectName="pageHint", wordWrap=True))
        layout.addSpacing(8)
        self.server_list = QListWidget(objectName="mcpServers")
        self.server_list.currentRowChanged.connect(lambda _row: self._selection_changed())
        layout.addWidget(self.server_list)
        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add…", objectName="secondaryButton")
        self.edit_button = QPushButton("Edit…", objectName="secondaryButton")
        self.remove_button = QPushButton("Remove", objectName="secondaryButton")
        self.list_button = QPushButton("List tools", objectName="secondaryButton")
        for button, slot in ((self.add_button, self.add_server), (self.edit_button, self.edit),
                             (self.remove_button, self.remove),
                             (self.list_button, self.list_tools)):
            button.clicked.connect(lambda _=False, s=slot: s())
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.busy = QProgressBar(objectName="mcpBusy", textVisible=False, maximumHeight=8)
        self.busy.setRange(0, 0)
        self.busy.hide()
        layout.addWidget(self.busy)
        self.status_line = QLabel(objectName="statusLine", wordWrap=True)
        self.status_line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status_line.hide()
        layout.addWidget(self.status_line)
        self.tools_title = QLabel(objectName="sectionTitle")
        layout.addWidget(self.tools_title)
        self.tool_box = QVBoxLayout()
        self.tool_box.setSpacing(2)
        layout.addLayout(self.tool_box)
        layout.addStretch(1)
        self.reload()

    # ------------------------------------------------------------ the list
    def reload(self) -> None:
        """Show what is stored now (unsaved edits are dropped)."""
        with self.service.db.read_session() as session:
            self.saved = load_settings(session, McpSettings)
        self.drafts = [Draft(e.model_copy(deep=True), e) for e in self.saved.servers]
        self.server_list.clear()
        for draft in self.drafts:
            self._add_row(draft)
        self.server_list.setCurrentRow(0 if self.drafts else -1)
        self._fit_list()
        self._selection_changed()

    def _fit_list(self) -> None:
        """The list as tall as its rows (at least two rows, at most eight)."""
        rows = max(2, min(8, self.server_list.count()))
        self.server_list.setFixedHeight(rows * 44 + 12)

    def _add_row(self, draft: Draft) -> None:
        row = ServerRow(draft)
        row.enabled.toggled.connect(lambda on, d=draft: setattr(d.entry, "enabled", on))
        item = QListWidgetItem(self.server_list)
        item.setSizeHint(row.sizeHint())
        self.server_list.setItemWidget(item, row)
        self._fit_list()

    def row(self, index: int) -> ServerRow:
        widget = self.server_list.itemWidget(self.server_list.item(index))
        assert isinstance(widget, ServerRow)
        return widget

    def selected(self) -> Draft | None:
        index = self.server_list.currentRow()
        return self.drafts[index] if 0 <= index < len(self.drafts) else None

    def _selection_changed(self) -> None:
        draft = self.selected()
        for button in (self.edit_button, self.remove_button, self.list_button):
            button.setEnabled(draft is not None)
        status(self.status_line, "" if self.drafts else "No servers yet: Add one.", "hint")
        self._show_tools(draft)

    def _names(self, skip: Draft | None = None) -> list[str]:
        return [d.entry.name for d in self.drafts if d is not skip]

    def add_server(self) -> bool:
        draft = Draft(McpServerEntry(name=self._free_name()))
        if not self._run_editor(draft, self._names()):
            return False
        self.drafts.append(draft)
        self._add_row(draft)
        self.server_list.setCurrentRow(len(self.drafts) - 1)
        return True

    def _run_editor(self, draft: Draft, others: list[str]) -> bool:
        editor = ServerEditor(draft, others, self)
        try:
            return self.edit_dialog(editor)
        finally:
            editor.deleteLater()

    def _free_name(self) -> str:
        names, n = self._names(), 1
        while f"server {n}" in names:
            n += 1
        return f"server {n}"

    def edit(self) -> bool:
        draft = self.selected()
        if draft is None:
            return False
        old = draft.entry.name
        if not self._run_editor(draft, self._names(draft)):
            return False
        self.tools.pop(old, None)  # the listing may no longer be right
        self.row(self.server_list.currentRow()).show_draft(draft)
        self._set_state(draft, "not checked", "hint")
        self._selection_changed()
        return True

    def _ask(self, text: str) -> bool:
        answer = QMessageBox.question(self, "Remove server", text)
        return answer == QMessageBox.StandardButton.Yes

    def remove(self) -> bool:
        index, draft = self.server_list.currentRow(), self.selected()
        if draft is None or not self.confirm(f"Remove {draft.entry.name}? Its saved secrets "
                                             "are deleted when you press Save."):
            return False
        self.drafts.pop(index)
        self.tools.pop(draft.entry.name, None)
        self.server_list.takeItem(index)
        self._fit_list()
        self._selection_changed()
        return True

    # --------------------------------------------------------------- tools
    def list_tools(self) -> None:
        """Connect to the selected server off the GUI thread and show its tools."""
        draft = self.selected()
        if draft is None:
            return
        self.list_button.setEnabled(False)
        self.busy.show()
        status(self.status_line, f"Connecting to {draft.entry.name}…", "hint")
        run_in_background(self, lambda: fetch_tools(draft.config()),
                          lambda tools: self._listed(draft, tools),
                          lambda error: self._list_failed(draft, error))

    def _listed(self, draft: Draft, tools: list[McpTool]) -> None:
        self.busy.hide()
        self.tools[draft.entry.name] = tools
        self._set_state(draft, f"{len(tools)} tool{'s' * (len(tools) != 1)}", "ok")
        status(self.status_line, f"✓  {draft.entry.name} offers {len(tools)} "
                                 f"tool{'s' * (len(tools) != 1)}.", "ok")
        self._selection_changed_keep_status()

    def _list_failed(self, draft: Draft, error: Exception) -> None:
        self.busy.hide()
        self._set_state(draft, "error", "error")
        status(self.status_line, f"✗  {draft.entry.name}: {error}", "error")
        self._selection_changed_keep_status()

    def _selection_changed_keep_status(self) -> None:
        self.list_button.setEnabled(self.selected() is not None)
        self._show_tools(self.selected())

    def _set_state(self, draft: Draft, text: str, kind: str) -> None:
        if draft in self.drafts:
            label = self.row(self.drafts.index(draft)).state
            status(label, text, kind)
            label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def _show_tools(self, draft: Draft | None) -> None:
        while self.tool_box.count():
            widget = self.tool_box.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        tools = self.tools.get(draft.entry.name) if draft is not None else None
        self.tools_title.setText(f"Tools of {draft.entry.name}" if draft else "")
        self.tools_title.setVisible(draft is not None)
        if draft is None:
            return
        if tools is None:
            self.tool_box.addWidget(QLabel("Press List tools to see what it offers.",
                                           objectName="pageHint"))
        for tool in (tools or [])[:MAX_SHOWN_TOOLS]:
            self.tool_box.addWidget(self._tool_row(draft, tool))
        if tools and len(tools) > MAX_SHOWN_TOOLS:
            self.tool_box.addWidget(QLabel(f"…and {len(tools) - MAX_SHOWN_TOOLS} more.",
                                           objectName="pageHint"))

    def _tool_row(self, draft: Draft, tool: McpTool) -> QWidget:
        row = QFrame(objectName="mcpToolRow")
        line = QHBoxLayout(row)
        line.setContentsMargins(10, 4, 10, 4)
        summary = (tool.description or "").strip().splitlines()
        text = QLabel(f"<b>{escape(tool.name)}</b>  {escape(summary[0][:160]) if summary else ''}",
                      objectName="mcpToolText", wordWrap=True)
        ask = QCheckBox("Ask before running", objectName="mcpAsk")
        ask.setProperty("tool", tool.name)
        ask.setChecked(tool.name in draft.entry.ask_tools)
        ask.toggled.connect(lambda on, d=draft, n=tool.name: set_ask(d, n, on))
        line.addWidget(text, 1)
        line.addWidget(ask)
        return row

    def ask_boxes(self) -> dict[str, QCheckBox]:
        """The shown "Ask before running" boxes, by tool name."""
        return {box.property("tool"): box for box in self.findChildren(QCheckBox, "mcpAsk")
                if box.isVisibleTo(self)}

    # ----------------------------------------------------------------- save
    def check(self) -> None:
        """SettingsProblem when a server cannot be saved as filled in."""
        for draft in self.drafts:
            problem = problem_of(draft.entry, self._names(draft))
            if problem:
                raise SettingsProblem(f"Tools: {problem}")

    def apply(self) -> None:
        """Secrets to the keyring, then every server in one transaction."""
        self.check()
        try:
            write_secrets(self.saved.servers, self.drafts)
        except keys.KeyStoreError as error:
            raise SettingsProblem(f"Tools: {error}") from None
        settings = McpSettings(servers=[d.entry for d in self.drafts])
        with self.service.db.session() as session:
            save_settings(session, settings)
        self.saved = settings
        for draft in self.drafts:
            draft.stored, draft.secrets = draft.entry.model_copy(deep=True), {}


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def set_ask(draft: Draft, tool: str, on: bool) -> None:
    """Add or remove ``tool`` from the draft's ask-before-running list."""
    names = [n for n in draft.entry.ask_tools if n != tool]
    draft.entry.ask_tools = names + [tool] if on else names


def fetch_tools(config: McpServerConfig) -> list[McpTool]:
    """The server's tools (a pool thread); its error is raised with the server's message."""
    hub = McpHub([config])
    try:
        found = hub.list_tools(timeout=LIST_TIMEOUT_S).get(config.name)
    finally:
        hub.close()
    if found is None:
        raise RuntimeError("The server did not answer.")
    if isinstance(found, Exception):
        raise found
    return list(found)


def names_of(entry: McpServerEntry) -> list[Secret]:
    return [("env", n) for n in entry.env_names] + [("header", n) for n in entry.header_names]


def write_secrets(saved: list[McpServerEntry], drafts: list[Draft]) -> None:
    """Bring the keyring in line with ``drafts``: new values written, values of renamed
    servers moved, values of removed names and servers deleted. KeyStoreError on failure."""
    untouched: set[tuple[str, str, str]] = set()
    final: dict[tuple[str, str, str], str] = {}
    for draft in drafts:
        name = draft.entry.name
        for kind, key in names_of(draft.entry):
            if (kind, key) in draft.secrets:
                final[(name, kind, key)] = draft.secrets[(kind, key)]
            elif draft.stored is not None and draft.stored.name == name:
                untouched.add((name, kind, key))
            elif draft.stored is not None:  # renamed: move the stored value
                value = keys.get_mcp_secret(draft.stored.name, kind, key)
                if value:
                    final[(name, kind, key)] = value
    for entry in saved if keys.keyring_available() else ():
        for kind, key in names_of(entry):
            if (entry.name, kind, key) not in untouched:
                keys.delete_mcp_secret(entry.name, kind, key)
    for (server, kind, key), value in final.items():
        keys.set_mcp_secret(server, kind, key, value)


PAGE_STYLE = """
#mcpServers { border: 1px solid #eadff0; border-radius: 10px; padding: 4px; outline: 0; }
#mcpServers::item { border-radius: 8px; }
#mcpServers::item:selected { background: #f3e6fb; }
#mcpServerName { font-weight: 600; color: #5b3a6e; }
#mcpToolRow { border-bottom: 1px solid #f1e8f5; }
"""
