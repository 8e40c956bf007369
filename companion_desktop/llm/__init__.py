"""Language models over HTTP: providers, streaming, JSON replies, vision, MCP tools, speech."""
