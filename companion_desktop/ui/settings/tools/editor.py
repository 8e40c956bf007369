"""The MCP server editor: a server as edited (Draft), its checks, and its secrets.

A server is a local program (stdio: command, arguments, environment) or a web address
(streamable HTTP: URL, headers). Environment and header *values* are secrets: the editor
shows stored ones masked (``MASK``) and keeps them unless changed; ``write_secrets``
brings the system keyring in line with the drafts on Save (``keys.set_mcp_secret``).
Only the names are stored in the settings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.llm import keys
from companion_desktop.llm.mcp_client import McpServerConfig
from companion_desktop.llm.programs import join_args, split_args
from companion_desktop.storage.settings import McpServerEntry
from companion_desktop.ui.plain import plain_label
from companion_desktop.ui.settings.llm_page import name_labels, new_form, status
from companion_desktop.ui.style import STYLE_SHEET

MASK = "••••"
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
        self.args = QLineEdit(join_args(list(e.args)), objectName="mcpArgs",
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
        self.problem = plain_label(objectName="statusLine", wordWrap=True)
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
            args = split_args(self.args.text())
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


def names_of(entry: McpServerEntry) -> list[Secret]:
    """The entry's secret names: its environment names, then its header names."""
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
