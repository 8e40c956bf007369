"""Settings > Tools: the MCP servers she may use, their tools, and the user's review of
each tool (a tool asks before every run until reviewed and allowed; ``mcp_reviews``).

A server is a local program (stdio: command, arguments, environment) or a web address
(streamable HTTP: URL, headers). Environment and header *values* are secrets: they go
to the system keyring on Save (``keys.set_mcp_secret``); only their names are stored in
the settings. Editing shows the names with masked values and keeps a stored value
unless it is changed (``mcp_editor``). "List tools" connects off the GUI thread (20 s at
most; ``mcp_tools_list``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.llm import keys
from companion_desktop.llm.mcp_client import McpTool
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.restore_trust import server_what
from companion_desktop.storage.settings import (
    McpServerEntry,
    McpSettings,
    load_settings,
    save_settings,
)
from companion_desktop.ui.background import run_in_background
from companion_desktop.ui.plain import ask_yes_no, plain_label
from companion_desktop.ui.settings.llm_page import SettingsProblem, status
from companion_desktop.ui.settings.tools.editor import (
    MASK,
    TRANSPORTS,
    Draft,
    ServerEditor,
    parse_pairs,
    problem_of,
    write_secrets,
)
from companion_desktop.ui.settings.tools.reviews import ToolRow, show_tools
from companion_desktop.ui.settings.tools.tools_list import fetch_tools
from companion_desktop.ui.switch import Switch

#: Also offered from here: the editor's names (they lived in this module before).
__all__ = ["MASK", "PAGE_STYLE", "TRANSPORTS", "Draft", "McpPage", "ServerEditor", "ServerRow",
           "parse_pairs", "problem_of", "trust_question", "write_secrets"]


class ServerRow(QFrame):
    """One line of the server list: name, connection kind, status, on/off switch."""

    def __init__(self, draft: Draft, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mcpServerRow")
        line = QHBoxLayout(self)
        line.setContentsMargins(10, 6, 10, 6)
        self.name = plain_label(objectName="mcpServerName")
        self.kind = plain_label(objectName="pageHint")
        self.state = plain_label("not checked", objectName="statusLine")
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
        restored = "  ·  turned off by a restore" if draft.entry.restored_off else ""
        self.kind.setText(TRANSPORTS[draft.entry.transport] + restored)
        self.enabled.blockSignals(True)
        self.enabled.setChecked(draft.entry.enabled)
        self.enabled.blockSignals(False)


def trust_question(entry: McpServerEntry) -> str:
    """What to ask before a server a restored backup brought may run (or be reached)."""
    what = "reaches" if entry.transport == "http" else "runs"
    return (f"A restored backup brought the tool server {entry.name!r}, so it was turned "
            f"off. It {what}:\n\n{server_what(entry)}\n\nTurn it on only if you know and "
            "trust it. Turn it on?")


class McpPage(QWidget):
    """Reads the saved McpSettings; ``apply()`` writes secrets to the keyring, then them."""

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        #: Asks the user a yes/no question (tests replace it).
        self.confirm: Callable[[str], bool] = self._ask
        #: Asks whether a server a restore turned off may run (tests replace it).
        self.trust: Callable[[str], bool] = lambda text: ask_yes_no(self, "Tool server", text)
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
        self.status_line = plain_label(objectName="statusLine", wordWrap=True)  # server errors
        self.status_line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status_line.hide()
        layout.addWidget(self.status_line)
        self.tools_title = plain_label(objectName="sectionTitle")
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
        row.enabled.toggled.connect(lambda on, d=draft, r=row: self._toggled(d, r, on))
        item = QListWidgetItem(self.server_list)
        item.setSizeHint(row.sizeHint())
        self.server_list.setItemWidget(item, row)
        self._fit_list()

    def _toggled(self, draft: Draft, row: ServerRow, on: bool) -> None:
        if on and not self.trusted(draft):
            row.show_draft(draft)  # stays off
            return
        draft.entry.enabled = on
        row.show_draft(draft)

    def trusted(self, draft: Draft) -> bool:
        """True unless the server came with a restore and the user, shown its command,
        says no (then it stays off); a yes is kept with the server when saved."""
        if not draft.entry.restored_off:
            return True
        if not self.trust(trust_question(draft.entry)):
            return False
        draft.entry.restored_off = False
        return True

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
        return ask_yes_no(self, "Remove server", text)

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
        if draft is None or not self.trusted(draft):
            return
        self.row(self.drafts.index(draft)).show_draft(draft)
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
        tools = self.tools.get(draft.entry.name) if draft is not None else None
        show_tools(self.tool_box, self.tools_title, draft, tools)

    def tool_rows(self) -> dict[str, ToolRow]:
        """The shown tool rows (each with its review choice), by tool name."""
        return {row.tool.name: row for row in self.findChildren(ToolRow)
                if row.isVisibleTo(self)}

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


PAGE_STYLE = """
#mcpServers { border: 1px solid #eadff0; border-radius: 10px; padding: 4px; outline: 0; }
#mcpServers::item { border-radius: 8px; }
#mcpServers::item:selected { background: #f3e6fb; }
#mcpServerName { font-weight: 600; color: #5b3a6e; }
#mcpToolRow { border-bottom: 1px solid #f1e8f5; }
"""
