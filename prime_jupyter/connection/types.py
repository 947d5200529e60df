"""The seam's vocabulary: connection events, the replaced-client context, and the unsupported error."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.events import SessionEvent
from prime_jupyter.protocol.snapshot import AttachSnapshot

__all__ = [
    "AfterReplace",
    "AgentConnectionUnsupportedError",
    "ClientNotice",
    "ClientSetEditorText",
    "Closed",
    "ConnectionEvent",
    "ConnectionListener",
    "ConnectionStatus",
    "ReplacedClientContext",
    "SessionEventReceived",
    "SessionReplaced",
]


class AgentConnectionUnsupportedError(PrimeError):
    """This connection cannot do that (a process-local handle over HTTP, or a feature the server lacks)."""

    def __init__(self, message: str, feature: str) -> None:
        super().__init__(message)
        self.feature = feature


@dataclass(frozen=True, slots=True)
class SessionEventReceived:
    """A session event of the connected session. `seq`: its place in the session's event log, where the
    connection knows it (both of ours do; a stand-in may not): a snapshot as of cursor `c` already holds
    every event up to `c`."""

    event: SessionEvent
    seq: int | None = None
    type: Literal["session_event"] = "session_event"


@dataclass(frozen=True, slots=True)
class SessionReplaced:
    """The connection now shows another session (new, switched or forked): redraw from the snapshot."""

    snapshot: AttachSnapshot
    type: Literal["session_replaced"] = "session_replaced"


@dataclass(frozen=True, slots=True)
class ClientNotice:
    """A message for the user from an `after_replace` hook."""

    message: str
    level: Literal["info", "warning", "error"] = "info"
    type: Literal["client_notice"] = "client_notice"


@dataclass(frozen=True, slots=True)
class ClientSetEditorText:
    """Text to put in the prompt editor (after a fork, or from a hook)."""

    text: str
    type: Literal["client_set_editor_text"] = "client_set_editor_text"


@dataclass(frozen=True, slots=True)
class ConnectionStatus:
    """A remote connection lost its stream and is reconnecting, or is connected again."""

    status: Literal["connected", "reconnecting"]
    error: str | None = None
    type: Literal["connection_status"] = "connection_status"


@dataclass(frozen=True, slots=True)
class Closed:
    """The connection is closed for good; `error` says why when it was not asked to."""

    error: str | None = None
    type: Literal["closed"] = "closed"


ConnectionEvent: TypeAlias = (
    SessionEventReceived | SessionReplaced | ClientNotice | ClientSetEditorText | ConnectionStatus | Closed
)
ConnectionListener: TypeAlias = Callable[[ConnectionEvent], None]


class ReplacedClientContext:
    """What an `after_replace` hook may do once a replacement took effect, and nothing else."""

    def __init__(
        self,
        send_user_message: Callable[[str], Awaitable[object]],
        notify: Callable[[str, str], None],
        set_editor_text: Callable[[str], None],
    ) -> None:
        self._send = send_user_message
        self._notify = notify
        self._set_editor_text = set_editor_text

    async def send_user_message(self, text: str) -> None:
        await self._send(text)

    def notify(self, message: str, level: str = "info") -> None:
        self._notify(message, level)

    def set_editor_text(self, text: str) -> None:
        self._set_editor_text(text)


AfterReplace: TypeAlias = Callable[[ReplacedClientContext], Awaitable[None] | None]
