"""How a prompt typed in the chat goes to the session: its `@file` attachments are read off the UI
thread; with no run it is a new prompt (shown at once, before the session confirms it), during a run (or
before the start of the one just asked for is folded) a steering message or, with Alt+Enter, a follow-up.
What cannot be sent becomes a line in the conversation, and a prompt whose files could not be attached goes
back into the editor."""

from __future__ import annotations

import asyncio
from pathlib import Path

from prime_jupyter.connection.base import AgentConnection, StreamingBehavior
from prime_jupyter.errors import PrimeError

from .feed import Feed
from .files import attach_files
from .widgets.conversation import Conversation
from .widgets.editor import PromptEditor

__all__ = ["send_prompt"]


async def send_prompt(
    connection: AgentConnection,
    feed: Feed,
    conversation: Conversation,
    editor: PromptEditor,
    text: str,
    behavior: str,
    cwd: Path,
) -> None:
    """Send `text` as a prompt, a steering message or (`behavior` "follow_up") a follow-up."""
    attached = await asyncio.to_thread(attach_files, text, cwd)
    if attached.error is not None:
        await conversation.add_line(f"Not sent: {attached.error}", "error")
        editor.set_prompt(text)
        return
    images = attached.images or None
    try:
        if not feed.running and not feed.starting:  # a second Enter before the run's start is folded steers
            feed.add_local(text)
            await feed.render()
            await connection.prompt(attached.text, images)
        else:  # the session queues it if its run still goes, else runs it: it knows, the fold may lag
            queued: StreamingBehavior = "follow_up" if behavior == "follow_up" else "steer"
            await connection.prompt(attached.text, images, streaming_behavior=queued)
    except PrimeError as exc:
        await conversation.add_line(f"Not sent: {exc}", "error")
