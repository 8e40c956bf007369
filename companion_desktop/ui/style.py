"""The app's style sheet: soft light theme, rounded panels."""

STYLE_SHEET = """
QMainWindow, QWidget { background: #fbf7fb; color: #3a3340; font-size: 13px; }
#statePanel { background: #ffffff; border: 1px solid #eadff0; border-radius: 14px; padding: 10px; }
#statePanel QLabel { background: transparent; }
#companionName { font-size: 24px; font-weight: 600; color: #5b3a6e; }
#companionMode { color: #8a7d93; }
#statePanel #stageBadge { background: #f3e6fb; color: #7a3ea1; border-radius: 10px; padding: 4px 10px;
  font-weight: 600; }
#moodLine { font-size: 15px; padding: 6px 0; }
#daysLine { color: #8a7d93; }
#sectionTitle { font-size: 15px; font-weight: 600; color: #5b3a6e; margin-top: 6px; }
QProgressBar { background: #f1eaf4; border: none; border-radius: 4px; height: 14px;
  text-align: center; font-size: 11px; color: #3a3340; }
QPlainTextEdit { background: #ffffff; border: 1px solid #eadff0; border-radius: 10px;
  padding: 8px; }
"""
