"""Protocol versions, capabilities, and the rule every wire change follows (design.md D6, upstream.md §4.3).

`GET info` answers `protocolVersion`, `schemaRevision` and `capabilities`; clients check them before
anything else. Every change to a request, response, frame, command or event is classified:

- **backward-compatible**: an old peer keeps working without knowing. Adding an optional field (readers
  ignore unknown keys, `wire.py`); adding a frame type (clients skip frame types they do not know,
  `frames.parse_frame`); adding a route nobody needs to use. Bump `SCHEMA_REVISION`.
- **capability-gated**: a client may only rely on it when the server lists the capability in `info`:
  a new route, command or request field whose absence on an old server would silently do the wrong
  thing (an old server ignores an unknown field). The client checks `missing_capabilities` before
  sending and degrades or says "the server is too old for X". Bump `SCHEMA_REVISION` and add a name to
  `CAPABILITIES`.
- **incompatible**: removing or renaming anything, changing a field's meaning or type, making an optional
  field required. Bump `PROTOCOL_VERSION`; client and server refuse each other (`is_compatible`) with a
  message that says which side to upgrade.

Each wire change adds a line to `REVISIONS` and a fingerprint to `SCHEMA_FINGERPRINTS` (a test fails
when the exported schema no longer matches the fingerprint of `SCHEMA_REVISION`, so a wire change
cannot slip in without a revision), and tests for new-client/old-server and old-client/new-server.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "CAPABILITIES",
    "CAP_CHAT_COMMANDS",
    "CAP_COMMANDS",
    "CAP_CONNECTION",
    "CAP_EXPORT_IPYNB",
    "CAP_IMAGES",
    "CAP_KERNEL_CONTROL",
    "CAP_PERMISSIONS",
    "CAP_PROVIDER_SETUP",
    "CAP_QUESTIONS",
    "CAP_REASONING",
    "CAP_RUN",
    "CAP_SEED_MESSAGES",
    "CAP_SHELL_EVENTS",
    "CAP_TOOL_INPUT_STREAMING",
    "CAP_TREE_EDITS",
    "CAP_UI_FRAMES",
    "PROTOCOL_VERSION",
    "REVISIONS",
    "SCHEMA_FINGERPRINTS",
    "SCHEMA_REVISION",
    "is_compatible",
    "missing_capabilities",
]

PROTOCOL_VERSION = 1
SCHEMA_REVISION = 15

CAP_REASONING = "reasoning"
"""Thinking is forwarded as `reasoning-delta` frames and `reasoning` parts."""
CAP_TOOL_INPUT_STREAMING = "tool-input-streaming"
"""Tool arguments stream as `tool-input-delta` frames."""
CAP_QUESTIONS = "questions"
"""`question` / `question-resolved` frames and `POST chat/question`."""
CAP_UI_FRAMES = "ui-frames"
"""`notify`, `status` and `widget` frames."""
CAP_IMAGES = "images"
"""`ChatRequest.images`."""
CAP_SEED_MESSAGES = "seed-messages"
"""`seedMessages` on `chat/new` and the `new_session` command."""
CAP_CHAT_COMMANDS = "chat-commands"
"""`POST chat/command`."""
CAP_CONNECTION = "connection"
"""The connection routes (commands, sequenced session events, attach snapshot) for `HttpAgentConnection`."""
CAP_EXPORT_IPYNB = "export-ipynb"
"""`ipynb` as the format of the `export` command and of `chat/command export` (a `.ipynb` path implies it).
An older server refuses the format, and, asked by suffix alone, would write HTML into the `.ipynb` file:
so clients check this before sending."""

CAP_TREE_EDITS = "tree-edits"
"""The `set_label` and `clone_session` commands (an older server refuses them as unknown commands)."""
CAP_KERNEL_CONTROL = "kernel-control"
"""The `interrupt_kernel` and `restart_kernel` commands, on the session's kernel."""
CAP_SHELL_EVENTS = "shell-events"
"""The user's shell commands (`POST connection/shell`) stream: `shell_execution_start/output/end` session
events on the events stream and `shell` chat frames, named by `ShellRequest.executionId` when the client
gives one. Without it a client sees a command only when its request answers."""

CAP_RUN = "run"
"""`POST connection/run`: attach, prompt and stream that run's events, in one request (an older server
answers Jupyter's own 404: the client then goes the long way, `GET info`, `attach`, `command`, `events`)."""

CAP_NOTEBOOK_SESSIONS = "notebook-sessions"
"""`ChatNewRequest.notebookPath`: a session tied to a notebook, its `ipython` tool in the notebook's own
kernel; the notebook tools (`notebook_read`, `notebook_edit`, `notebook_run`). An older server ignores the
field and runs the agent's code in a kernel of its own: so clients check this before relying on it."""

CAP_PERMISSIONS = "permissions"
"""Permission modes: `ChatNewRequest.permissionMode`, the `set_permission_mode` command, `permissionMode` and
`allowedPermissionModes` on `ConnectionState`, approvals as `select` questions whose answer may carry
`text`. An older server ignores `permissionMode` and runs every tool: clients check this before relying
on a mode."""

CAP_PROVIDER_SETUP = "provider-setup"
"""`GET`/`POST chat/providers` and `POST chat/providers/test`: the provider form (`protocol/providers.py`).
An older server answers Jupyter's 404: clients check this before offering the form."""

CAP_COMMANDS = "commands"
"""`GET chat/commands`: one registry of built-in commands, prompt templates, skills and extension commands."""

CAP_REWIND = "rewind"
"""The `rewind` command (connection and `chat/command`): files and notebooks the agent changed since a
user message put back, and the conversation continued from before it (`RewindResult`)."""

CAPABILITIES: tuple[str, ...] = (
    CAP_REASONING,
    CAP_TOOL_INPUT_STREAMING,
    CAP_QUESTIONS,
    CAP_UI_FRAMES,
    CAP_IMAGES,
    CAP_SEED_MESSAGES,
    CAP_CHAT_COMMANDS,
    CAP_CONNECTION,
    CAP_EXPORT_IPYNB,
    CAP_TREE_EDITS,
    CAP_KERNEL_CONTROL,
    CAP_RUN,
    CAP_SHELL_EVENTS,
    CAP_NOTEBOOK_SESSIONS,
    CAP_PERMISSIONS,
    CAP_PROVIDER_SETUP,
    CAP_COMMANDS,
    CAP_REWIND,
)
"""Everything this version of the server offers."""

REVISIONS: dict[int, str] = {
    1: "protocol 1: chat frames, chat routes, connection commands, hydration",
    2: "session names are one line of 1-200 characters in every rename (the rename_session command too)",
    3: "ConnectionState has the transcript's header and the kernel's id and state (optional fields)",
    4: "export (the command, chat/command and its result) has the format ipynb (capability-gated: export-ipynb)",
    5: "commands set_label, clone_session (capability tree-edits), interrupt_kernel, restart_kernel (kernel-control)",
    6: "POST connection/run: attach, prompt and the run's stream in one request (capability run)",
    7: "shell chat frames, shell_execution_* session events and ShellRequest.executionId (capability shell-events)",
    8: "AttachSnapshot.earlierMessages; runningShells on it and on ChatSessionResponse; ShellRequest/Result listed",
    9: "ChatNewRequest.notebookPath: a session tied to a notebook (capability notebook-sessions)",
    10: "permission modes: permissionMode on ChatNewRequest, AttachRequest and RunRequest; set_permission_mode; "
    "ConnectionState.permissionMode and allowedPermissionModes; SelectAnswer.text (capability permissions)",
    11: "ChatNewResponse.model and thinkingLevel; ModelsResponse.thinkingLevel (optional fields)",
    12: "chat/providers and chat/providers/test: ProvidersResponse, ProviderSetupRequest, ProviderTestResponse "
    "(capability provider-setup)",
    13: "ConnectionState.budget: the spend against the session's cost budgets (BudgetStatus, optional)",
    14: "GET chat/commands: CommandsResponse, the one command registry (capability commands)",
    15: "the rewind command and chat/command rewind: RewindResult (capability rewind)",
}
SCHEMA_FINGERPRINTS: dict[int, str] = {
    1: "c23c2796b12e",
    2: "ad9eb10a0914",
    3: "5a2561ffe19c",
    4: "ac14123ed50f",
    5: "c7d5f3a83ef6",
    6: "e3a2a9dd86b6",
    7: "730baf71606c",
    8: "d1a388682a52",
    9: "045da13fc623",
    10: "db1e983d0706",
    11: "7382355ab58d",
    12: "75dd28e438e4",
    13: "12dfb85f0e6a",
    14: "b47f4f6ec28a",
    15: "53e2ffafede2",
}
"""`schema.schema_fingerprint()` of each revision's exported schema."""


def is_compatible(peer_protocol_version: int) -> bool:
    """Whether a peer speaking `peer_protocol_version` can talk to this one (same major protocol)."""
    return peer_protocol_version == PROTOCOL_VERSION


def missing_capabilities(required: Iterable[str], offered: Iterable[str]) -> list[str]:
    """The capabilities in `required` that the peer does not offer; unknown offered names are ignored."""
    have = set(offered)
    return [name for name in required if name not in have]
