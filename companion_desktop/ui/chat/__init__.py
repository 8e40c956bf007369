"""The chat window: the conversation, the message box, her state beside it, tools and scenes in the transcript."""
