"""The services over storage and the models: the turn runner, memory, reminders, tools."""
