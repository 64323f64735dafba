"""The clients: Client, AsyncClient, client.schema, and the default client of the CLI and the
adapters."""
