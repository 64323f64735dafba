"""The agent tools: a tool's input schema, answer and memory, the default tools' plans, the tools
themselves, and the MCP server that serves them."""
