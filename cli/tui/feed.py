"""From connection events to the screen, through the Python view fold (design.md D12).

The app keeps no conversation model of its own: `ViewFold` (`prime_jupyter.protocol.view`) folds the
session's events into a `ViewState`, the same fold the panel's `model.ts` twins, and `Feed.render` draws a
state by comparing it with the last one drawn. States share what did not change, so only messages whose
`MessageView` is a new object are redrawn. A snapshot (an attach, a replaced session) starts a new fold;
only its newest `MOUNTED_MESSAGES` messages are folded and mounted, so a long session opens quickly; the
earlier ones are folded (`ViewFold.unfold_earlier`) and mounted as the user scrolls to the top.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable

from prime_jupyter.ai.types import ToolResultMessage
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.events import AgentEnd, SessionEvent
from prime_jupyter.protocol.snapshot import AttachSnapshot, MessagesResult
from prime_jupyter.protocol.view import ViewFold, ViewState, add_local_message, is_running
from prime_jupyter.protocol.view.state import MessageView

from .shell_events import show_running_shells
from .widgets.conversation import Conversation
from .widgets.queue_view import QueueView

__all__ = ["MOUNTED_MESSAGES", "Feed"]

MOUNTED_MESSAGES = 40
"""How many of a session's newest messages are mounted when it is opened (and each time the user scrolls
to the top). Enough to fill a tall terminal; layout costs grow with every widget mounted: with 200, the
last answer of a 10,000-entry session showed 4.7 s after launch, most of it Textual laying out some
1,300 widgets (`benchmarks/bench_tui.py`)."""


class Feed:
    """The session's view fold, and what of it the conversation and the queue show."""

    def __init__(self, conversation: Conversation, queue: QueueView, mounted: int = MOUNTED_MESSAGES) -> None:
        self.conversation = conversation
        self.queue = queue
        self.mounted = mounted
        """How many of the newest messages a session opens with; scrolling to the top mounts as many more."""
        self.fold: ViewFold | None = None
        self._earlier: tuple[Callable[[], Awaitable[MessagesResult]], str] | None = None
        """How to read the branch, and the first message id of the snapshot drawn (`load`)."""
        self._adding: asyncio.Future[None] | None = None
        self._drawn: ViewState | None = None
        self._hidden = 0
        self._aborted: set[str] = set()
        """Keys of assistant messages whose tool calls an abort cut short (`_note_aborts`)."""

    @property
    def state(self) -> ViewState | None:
        return self.fold.state if self.fold is not None else None

    @property
    def running(self) -> bool:
        return self.fold is not None and is_running(self.fold.state)

    @property
    def starting(self) -> bool:
        """A prompt this app sent is not confirmed yet: the session runs, though its start is not folded."""
        messages = self.fold.state.messages if self.fold is not None else ()
        return bool(messages) and messages[-1].pending  # a prompt of ours comes last until its run starts

    async def load(
        self, snapshot: AttachSnapshot, earlier: Callable[[], Awaitable[MessagesResult]] | None = None
    ) -> None:
        """Draw a session from scratch, the shell commands running in it too. A snapshot of the newest
        turns only (`get_snapshot(tail=...)`) comes with `earlier`, which reads the whole branch
        (`get_messages`): the messages before the snapshot's are taken from it by `add_earlier`, or when
        the user scrolls to the top. It is not read when the snapshot says it left none out (a server
        before schema revision 8 does not say)."""
        self.fold = ViewFold.from_snapshot(snapshot, tail=self.mounted)
        cut = snapshot.earlier_messages != 0 and bool(snapshot.entry_ids)
        self._earlier = (earlier, snapshot.entry_ids[0]) if earlier is not None and cut else None
        self._adding = None
        await self.conversation.clear()
        self._drawn = None
        self._hidden = max(0, len(self.fold.state.messages) - self.mounted)
        await self.conversation.set_earlier(self._hidden + self.fold.earlier)
        await self.render()
        await show_running_shells(self.conversation, snapshot.running_shells)

    async def add_earlier(self) -> None:
        """Read the messages before the snapshot's (once), and count them in the line at the top."""
        if self._adding is None and self._earlier is not None:
            self._adding = asyncio.ensure_future(self._read_earlier(*self._earlier))
        if self._adding is not None:
            await asyncio.shield(self._adding)

    async def _read_earlier(self, read: Callable[[], Awaitable[MessagesResult]], first_id: str) -> None:
        fold = self.fold
        try:
            branch = await read()
        except PrimeError as exc:
            await self.conversation.add_line(f"Earlier messages could not be read: {exc}", "error")
            return
        if self.fold is not fold or fold is None or first_id not in branch.entry_ids:
            return  # another session drawn meanwhile, or the branch was switched
        cut = branch.entry_ids.index(first_id)
        fold.add_earlier(branch.messages[:cut], branch.entry_ids[:cut])
        await self.conversation.set_earlier(self._hidden + fold.earlier)

    async def load_earlier(self) -> bool:
        """Mount the next `mounted` earlier messages above the others; False when all are mounted."""
        await self.add_earlier()
        if self.fold is None or self._hidden + self.fold.earlier == 0:
            return False
        if self._hidden < self.mounted:
            self._unfold_earlier()
        start = max(0, self._hidden - self.mounted)
        await self.conversation.show_earlier(self.fold.state.messages[start : self._hidden])
        self._hidden = start
        await self.conversation.set_earlier(start + self.fold.earlier)
        return True

    def _unfold_earlier(self) -> None:
        """Fold more of the session's earlier messages; they are drawn already, as far as `render` goes
        (they are mounted by `load_earlier`, not as new output)."""
        assert self.fold is not None
        before = self.fold.state
        views = self.fold.unfold_earlier(self.mounted)
        self._hidden += len(views)
        if self._drawn is before:
            self._drawn = self.fold.state
        elif self._drawn is not None:
            self._drawn = dataclasses.replace(self._drawn, messages=(*views, *self._drawn.messages))

    def apply(self, events: Iterable[SessionEvent]) -> None:
        if self.fold is not None:
            events = list(events)
            self.fold.apply_events(events)
            self._note_aborts(events)

    def _note_aborts(self, events: list[SessionEvent]) -> None:
        """A run that ends on tool results the model never saw was aborted while its tools ran (the rule of
        the event mapper's `done`): its last message says "Aborted." as a message aborted while streaming
        does. Esc during a tool call said nothing."""
        for event in events:
            if isinstance(event, AgentEnd) and event.messages and isinstance(event.messages[-1], ToolResultMessage):
                assert self.fold is not None
                last = next((m for m in reversed(self.fold.state.messages) if m.role == "assistant"), None)
                if last is not None:
                    self._aborted.add(last.key)

    def _with_aborts(self, messages: tuple[MessageView, ...]) -> tuple[MessageView, ...]:
        if not self._aborted:
            return messages
        return tuple(
            dataclasses.replace(m, stop_reason="aborted")
            if m.key in self._aborted and m.stop_reason == "toolUse"
            else m
            for m in messages
        )

    def add_local(self, text: str) -> None:
        """Show a prompt this app is sending before the session confirms it."""
        if self.fold is not None:
            local_id = f"local-{uuid.uuid4().hex[:12]}"
            self.fold.state = add_local_message(self.fold.state, local_id, text, int(time.time() * 1000))

    async def render(self) -> None:
        """Draw the fold's state: what changed since the last one drawn."""
        if self.fold is None:
            return
        state, drawn = self.fold.state, self._drawn
        self._drawn = state
        if drawn is not None and (state.messages is not drawn.messages or state.notices is not drawn.notices):
            self.conversation.output_arrived()
        if drawn is None or state.messages is not drawn.messages:
            shown = self._with_aborts(state.messages[self._hidden :])
            if drawn is not None:
                gone = {m.key for m in drawn.messages} - {m.key for m in state.messages}
                await self.conversation.drop_messages(gone)
            await self.conversation.show_messages(shown)
        if drawn is None or state.notices is not drawn.notices:
            await self.conversation.show_notices(state.notices)
        if drawn is None or (state.steering, state.follow_up) != (drawn.steering, drawn.follow_up):
            self.queue.show(state.steering, state.follow_up)
