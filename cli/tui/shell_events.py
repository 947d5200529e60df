"""The session's shell-command events on the screen: every client's `!cmd`, as a card that runs live.

The command's start, output and end are session events (`ShellExecution*`), sent to every connection to
the session; a card is found by its `execution_id`. This app's own commands have their card already (it
is mounted, with the id the app chose, before the command is sent); another client's command gets one at
its start, or from the snapshot when this app attached while it ran (`show_running_shells`; at its end
from a server that does not send them). The fold of the conversation
(`protocol.view`) does not hold these: they are the cards of this screen, like the app's own.
"""

from __future__ import annotations

from collections.abc import Iterable

from prime_jupyter.protocol.events import SessionEvent, ShellExecutionEnd, ShellExecutionOutput, ShellExecutionStart
from prime_jupyter.protocol.shell import ShellResult
from prime_jupyter.protocol.snapshot import RunningShell

from .widgets.conversation import Conversation
from .widgets.shell_card import ShellCard

__all__ = ["is_shell_event", "result_of", "show_running_shells", "show_shell_event"]

_SHELL_EVENTS = ("shell_execution_start", "shell_execution_output", "shell_execution_end")


def is_shell_event(event: SessionEvent) -> bool:
    return event.type in _SHELL_EVENTS


async def show_shell_event(conversation: Conversation, event: SessionEvent) -> None:
    """Start, feed or finish the card of `event`'s command (a shell event; others are ignored)."""
    if not isinstance(event, ShellExecutionStart | ShellExecutionOutput | ShellExecutionEnd):
        return
    card = next((c for c in reversed(conversation.shells) if c.execution_id == event.execution_id), None)
    if isinstance(event, ShellExecutionOutput):
        if card is not None:
            card.add_output(event.chunk, event.skipped)
        return
    if card is None:
        card = ShellCard(event.command, event.include_in_context, event.execution_id)
        await conversation.add_shell(card)
        conversation.output_arrived()
    if isinstance(event, ShellExecutionEnd):
        if event.error is not None:
            card.fail(f"Not run: {event.error}" if not event.cancelled else f"Stopped: {event.error}")
        else:
            card.finish(result_of(event))


async def show_running_shells(conversation: Conversation, shells: Iterable[RunningShell]) -> None:
    """A running card for each command a snapshot says runs, with its output so far: its events go on
    from there."""
    for shell in shells:
        card = ShellCard(shell.command, shell.include_in_context, shell.execution_id)
        await conversation.add_shell(card)
        if shell.output or shell.skipped:
            card.add_output(shell.output, shell.skipped)  # once mounted: it then redraws


def result_of(event: ShellExecutionEnd) -> ShellResult:
    """The result its end event tells (what `run_shell` answers the client that asked)."""
    return ShellResult(
        command=event.command,
        output=event.output,
        exit_code=event.exit_code,
        cancelled=event.cancelled,
        truncated=event.truncated,
        full_output_path=event.full_output_path,
        included_in_context=event.include_in_context,
        entry_id=event.entry_id,
        execution_id=event.execution_id,
    )
