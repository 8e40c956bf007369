"""Real MCP servers, written with the official SDK, that the tests start as subprocesses."""
