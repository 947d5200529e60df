"""The permission check at the interception point: allow, refuse, or ask the user (issue 24).

`Approvals.gate` is the session's `ToolGate` (`agent.tools_exec`). What the mode lets through runs; what
it forbids (plan mode) gets a refusal the model reads; what needs approval becomes a pending `select`
question tied to the call (`toolCallId`), asked through the session's `SessionUI` like any other question,
so every attached surface shows it and any of them may answer. The wire contract of that question:

- `kind: "select"`, `toolCallId` = the call's id, `title` names the tool, `message` shows the code, the
  command or the change;
- options with the ids `allow_once`, `allow_always` (this tool for the rest of the session; for `bash`,
  this command prefix) and `reject_once`;
- a rejection may carry the user's words as the answer's `text`; the model reads them.

An approval never times out into "yes": it waits (`Settings.approval_timeout_s` = 0) or, with a timeout,
refuses. Where nobody can answer (`jupyter prime -p`), a call that needs approval is refused with a
message saying how to allow it. Every decision is a `permission_decision` custom entry in the
transcript (bookkeeping: never part of the model's context).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterable, Mapping

from pydantic import JsonValue

from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.types import TextContent, ToolCall
from prime_jupyter.protocol.events import ToolOutput
from prime_jupyter.protocol.questions import CancelReason, Question, QuestionOption, SelectAnswer
from prime_jupyter.runtime.permissions import AllowRule, PermissionPolicy, tool_kind
from prime_jupyter.runtime.ui import SessionUI
from prime_jupyter.sessions.entries import CustomEntry

__all__ = [
    "ALLOW_ALWAYS",
    "ALLOW_ONCE",
    "APPROVAL_OPTIONS",
    "DECISION_ENTRY",
    "REJECT_ONCE",
    "Approvals",
    "is_approval",
    "preview",
]

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT_ONCE = "reject_once"
APPROVAL_OPTIONS = (
    QuestionOption(id=ALLOW_ONCE, label="Allow once"),
    QuestionOption(id=ALLOW_ALWAYS, label="Allow always", description="for the rest of this session"),
    QuestionOption(id=REJECT_ONCE, label="Reject", description="add a reason the agent reads, if you like"),
)
DECISION_ENTRY = "permission_decision"
"""The `customType` of the transcript entry recording each decision."""

Record = Callable[[JsonValue], object]
_PREVIEW_LIMIT = 4_000
"""Characters of code, command or diff a question shows (the tool card shows the whole call)."""


class Approvals:
    """A session's permission check: its policy, the UI that asks, and where decisions are recorded."""

    def __init__(
        self,
        policy: PermissionPolicy,
        ui: SessionUI,
        record: Record,
        *,
        interactive: bool,
        timeout_s: float = 0.0,
    ) -> None:
        self.policy = policy
        self.ui = ui
        self.record = record
        self.interactive = interactive
        """Whether a person can answer; without one, a call that needs approval is refused with a hint."""
        self.timeout_s = timeout_s
        """0: an approval waits until answered; else it is refused after that many seconds."""

    async def gate(self, call: ToolCall, signal: AbortSignal) -> ToolOutput | None:
        decision = self.policy.decide(call.name, call.arguments)
        if decision == "allow":
            return None
        if decision == "deny":
            self._record(call, "denied", reason=f"mode {self.policy.mode}")
            return _refusal(_plan_refusal(call.name))
        if not self.interactive:
            self._record(call, "refused", reason="nobody can answer")
            return _refusal(_headless_refusal(call.name, self.policy.mode))
        return await self._ask(call, signal)

    async def _ask(self, call: ToolCall, signal: AbortSignal) -> ToolOutput | None:
        unanswered: list[CancelReason] = []
        answer = await signal.race(
            self.ui.ask(
                "select",
                f"Allow {call.name}?",
                message=preview(call.name, call.arguments),
                options=list(APPROVAL_OPTIONS),
                timeout_s=self.timeout_s,
                tool_call_id=call.id,
                on_unanswered=unanswered.append,
            )
        )
        if signal.aborted:
            return None  # the loop answers an aborted call itself (the question was cancelled with it)
        chosen = answer.option_ids[0] if isinstance(answer, SelectAnswer) and answer.option_ids else None
        if chosen == ALLOW_ONCE:
            self._record(call, ALLOW_ONCE)
            return None
        if chosen == ALLOW_ALWAYS:
            rule = self.policy.rule_for(call.name, call.arguments)
            if rule is not None:
                self.policy.allow_always(rule)
            self._record(
                call, ALLOW_ALWAYS, rule=rule.describe() if rule else None, prefix=rule.prefix if rule else None
            )
            return None
        if chosen == REJECT_ONCE:
            words = answer.text.strip() if isinstance(answer, SelectAnswer) and answer.text else ""
            self._record(call, REJECT_ONCE, reason=words or None)
            return _refusal(_rejection(call.name, words), {"rejected": True, "reason": words or None})
        why = unanswered[0] if unanswered else "dismissed"
        self._record(call, "unanswered", reason=why)
        return _refusal(_unanswered(call.name, why), {"rejected": True, "reason": None})

    def restore(self, entries: Iterable[object]) -> None:
        """Take back the "allow always" rules a transcript's decisions recorded (a resumed session, a
        server restarted): they last for the session, not for one process."""
        for entry in entries:
            data = entry.data if isinstance(entry, CustomEntry) and entry.custom_type == DECISION_ENTRY else None
            if isinstance(data, dict) and data.get("decision") == ALLOW_ALWAYS and "rule" in data:
                tool, prefix = data.get("toolName"), data.get("prefix")
                if isinstance(tool, str) and (prefix is None or isinstance(prefix, str)):
                    self.policy.allow_always(AllowRule(tool, prefix))

    def _record(self, call: ToolCall, decision: str, **extra: str | None) -> None:
        data: dict[str, JsonValue] = {
            "toolCallId": call.id,
            "toolName": call.name,
            "decision": decision,
            "mode": self.policy.mode,
        }
        data.update({key: value for key, value in extra.items() if value is not None})
        self.record(data)


def is_approval(question: Question) -> bool:
    """Whether a question is a tool call's approval (its options are the approval's)."""
    return question.kind == "select" and [o.id for o in question.options] == [o.id for o in APPROVAL_OPTIONS]


def preview(name: str, arguments: Mapping[str, object]) -> str:
    """What an approval shows of a call: the code, the command, or the change as a diff."""
    code = arguments.get("code") if name != "bash" else arguments.get("command")
    content, edits = arguments.get("content"), arguments.get("edits")
    if isinstance(code, str):
        text = code
    elif name == "write" and isinstance(content, str):
        text = f"{arguments.get('path')}\n\n{content}"
    elif name == "edit" and isinstance(edits, list):
        text = _edit_diff(str(arguments.get("path")), edits)
    else:
        text = json.dumps(arguments, ensure_ascii=False, indent=2, default=str)
    return text if len(text) <= _PREVIEW_LIMIT else text[:_PREVIEW_LIMIT] + "\n… (cut; the tool call shows it all)"


def _edit_diff(path: str, edits: list[object]) -> str:
    lines: list[str] = []
    for edit in edits:
        if not isinstance(edit, Mapping):
            continue
        old, new = (
            str(edit.get("oldText", edit.get("old_text", ""))),
            str(edit.get("newText", edit.get("new_text", ""))),
        )
        diff = difflib.unified_diff(old.splitlines(), new.splitlines(), path, path, lineterm="")
        lines.extend(diff)
    return "\n".join(lines) or path


def _refusal(text: str, details: JsonValue = None) -> ToolOutput:
    return ToolOutput(content=[TextContent(text=text)], details=details, is_error=True)


def _rejection(name: str, words: str) -> str:
    said = f' They said: "{words}"' if words else ""
    return f"The user rejected this {name} call; it did not run.{said} Do not retry it unchanged: adapt, or ask."


def _unanswered(name: str, why: CancelReason) -> str:
    how = {"timeout": "the approval timed out", "dismissed": "the approval was dismissed"}.get(why, "it was cancelled")
    return f"This {name} call did not run: the user did not approve it ({how})."


def _plan_refusal(name: str) -> str:
    return (
        f"This {name} call did not run: the session is in plan mode, where only tools that change nothing "
        "may run. Finish the plan and ask the user to switch the mode to carry it out."
    )


def _headless_refusal(name: str, mode: str) -> str:
    kind = "changes files" if tool_kind(name) == "change" else "runs code or commands"
    return (
        f"This {name} call did not run: it {kind}, which permission mode '{mode}' asks about, and nobody can "
        "answer here. To allow it, run with `--permission-mode auto` (or `accept-edits` for file changes), "
        'or set "permissionMode" in settings.json.'
    )
