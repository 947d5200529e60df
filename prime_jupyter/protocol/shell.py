"""The user's shell commands (`!cmd`, `!!cmd` in the terminal app): the request and what it answers.

`AgentConnection.run_shell` answers a `ShellResult`; over HTTP it is `POST prime/api/connection/shell`
with a `ShellRequest`. The command runs in the session's directory; its output is the kept tail
(`truncated`: the whole output is in `fullOutputPath`, on the machine that ran it). While it runs, every
connection to the session gets its `shell_execution_*` events (the panel: `shell` frames), named by
`executionId`: a server offering the `shell-events` capability sends them and honours a client's id.
"""

from __future__ import annotations

from pydantic import Field

from prime_jupyter.protocol.wire import WireModel

__all__ = ["MAX_COMMAND_CHARS", "ShellRequest", "ShellResult"]

MAX_COMMAND_CHARS = 100_000
"""The longest command accepted (a pasted script fits; a runaway paste is refused)."""


class ShellRequest(WireModel):
    session_id: str
    command: str = Field(min_length=1, max_length=MAX_COMMAND_CHARS)
    include_in_context: bool = True
    """False (`!!cmd`): kept in the transcript, never shown to the model."""
    execution_id: str | None = Field(default=None, min_length=1, max_length=64)
    """The id its events carry (the client's own, to tell its command from another client's); None: the
    server makes one up."""


class ShellResult(WireModel):
    """How the command ended. `exitCode` is None when it was cancelled (an abort stopped it)."""

    command: str
    output: str
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    included_in_context: bool = True
    entry_id: str | None = None
    """The transcript entry that keeps it."""
    execution_id: str | None = None
    """The id its `shell_execution_*` events carried (None from a server without `shell-events`)."""
