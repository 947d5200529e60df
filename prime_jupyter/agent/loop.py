"""The agent loop as a function (upstream.md §2.1; pi's agent-loop).

`run_loop` streams one assistant message, runs its tool calls, appends the results and repeats until the
model stops. Steering messages are taken after a turn's tool calls and before the next model call;
follow-up messages when the agent would otherwise stop. Transient provider failures are retried with
`auto_retry_*` events. It owns no state: the caller passes the context and receives events.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from prime_jupyter.agent.retry import RetryPolicy
from prime_jupyter.agent.tool import AnyTool
from prime_jupyter.agent.tools_exec import ToolGate, run_tool_calls
from prime_jupyter.ai.abort import AbortSignal
from prime_jupyter.ai.events import AssistantMessageEvent, ErrorEvent
from prime_jupyter.ai.history import History
from prime_jupyter.ai.models import Model
from prime_jupyter.ai.stream import StreamOptions, stream
from prime_jupyter.ai.types import AssistantMessage, Context, Message, ToolResultMessage
from prime_jupyter.protocol.events import (
    AgentEnd,
    AgentStart,
    AutoRetryEnd,
    AutoRetryStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    SessionEvent,
    TurnEnd,
    TurnStart,
)

__all__ = ["LoopConfig", "run_loop"]

Emit = Callable[[SessionEvent], None]


@dataclass
class LoopConfig:
    model: Model
    system_prompt: str
    tools: list[AnyTool]
    options: Callable[[], StreamOptions]
    """Builds the stream options for each model call (keys are looked up per call)."""
    take_steering: Callable[[], list[Message]] = lambda: []
    take_follow_up: Callable[[], list[Message]] = lambda: []
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    gate: ToolGate | None = None
    """Sees every valid tool call before it runs (`tools_exec.ToolGate`): the permission mode's check."""
    offers: Callable[[str], bool] = lambda name: True
    """Whether a tool (by name) is offered to the model; asked at each model call, so a mode changed
    during a run counts from the next call (plan mode offers only read-only tools)."""
    system_note: Callable[[], str] = lambda: ""
    """Appended to the system prompt at each model call (plan mode tells the model it is planning)."""


async def run_loop(
    prompts: list[Message], history: Sequence[Message], config: LoopConfig, emit: Emit, signal: AbortSignal
) -> list[Message]:
    """Run until the model stops; returns the messages this run added (prompts included).

    `history` is not changed; a `History` is extended as a copy, its messages never converted.
    """
    messages = history.copy() if isinstance(history, History) else History(history)
    added: list[Message] = []

    def push(message: Message) -> None:
        messages.append(message)
        added.append(message)
        emit(MessageStart(message))
        emit(MessageEnd(message))

    emit(AgentStart())
    pending = list(prompts)
    call_model = True  # a run always calls the model at least once, even with no new prompt
    while True:
        while call_model or pending:
            emit(TurnStart())
            for message in pending:
                push(message)
            pending = []
            assistant = await _stream_with_retry(messages, config, emit, signal)
            messages.append(assistant)
            added.append(assistant)
            results: list[ToolResultMessage] = []
            failed = assistant.stop_reason in ("error", "aborted")
            if not failed and assistant.tool_calls():
                results = await run_tool_calls(assistant, config.tools, emit, signal, config.gate)
                for result in results:
                    push(result)
            emit(TurnEnd(assistant, results))
            if failed or signal.aborted:
                emit(AgentEnd(added))
                return added
            call_model = bool(results)
            pending = config.take_steering()
        pending = config.take_follow_up()
        if not pending:
            break
    emit(AgentEnd(added))
    return added


async def _stream_with_retry(
    messages: History, config: LoopConfig, emit: Emit, signal: AbortSignal
) -> AssistantMessage:
    """One model call, retried on transient failures. Emits a matched message_start/message_end per attempt
    that produced output; a failed attempt stays in the transcript but providers never see it again."""
    policy = config.retry
    attempt = 0
    while True:
        message, failure, started = await _stream_once(messages, config, emit, signal)
        delay = policy.delay(attempt + 1, failure.retry_after_s) if failure is not None else 0.0
        retry = (
            failure is not None
            and failure.retryable
            and policy.enabled
            and attempt < policy.max_retries
            and delay <= policy.max_delay_s
            and not signal.aborted
        )
        if not retry:
            if not started:
                emit(MessageStart(message))
            emit(MessageEnd(message))
            if attempt:
                emit(AutoRetryEnd(failure is None, attempt, message.error_message if failure else None))
            return message
        if started:
            emit(MessageEnd(message))
        attempt += 1
        emit(AutoRetryStart(attempt, policy.max_retries, int(delay * 1000), message.error_message or ""))
        if await _sleep(delay, signal):
            emit(AutoRetryEnd(False, attempt, "aborted by the user"))
            aborted = AssistantMessage(
                api=message.api,
                provider=message.provider,
                model=message.model,
                stop_reason="aborted",
                error_message="aborted by the user",
            )
            emit(MessageStart(aborted))
            emit(MessageEnd(aborted))
            return aborted


async def _stream_once(
    messages: History, config: LoopConfig, emit: Emit, signal: AbortSignal
) -> tuple[AssistantMessage, ErrorEvent | None, bool]:
    """One model call: (final message, the failure if any, whether message_start was emitted)."""
    options = config.options()
    options.signal = signal
    tools = [t.spec() for t in config.tools if config.offers(t.name)]
    note = config.system_note()
    system_prompt = f"{config.system_prompt}\n\n{note}" if note else config.system_prompt
    # Not validated again: the models are, and validating a resumed history's data would build 22,000 models.
    context = Context.model_construct(system_prompt=system_prompt, messages=messages, tools=tools)
    started = False

    def on_event(event: AssistantMessageEvent) -> None:  # in the provider's call: no loop pass per delta
        nonlocal started
        if event.type == "start":
            started = True
            emit(MessageStart(event.partial))
        elif event.type != "done" and event.type != "error":  # the terminal one comes through the stream
            emit(MessageUpdate(event.partial, event))

    async for event in stream(config.model, context, options, on_event):
        if event.type == "done":
            return event.message, None, started
        if event.type == "error":
            return event.error, event, started
    raise AssertionError("a provider stream ended without done or error")


async def _sleep(seconds: float, signal: AbortSignal) -> bool:
    """Sleep unless aborted first; True when aborted."""
    try:
        await asyncio.wait_for(signal.wait(), timeout=seconds)
    except TimeoutError:
        return False
    return True
