"""`mcp.json`: which MCP servers a session uses, in the format other clients use.

```json
{"mcpServers": {
  "notes": {"command": "python", "args": ["notes_server.py"], "env": {"NOTES_DIR": "~/notes"}},
  "search": {"url": "http://127.0.0.1:8931/mcp", "headers": {"Authorization": "Bearer ..."}}
}}
```

A server with `command` speaks stdio (started as a child process in the session's folder, `args` and `env`
beside it); one with `url` speaks streamable HTTP (`headers` sent with every request). The files are
`<agent dir>/mcp.json` and the project's `<cwd>/.prime/agent/mcp.json`; the project's server wins a name
both define, with a diagnostic. A file that is not JSON, or a server that is neither kind, is a diagnostic
naming the file and what to write; the other servers still start.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

__all__ = ["McpServerConfig", "load_mcp_config", "mcp_config_files"]

_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_SECRET = re.compile(r"token|key|secret|password|auth", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """One server: stdio (`command`) or streamable HTTP (`url`); `source` is the file it came from."""

    name: str
    source: Path
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "http"

    @property
    def target(self) -> str:
        """What the server is, for a person (`/mcp`, notices): its command line or its URL, with what looks
        like a credential masked (the value after `--token`, `--api-key=...`, a URL's user and query)."""
        if self.command is None:
            parts = urlsplit(str(self.url))
            host = parts.hostname or ""
            netloc = f"{host}:{parts.port}" if parts.port else host
            return urlunsplit((parts.scheme, netloc, parts.path, "***" if parts.query else "", ""))
        return " ".join((self.command, *_masked(self.args)))


def mcp_config_files(agent_dir: Path, cwd: Path) -> list[Path]:
    """The files read, in order (a later file's server wins a name both define)."""
    return [agent_dir / "mcp.json", cwd / ".prime" / "agent" / "mcp.json"]


def load_mcp_config(agent_dir: Path, cwd: Path) -> tuple[list[McpServerConfig], list[str]]:
    """The servers configured, and a diagnostic for each file or server that cannot be used."""
    servers: dict[str, McpServerConfig] = {}
    diagnostics: list[str] = []
    for path in mcp_config_files(agent_dir, cwd):
        for server in _read(path, diagnostics):
            if server.name in servers:
                diagnostics.append(
                    f"{path}: MCP server '{server.name}' is also defined in {servers[server.name].source};"
                    " the project's definition is used"
                )
            servers[server.name] = server
    return list(servers.values()), diagnostics


def _read(path: Path, diagnostics: list[str]) -> list[McpServerConfig]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        diagnostics.append(f"{path}: cannot be read ({exc}); its MCP servers are not started")
        return []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        diagnostics.append(f"{path}: not JSON ({exc}); its MCP servers are not started")
        return []
    table = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        diagnostics.append(f'{path}: write {{"mcpServers": {{"<name>": {{...}}}}}}; its MCP servers are not started')
        return []
    servers = []
    for name, spec in table.items():
        problem = _problem(name, spec)
        if problem is not None:
            diagnostics.append(f"{path}: MCP server '{name}' {problem}; it is not started")
            continue
        servers.append(
            McpServerConfig(
                name=name,
                source=path,
                command=spec.get("command"),
                args=tuple(spec.get("args") or ()),
                env=dict(spec.get("env") or {}),
                url=spec.get("url"),
                headers=dict(spec.get("headers") or {}),
            )
        )
    return servers


def _problem(name: str, spec: object) -> str | None:
    """What is wrong with one server's entry, or None."""
    if not _NAME.match(name):
        return "needs a name of letters, digits, '_' or '-'"
    if not isinstance(spec, dict):
        return 'must be an object: {"command": ..., "args": [...]} or {"url": ...}'
    command, url = spec.get("command"), spec.get("url")
    if (command is None) == (url is None):
        return 'needs either "command" (a stdio server) or "url" (a streamable HTTP server)'
    if command is not None and not (isinstance(command, str) and command):
        return 'has a "command" that is not a non-empty string'
    if url is not None and not (isinstance(url, str) and url.startswith(("http://", "https://"))):
        return 'has a "url" that is not an http:// or https:// address'
    if not _strings(spec.get("args") or [], list):
        return 'has "args" that are not a list of strings'
    for key in ("env", "headers"):
        if not _strings(spec.get(key) or {}, dict):
            return f'has "{key}" that is not an object of strings'
    return None


def _strings(value: object, kind: type[list[object]] | type[dict[str, object]]) -> bool:
    if isinstance(value, dict) and kind is dict:
        return all(isinstance(item, str) for item in value.values())
    if isinstance(value, list) and kind is list:
        return all(isinstance(item, str) for item in value)
    return False


def _masked(args: tuple[str, ...]) -> list[str]:
    shown: list[str] = []
    secret_next = False
    for arg in args:
        flag, equals, _value = arg.partition("=")
        if secret_next:
            shown.append("***")
        elif equals and _SECRET.search(flag):
            shown.append(f"{flag}=***")
        else:
            shown.append(arg)
        secret_next = arg.startswith("-") and not equals and bool(_SECRET.search(arg))
    return shown
