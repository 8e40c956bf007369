"""The app's style sheet: a soft, warm light theme with rounded panels and bubbles.

Palette: page #fbf7fb, ink #3a3340, plum #5b3a6e, orchid accent #b86ad6 (pressed
#9b4fc0), lines #eadff0, muted #8a7d93, error rose #c0354f on #fdeef1.
"""

from PySide6.QtGui import QFont, QFontDatabase

STYLE_SHEET = """
QMainWindow, QDialog { background: #fbf7fb; }
QWidget { color: #3a3340; font-size: 13px; }
QLabel { background: transparent; }
QToolTip { background: #3a3340; color: #ffffff; border: none; padding: 4px 8px; }

/* ---- side panel --------------------------------------------------------------- */
#statePanel { background: #ffffff; border: 1px solid #eadff0; border-radius: 16px; padding: 10px; }
#statePanel QLabel { background: transparent; }
#companionName { font-size: 24px; font-weight: 600; color: #5b3a6e; }
#companionMode { color: #8a7d93; }
#statePanel #stageBadge { background: #f3e6fb; color: #7a3ea1; border-radius: 10px;
  padding: 4px 10px; font-weight: 600; }
#moodLine { font-size: 15px; padding: 6px 0; }
#daysLine { color: #8a7d93; }
#sectionTitle { font-size: 15px; font-weight: 600; color: #5b3a6e; margin-top: 6px; }
QProgressBar { background: #f1eaf4; border: none; border-radius: 4px; height: 14px;
  text-align: center; font-size: 11px; color: #3a3340; }

/* ---- chat column -------------------------------------------------------------- */
#chatColumn { background: #ffffff; border: 1px solid #eadff0; border-radius: 16px; }
#chatHeader { background: transparent; border: none; border-bottom: 1px solid #f1e8f5; }
#chatTitle { font-size: 17px; font-weight: 600; color: #5b3a6e; }
#modelLine { color: #a093aa; padding-left: 10px; }
#transcript, #transcriptBody { background: #fdfafd; border: none; }
#transcriptRow { background: transparent; }
#userBubble { background: qlineargradient(x1:0, y1:0, x2:1, y2:1, stop:0 #b86ad6, stop:1 #d873b0);
  border: none; border-radius: 16px; border-bottom-right-radius: 5px; }
#userBubble QLabel { color: #ffffff; background: transparent; font-size: 14px; }
#herBubble { background: #ffffff; border: 1px solid #eadff0; border-radius: 16px;
  border-bottom-left-radius: 5px; }
#herBubble QLabel { color: #3a3340; background: transparent; font-size: 14px; }
#systemNotice, #setupNotice { background: #f6eefa; border: none; border-radius: 12px; }
#systemNotice QLabel, #setupNotice QLabel { color: #6f5f7a; background: transparent; }
#setupNotice { background: #fff6e8; border: 1px solid #f3dcb5; }
#setupNotice QLabel { color: #6b4e1f; }
#errorNotice { background: #fdeef1; border: 1px solid #f6c9d3; border-radius: 12px; }
#errorNotice QLabel { color: #a3263f; background: transparent; }
#cardNotice { background: #ffffff; border: 1px solid #e3d3ee; border-radius: 12px; }
#cardNotice QLabel { color: #4a3a56; background: transparent; }
#dayNotice { background: transparent; border: none; }
#dayNotice QLabel { color: #b3a6bc; font-size: 11px; }
#noticeButton { background: #ffffff; color: #7a3ea1; border: 1px solid #dcc4ea; border-radius: 13px;
  padding: 4px 14px; font-weight: 600; }
#noticeButton:hover { background: #f6ecfb; }
#errorNotice #noticeButton { color: #a3263f; border-color: #f0b3c1; }
#errorNotice #noticeButton:hover { background: #fff5f7; }
#phaseLabel { background: transparent; }
#greetingPrevious, #greetingNext { background: #ffffff; color: #7a3ea1; border: 1px solid #dcc4ea;
  border-radius: 11px; font-size: 15px; padding: 0; }
#greetingPrevious:hover, #greetingNext:hover { background: #f6ecfb; }
#greetingPosition { color: #8a7a96; font-size: 11px; background: transparent; }

/* ---- composer ----------------------------------------------------------------- */
#composer { background: transparent; border: none; border-top: 1px solid #f1e8f5; }
#chatInput { background: #fbf7fb; border: 1px solid #e6d9ee; border-radius: 14px; padding: 6px 8px;
  font-size: 14px; }
#chatInput:focus { border: 1px solid #c99ae0; background: #ffffff; }
#chatInput[busy="true"] { background: #f3eef5; color: #9a8fa3; border: 1px dashed #dccfe4; }
#sendButton, #primaryButton { background: #b86ad6; color: #ffffff; border: none;
  border-radius: 17px; padding: 8px 20px; font-weight: 600; min-height: 18px; }
#sendButton:hover, #primaryButton:hover { background: #a95bc8; }
#sendButton:pressed, #primaryButton:pressed { background: #9b4fc0; }
#sendButton:disabled, #primaryButton:disabled { background: #e6d8ee; color: #ffffff; }
#stopButton { background: #ffffff; color: #c0354f; border: 1px solid #f0b3c1; border-radius: 17px;
  padding: 8px 18px; font-weight: 600; min-height: 18px; }
#stopButton:hover { background: #fdeef1; }
#headerButton, #secondaryButton { background: #ffffff; color: #5b3a6e; border: 1px solid #e3d3ee;
  border-radius: 15px; padding: 6px 14px; }
#headerButton:hover, #secondaryButton:hover { background: #f6ecfb; }
#secondaryButton:disabled { color: #b9adc2; }
#backupList #secondaryButton { padding: 1px 10px; border-radius: 9px; margin: 1px 2px; }
#linkButton { background: transparent; color: #9b4fc0; border: none; padding: 2px 4px; }
#linkButton:hover { text-decoration: underline; }

/* ---- settings and welcome ----------------------------------------------------- */
#settingsNav { background: #f6eefa; border: none; border-right: 1px solid #eadff0;
  padding: 14px 8px; font-size: 14px; outline: 0; }
#settingsNav::item { padding: 9px 12px; border-radius: 10px; margin: 2px 0; color: #5b3a6e; }
#settingsNav::item:selected { background: #ffffff; color: #7a3ea1; font-weight: 600; }
#settingsNav::item:hover:!selected { background: #efe2f6; }
#settingsStack, #pageScroll, #settingsPage { background: #ffffff; border: none; }
#settingsFooter { background: #fbf7fb; border-top: 1px solid #eadff0; }
#pageTitle { font-size: 20px; font-weight: 600; color: #5b3a6e; }
#welcomeTitle { font-size: 21px; font-weight: 600; color: #5b3a6e; }
#pageHint { color: #8a7d93; }
#formLabel { color: #5b3a6e; font-weight: 600; padding-top: 6px; }
#modeChoice { background: #ffffff; border: 1px solid #e3d3ee; border-radius: 15px;
  padding: 6px 14px; }
#modeChoice:hover { background: #faf4fd; }
#modeChoice:checked { background: #f3e6fb; border: 1px solid #c99ae0; color: #7a3ea1;
  font-weight: 600; }
#modeChoice::indicator { width: 0px; height: 0px; image: none; border: none;
  background: transparent; }
#keyState { color: #6f5f7a; }
#windowLabel { font-weight: 600; color: #7a3ea1; }
#statusLine { color: #8a7d93; }
#settingsFooter #statusLine { color: #a3263f; }
#statusLine[kind="ok"] { color: #23824f; }
#statusLine[kind="error"] { color: #a3263f; }
#welcomeCard { background: #ffffff; border: 1px solid #eadff0; border-radius: 14px; }
#foundModels { border: 1px solid #eadff0; border-radius: 10px; padding: 4px; outline: 0; }
#foundModels::item { padding: 7px 10px; border-radius: 8px; }
#foundModels::item:selected { background: #f3e6fb; color: #5b3a6e; }
QLineEdit, QComboBox { background: #ffffff; border: 1px solid #e3d3ee; border-radius: 9px;
  padding: 6px 9px; min-height: 18px; }
QLineEdit:focus, QComboBox:focus { border: 1px solid #c99ae0; }
QComboBox::drop-down { border: none; width: 22px; }
QComboBox QAbstractItemView { background: #ffffff; border: 1px solid #e3d3ee;
  selection-background-color: #f3e6fb; selection-color: #5b3a6e; }
QPlainTextEdit { background: #ffffff; border: 1px solid #eadff0; border-radius: 10px;
  padding: 8px; }
QSlider::groove:horizontal { height: 6px; background: #eadff0; border-radius: 3px; }
QSlider::sub-page:horizontal { background: #d3a5e8; border-radius: 3px; }
QSlider::handle:horizontal { background: #b86ad6; width: 18px; height: 18px; margin: -6px 0;
  border-radius: 9px; border: 2px solid #ffffff; }
QRadioButton { spacing: 6px; background: transparent; }
QScrollBar:vertical { background: transparent; width: 10px; margin: 4px 2px; }
QScrollBar::handle:vertical { background: #e3d3ee; border-radius: 3px; min-height: 30px; }
QScrollBar::add-line:vertical, QScrollBar::sub-line:vertical { height: 0; }
QScrollBar::add-page:vertical, QScrollBar::sub-page:vertical { background: transparent; }
QStatusBar { background: #fbf7fb; color: #a3263f; }
"""


def fixed_font(point_size: int = 9) -> QFont:
    """The system's fixed-pitch font (whatever the platform calls it) at ``point_size``."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(point_size)
    return font
