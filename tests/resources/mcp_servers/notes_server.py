"""A small MCP server the tests ship (stdio, or streamable HTTP with `--http PORT`), built with the SDK's
server (`MCPServer`, FastMCP's name in mcp 2): a notes tool, an image tool, a tool that fails, one that
reads a request header, one that holds until a file exists, and one that kills the server mid-call.
`--gate FILE` waits for FILE to exist before it serves (a server slow to start); `--tools N` adds N
numbered tools (a server with many)."""

from __future__ import annotations

import argparse
import os
import struct
import time
import zlib
from pathlib import Path

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def build(name: str, extra_tools: int) -> MCPServer:
    server = MCPServer(name, log_level="WARNING")

    @server.tool()
    def lookup(topic: str) -> str:
        """Look up the team's note on a topic."""
        return f"note on {topic}: ship on Fridays (from {name}, pid {os.getpid()})"

    @server.tool()
    def red_square(side: int = 4) -> Image:
        """A red square PNG of the given side."""
        return Image(data=_png(side, side), format="png")

    @server.tool()
    def refuse(reason: str) -> str:
        """Always fails with the reason."""
        raise ToolError(f"refused: {reason}")

    @server.tool()
    def crash() -> str:
        """Kills the server in the middle of the call."""
        os._exit(3)

    @server.tool()
    def header(name: str, ctx: Context) -> str:
        """The value of one HTTP header of this call (streamable HTTP only)."""
        headers = ctx.headers or {}
        return f"{name}: {headers.get(name.lower(), '(not sent)')}"

    @server.tool()
    async def hold(path: str) -> str:
        """Answers once the file at `path` exists (and says it is holding: `path`.held)."""
        Path(path + ".held").touch()
        while not Path(path).exists():  # noqa: ASYNC110 (another process makes the file: no event to wait on)
            await anyio.sleep(0.02)
        return "released"

    @server.tool()
    def big(chars: int) -> str:
        """Returns a text of `chars` characters."""
        return "x" * chars

    for number in range(extra_tools):

        def numbered(value: str, number: int = number) -> str:
            return f"tool {number} got {value}"

        server.add_tool(numbered, name=f"widget_{number}", description=f"Widget number {number}: frobnicates a value.")
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--name", default="notes")
    parser.add_argument("--http", type=int, default=None)
    parser.add_argument("--gate", default=None)
    parser.add_argument("--tools", type=int, default=0)
    args = parser.parse_args()
    if args.gate is not None:
        while not Path(args.gate).exists():
            time.sleep(0.02)
    server = build(args.name, args.tools)
    if args.http is not None:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
