"""MCP servers as tool sources, through the official `mcp` SDK (README "MCP servers"): `config.py` reads
`mcp.json`, `client.py` keeps one server connected, `tools.py` makes its tools model-facing, `search.py` is
`mcp_search` for many tools, `host.py` runs a session's servers beside it. Nothing is imported here: a
session without `mcp.json` pays for `config` only, and the SDK is imported once a server starts."""
