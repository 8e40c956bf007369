"""Settings > Tools: MCP servers, their tools and the user's review of each."""
