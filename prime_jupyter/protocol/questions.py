"""The one question shape: a session asking its user to confirm, pick or type something.

The seed had two incompatible shapes (upstream.md §11.2); this is the only one. A question is pending
until answered, dismissed, timed out, or cancelled by an abort or a shutdown; `question-resolved`
tells every client which. A select question may allow several options (`multiple`); the answer lists
them all (the seed kept only the first). Dismissing is an answer of its own (`null`), not `false`.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field

from prime_jupyter.protocol.wire import WireModel

__all__ = [
    "CancelReason",
    "ConfirmAnswer",
    "InputAnswer",
    "Question",
    "QuestionAnswer",
    "QuestionKind",
    "QuestionOption",
    "SelectAnswer",
]

QuestionKind: TypeAlias = Literal["confirm", "select", "input"]
CancelReason: TypeAlias = Literal["dismissed", "timeout", "abort", "shutdown"]
"""`dismissed`: the user declined to answer; `timeout`: nobody answered in time; `abort`: the run was
aborted; `shutdown`: the session or the server went away."""


class QuestionOption(WireModel):
    id: str
    label: str
    description: str | None = None


class Question(WireModel):
    """A pending question. `expiresAt` (ms since the epoch) = creation + `timeoutMs`."""

    id: str
    kind: QuestionKind
    title: str
    message: str | None = None
    options: list[QuestionOption] = Field(default_factory=list)
    """The choices of a `select` question (empty otherwise)."""
    multiple: bool = False
    placeholder: str | None = None
    default: str | None = None
    timeout_ms: int
    expires_at: int
    tool_call_id: str | None = None
    """The tool call that asked, when a tool did."""


class ConfirmAnswer(WireModel):
    kind: Literal["confirm"] = "confirm"
    confirmed: bool


class SelectAnswer(WireModel):
    kind: Literal["select"] = "select"
    option_ids: list[str]
    text: str | None = None
    """Words the user added to the choice: the reason of a rejected approval (`reject_once`), which the
    model reads."""


class InputAnswer(WireModel):
    kind: Literal["input"] = "input"
    text: str


QuestionAnswer: TypeAlias = Annotated[ConfirmAnswer | SelectAnswer | InputAnswer, Field(discriminator="kind")]
