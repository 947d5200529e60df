"""The one interception point of tool calls (design.md D18): extension hooks, then the permission mode.

`ToolPolicy` is the session's `ToolGate` (`agent.tools_exec`). For each call whose arguments are valid:

1. the extensions' `tool_call` hooks (`resources.extensions`): the administrator's policy extensions first,
   whose block is final, then the user's; a block is the call's result (the model reads the reason);
2. the session's permission mode (`runtime.approvals`): allow, refuse, or ask the user;
3. what the call is about to change is kept (`runtime.changes`), and after it what it changed;
4. the tool;
5. the extensions' `tool_result` hooks on whatever came of it (run, refused or blocked): the user's first,
   the policy's last; a result the policy blocked is seen by policy extensions only.

Every block is a `permission_decision` entry in the transcript, as every approval decision is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import JsonValue

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import TextContent, ToolCall
from prime_jupyter.protocol.events import ToolOutput
from prime_jupyter.runtime.approvals import Approvals

if TYPE_CHECKING:
    from prime_jupyter.resources.extensions.host import ExtensionHost
    from prime_jupyter.runtime.changes import ChangeRecorder

__all__ = ["BLOCKED", "ToolPolicy"]

BLOCKED = "blocked"
"""The decision recorded for a call an extension blocked."""


class ToolPolicy:
    """A session's gate: its extensions (None: it has none) and its approvals."""

    def __init__(self, extensions: ExtensionHost | None, approvals: Approvals) -> None:
        self.extensions = extensions
        self.approvals = approvals
        self.changes: ChangeRecorder | None = None
        """Keeps what the file and notebook tools change, for a rewind (None: nothing is kept)."""
        self._policy_blocked: set[str] = set()

    async def before(self, call: ToolCall, signal: AbortSignal) -> ToolOutput | None:
        if self.extensions is not None:
            block = await self.extensions.tool_call(call.id, call.name, call.arguments)
            if block is not None:
                if block.policy:
                    self._policy_blocked.add(call.id)
                self._record(call, block.extension, block.policy, block.reason)
                details: JsonValue = {"blocked": True, "extension": block.extension, "policy": block.policy}
                return ToolOutput(content=[TextContent(text=block.text)], details=details, is_error=True)
        refused = await self.approvals.gate(call, signal)
        if refused is None and self.changes is not None:
            await self.changes.before(call)
        return refused

    async def after(self, call: ToolCall, output: ToolOutput) -> ToolOutput:
        if self.changes is not None:
            await self.changes.after(call)
        blocked_by_policy = call.id in self._policy_blocked
        self._policy_blocked.discard(call.id)
        if self.extensions is None:
            return output
        return await self.extensions.tool_result(
            call.id, call.name, call.arguments, output, blocked_by_policy=blocked_by_policy
        )

    def _record(self, call: ToolCall, extension: str, policy: bool, reason: str) -> None:
        self.approvals.record(
            {
                "toolCallId": call.id,
                "toolName": call.name,
                "decision": BLOCKED,
                "mode": self.approvals.policy.mode,
                "extension": extension,
                "policy": policy,
                "reason": reason,
            }
        )
