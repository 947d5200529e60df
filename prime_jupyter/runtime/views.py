"""Read-only projections of a live session onto the wire models: state, transcript branch, tree, summaries.

Shared by every way a front end reads a session (the in-process connection, the server's routes), so the
numbers a user sees are computed one way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import JsonValue

from prime_jupyter.ai.models import supported_thinking_levels
from prime_jupyter.ai.registry import ModelRegistry
from prime_jupyter.ai.types import AssistantMessage, Message, TextContent, ToolResultMessage, UserMessage
from prime_jupyter.protocol.common import CompactResult, ModelRef, SessionSummary, TreeNode
from prime_jupyter.protocol.snapshot import AttachSnapshot, ConnectionState, SessionView
from prime_jupyter.protocol.turns import TurnCut
from prime_jupyter.runtime.agent_session import AgentSession
from prime_jupyter.runtime.permissions import PERMISSION_MODES
from prime_jupyter.sessions.context import entry_message, to_llm_message
from prime_jupyter.sessions.entries import AgentMessage, BashExecutionMessage, CustomMessage, MessageEntry
from prime_jupyter.sessions.listing import SessionInfo
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.sessions.tree import id_of, is_raw

if TYPE_CHECKING:
    from prime_jupyter.protocol.requests import ModelInfo
    from prime_jupyter.protocol.shell import ShellResult

__all__ = [
    "branch_messages",
    "compact_result",
    "connection_state",
    "model_infos",
    "session_header",
    "session_summary",
    "session_view",
    "shell_result",
    "snapshot",
    "tail_messages",
]


def branch_messages(manager: SessionManager, tail: int | None = None) -> tuple[list[Message], list[str]]:
    """Every message on the root-to-leaf branch (compacted history included) with its entry id; with
    `tail`, only the newest turns holding at least `tail` messages (`tail_messages`)."""
    if tail is not None:
        return tail_messages(manager, tail)[:2]
    messages: list[Message] = []
    ids: list[str] = []
    for entry in manager.path_to(manager.leaf_id):
        message = _shown(entry_message(entry))
        if message is not None:
            messages.append(to_llm_message(message))
            ids.append(entry.id)
    return messages, ids


def _shown(message: AgentMessage | None) -> AgentMessage | None:
    """`message` unless it is for the model only (a custom message with `display` off, such as the
    kernel's namespace given at the start of a turn): views, snapshots and exports leave those out."""
    if isinstance(message, CustomMessage) and not message.display:
        return None
    return message


def tail_messages(manager: SessionManager, tail: int) -> tuple[list[Message], list[str], int]:
    """The newest turns of the branch holding at least `tail` messages (tool results not counted), from
    a user message after which every tool result answers a call also after it: the cut the view fold
    makes (`ViewFold.from_snapshot(tail=...)`), so they fold alone as they fold with the rest. Only
    these entries are validated: a transcript loaded from disk keeps its messages as parsed data, and
    validating all 10,000 of a long session's branch took about 0.1 s of the terminal app's first
    paint, which shows only its last 40 (`benchmarks/bench_tui.py`). The last item counts the messages
    before them, none validated: an entry still raw data is a provider message (`tree.is_raw`)."""
    messages: list[Message] = []
    ids: list[str] = []
    cut = TurnCut(tail)
    items = manager.path_items(manager.leaf_id)
    start = 0
    for index in range(len(items) - 1, -1, -1):
        entry = manager.get_entry(id_of(items[index]))
        found = _shown(entry_message(entry)) if entry is not None else None
        if found is None:
            continue
        message = to_llm_message(found)
        messages.append(message)
        ids.append(id_of(items[index]))
        if cut.starts_at(message):
            start = index
            break
    messages.reverse()
    ids.reverse()
    earlier = sum(1 for item in items[:start] if is_raw(item) or _shown(entry_message(item)) is not None)
    return messages, ids, earlier


def context_tokens(messages: Sequence[Message]) -> int | None:
    for message in reversed(messages):
        if isinstance(message, AssistantMessage) and message.stop_reason not in ("error", "aborted"):
            u = message.usage
            return u.input + u.output + u.cache_read + u.cache_write
    return None


def connection_state(session: AgentSession) -> ConnectionState:
    """The session's state, read from its context (messages loaded from disk stay data: no validation)."""
    manager = session.manager
    context = session.messages()
    kernel = session.kernel
    return ConnectionState(
        session_id=session.session_id,
        cwd=manager.cwd,
        session_file=str(manager.path) if manager.path else None,
        session_name=manager.name,
        leaf_id=manager.leaf_id,
        model=ModelRef(provider=session.model.provider, id=session.model.id),
        thinking_level=session.thinking_level,
        available_thinking_levels=list(supported_thinking_levels(session.model)),
        permission_mode=session.permission_mode,
        allowed_permission_modes=list(session.allowed_permission_modes or PERMISSION_MODES),
        budget=session.budget.status() if session.budget is not None else None,
        is_streaming=session.is_running,
        steering=session.steering.texts(),
        follow_up=session.follow_ups.texts(),
        message_count=len(context),
        context_tokens=context_tokens(context),
        context_window=session.model.context_window,
        header=session_header(manager),
        kernel_id=kernel.kernel_id if kernel is not None else None,
        kernel_state=kernel.state if kernel is not None else None,
    )


def snapshot(session: AgentSession, cursor: int = 0, tail: int | None = None) -> AttachSnapshot:
    """What an attach sees; with `tail`, only the newest turns of the branch (`branch_messages`): the
    front end gets the earlier messages from `get_messages()` (`earlierMessages` counts them), and their
    usage is not in the fold's."""
    if tail is None:
        (messages, ids), earlier = branch_messages(session.manager), 0
    else:
        messages, ids, earlier = tail_messages(session.manager, tail)
    return AttachSnapshot(
        state=connection_state(session),
        messages=messages,
        entry_ids=ids,
        pending_questions=session.ui.pending(),
        cursor=cursor,
        earlier_messages=earlier,
        running_shells=session.running_shells(),
    )


def session_view(manager: SessionManager, sessions_dir: str | None) -> SessionView:
    labels = manager.labels
    nodes = [
        TreeNode(
            id=entry.id,
            parent_id=entry.parent_id,
            type=entry.type,
            timestamp=entry.timestamp,
            role=entry.message.role if isinstance(entry, MessageEntry) else None,
            preview=_preview(entry.message) if isinstance(entry, MessageEntry) else _summary_preview(entry),
            label=labels.get(entry.id),
        )
        for entry in manager.entries
    ]
    return SessionView(
        cwd=manager.cwd,
        session_dir=sessions_dir,
        session_name=manager.name,
        leaf_id=manager.leaf_id,
        nodes=nodes,
        header=session_header(manager),
    )


def session_header(manager: SessionManager) -> dict[str, JsonValue]:
    """The transcript's header line as JSON data (`{"type": "session", "version", "id", ...}`)."""
    header: dict[str, JsonValue] = manager.header.model_dump(mode="json", by_alias=True, exclude_none=True)
    return header


def _summary_preview(entry: object, limit: int = 120) -> str | None:
    """The start of a compaction's or a branch summary's text (the tree shows it); None for other entries."""
    summary = getattr(entry, "summary", None)
    return " ".join(summary.split())[:limit] or None if isinstance(summary, str) else None


def _preview(message: object, limit: int = 120) -> str | None:
    if isinstance(message, UserMessage | AssistantMessage | ToolResultMessage):
        text = message.text().strip().replace("\n", " ")
        return text[:limit] if text else None
    content = getattr(message, "summary", None) or getattr(message, "content", None)
    if isinstance(content, str):
        return content[:limit]
    if isinstance(content, list):
        joined = " ".join(b.text for b in content if isinstance(b, TextContent))
        return joined[:limit] or None
    return None


def session_summary(info: SessionInfo, live: AgentSession | None = None) -> SessionSummary:
    status = "running" if live is not None and live.is_running else "idle" if live is not None else "saved"
    first = info.first_message.strip()
    title = info.name or (first.splitlines()[0][:80] if first else info.id.replace("-", "")[-12:])
    return SessionSummary(
        session_id=info.id,
        title=title,
        name=info.name,
        cwd=info.cwd,
        path=str(info.path),
        created_at=int(info.created.timestamp() * 1000),
        updated_at=int(info.modified.timestamp() * 1000),
        status=status,
        message_count=info.message_count,
        first_message=first[:200],
    )


def model_infos(registry: ModelRegistry) -> list[ModelInfo]:
    """Every model the registry knows, marked available when its provider has a key."""
    from prime_jupyter.protocol.requests import ModelInfo  # the chat routes' models: not for a headless run

    keys = {provider: registry.has_key(provider) for provider in registry.providers()}
    return [
        ModelInfo(
            provider=m.provider,
            id=m.id,
            name=m.name,
            reasoning=m.reasoning,
            images=m.accepts_images,
            context_window=m.context_window,
            max_tokens=m.max_tokens,
            thinking_levels=list(supported_thinking_levels(m)),
            available=keys.get(m.provider, False),
        )
        for m in registry.models
    ]


def shell_result(message: BashExecutionMessage, entry_id: str, execution_id: str | None = None) -> ShellResult:
    """What a user's shell command (`!cmd`) did, as its transcript entry `entry_id` holds it (and the id its
    events carried)."""
    from prime_jupyter.protocol.shell import ShellResult  # `!cmd` only: a headless run does not import it

    return ShellResult(
        command=message.command,
        output=message.output,
        exit_code=message.exit_code,
        cancelled=message.cancelled,
        truncated=message.truncated,
        full_output_path=message.full_output_path,
        included_in_context=not message.exclude_from_context,
        entry_id=entry_id,
        execution_id=execution_id,
    )


def compact_result(manager: SessionManager, entries_before: int, compacted: bool) -> CompactResult:
    """What a compaction did: the summary and the tokens before it, from the entry it appended."""
    entry = manager.entries[-1] if compacted and len(manager.entries) > entries_before else None
    return CompactResult(
        compacted=compacted,
        summary=getattr(entry, "summary", None),
        tokens_before=getattr(entry, "tokens_before", None),
    )
