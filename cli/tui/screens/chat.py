"""The chat: conversation, queue, command menu, editor and footer, on one `AgentConnection`.

The screen paints before the connection exists: the connection is opened in a worker after the first
paint, and prompts sent meanwhile wait for it. Connection events arrive through the listener into a
queue that one worker drains in order (`EventPump`: a burst of streamed deltas is drawn once); the feed
draws them, the footer is refreshed from `get_state()` when a run or the model changes (`ChatStatus`),
and questions open the question dialog (`QuestionDesk`: one at a time, closed here when they are settled
anywhere). `!cmd` and `!!cmd` run a shell command through the connection; its card (`ShellCard`) runs
live from the session's shell events, as another client's command does (`shell_events.py`).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Click
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import MountError, Widget
from textual.widgets import Static, TextArea

from prime_jupyter import gc_policy
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.extensions import CommandInfo
from prime_jupyter.connection.types import (
    ClientNotice,
    ClientSetEditorText,
    Closed,
    ConnectionEvent,
    ConnectionStatus,
    SessionEventReceived,
    SessionReplaced,
)
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.events import SessionEvent

from ..chat_status import KERNEL_POLL_S, ChatStatus
from ..commands import PROMPT_SOURCES, command_list, resolve, run_command, take_back
from ..completion import Completions
from ..connect import Connector
from ..event_pump import EventPump
from ..external_editor import edit_externally
from ..feed import Feed
from ..git_branch import git_branch
from ..question_desk import QuestionDesk
from ..sending import send_prompt
from ..shell_events import is_shell_event, show_shell_event
from ..twice import AGAIN_S, Twice
from ..welcome import KEYS, key_warning
from ..widgets.command_menu import CommandMenu
from ..widgets.conversation import Conversation
from ..widgets.editor import PromptEditor
from ..widgets.queue_view import QueueView
from ..widgets.shell_card import ShellCard
from ..widgets.status_footer import StatusFooter

__all__ = ["ChatScreen"]

_SEVERITY: dict[str, SeverityLevel] = {"info": "information", "warning": "warning", "error": "error"}


class ChatScreen(Screen[None]):
    AUTO_FOCUS = "#editor"
    BINDINGS = [
        Binding(
            "escape",
            "escape",
            "abort the run or a running !cmd; twice on an empty editor: the session tree",
            show=False,
        ),
        Binding("shift+tab", "cycle_thinking", "next thinking level", show=False, priority=True),
        Binding("ctrl+o", "expand_all", "expand or collapse all tool output", show=False),
        Binding("ctrl+l", "command('model')", "pick a model", show=False),
        Binding("alt+m", "command('mode')", "the next permission mode", show=False, priority=True),
        Binding("ctrl+d", "quit_if_empty", "quit (on an empty editor)", show=False),
        Binding("ctrl+c", "interrupt", "clear the editor, else abort the run, else (twice) quit", show=False),
        Binding("alt+up", "take_back", "take the last queued message back into the editor", show=False),
        Binding("ctrl+end", "jump_to_end", "back to the newest output (after scrolling up)", show=False, priority=True),
        Binding("pageup", "scroll_transcript(-1)", "scroll the transcript a page up", show=False, priority=True),
        Binding("pagedown", "scroll_transcript(1)", "scroll the transcript a page down", show=False, priority=True),
    ]

    class Connected(Message):
        """The connection is open (the app keeps it, to close it at exit)."""

        def __init__(self, connection: AgentConnection) -> None:
            super().__init__()
            self.connection = connection

    class ConnectFailed(Message):
        def __init__(self, error: str) -> None:
            super().__init__()
            self.error = error

    def __init__(
        self,
        connect: Connector,
        cwd_label: str,
        initial_prompt: str | None = None,
        dispose: bool = False,
        attached: bool = False,
    ) -> None:
        super().__init__()
        self._dispose = dispose
        self.attached = attached
        """The session lives in a Jupyter server (quitting leaves it running there)."""
        self._connect = connect
        self._cwd_label = cwd_label
        self.connection: AgentConnection | None = None
        self._waiting: list[tuple[str, str]] = [("send", initial_prompt)] if initial_prompt else []
        self._ready = False  # the session is open and the prompts typed before have gone
        self._pump_events = EventPump(self._fold, self._connection_event, self._draw, apart=is_shell_event)
        self._questions = QuestionDesk(self)
        self._status = ChatStatus()
        self.completions = Completions(lambda: [(c.name, c.description) for c in self.commands()])
        self._escape, self._quit = Twice(), Twice()
        """Esc twice on an empty editor with no run opens the tree; Ctrl+C twice with nothing to do quits."""
        self._kernel_timer: Timer | None = None
        self._expanded = False
        self._unsubscribe: Callable[[], None] | None = None
        """The card of the shell command running now (Esc cancels it)."""

    def compose(self) -> ComposeResult:
        yield Conversation(id="conversation")
        yield Static("↓ new output below (Ctrl+End)", id="below")
        yield QueueView(id="queue")
        yield CommandMenu(id="commands")
        yield PromptEditor(id="editor")
        yield StatusFooter(self._cwd_label, id="footer")

    def on_mount(self) -> None:
        self.conversation = self.query_one(Conversation)
        self.editor = self.query_one(PromptEditor)
        self.menu = self.query_one(CommandMenu)
        self.footer = self.query_one(StatusFooter)
        self.feed = Feed(self.conversation, self.query_one(QueueView))
        self.call_after_refresh(self._open)

    async def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._dispose and self.connection is not None:
            await self.connection.dispose()

    def queue_prompt(self, text: str, behavior: str = "send") -> None:
        """Send `text` once the session is open (after the first prompt given, if any)."""
        self._waiting.append((behavior, text))

    def commands(self) -> list[CommandInfo]:
        return command_list(self.connection)

    def post_event(self, event: ConnectionEvent) -> None:
        """Handle `event` as if the connection had sent it, in order with what it sends."""
        self._pump_events.put(event)

    async def kernel_changed(self) -> None:
        """A command acted on the kernel: show its state now (no session event says so)."""
        self._status.kernel_changed()
        await self._after_render()

    # --- the connection -------------------------------------------------------------------------

    @work(group="connect")
    async def _open(self) -> None:
        try:
            connection = await self._connect()
        except PrimeError as exc:
            self.post_message(self.ConnectFailed(str(exc)))
            return
        self.connection = connection
        self.post_message(self.Connected(connection))
        self._unsubscribe = connection.subscribe(self._pump_events.put)
        snapshot = await connection.get_snapshot(tail=self.feed.mounted)  # the earlier ones once it is drawn
        self._pump_events.skip_through(snapshot.cursor)
        self.completions.connection = connection
        self.completions.set_cwd(snapshot.state.cwd)
        self._read_branch()
        await self.feed.load(snapshot, connection.get_messages)
        await self._after_render()
        self.call_after_refresh(self._add_earlier)
        if not snapshot.messages and not self._waiting:
            self._warn_of_keys(connection, await self.conversation.add_line(KEYS))
        gc_policy.start_up_done()  # the session is open and drawn: start-up is over
        self._pump()
        while self._waiting:  # in the order typed: a prompt typed meanwhile waits its turn (`_ready`)
            behavior, text = self._waiting.pop(0)
            await self._send(text, behavior)
        self._ready = True

    @work(group="welcome")
    async def _warn_of_keys(self, connection: AgentConnection, welcome: Widget) -> None:
        warning = await key_warning(connection)
        if warning is not None:
            await self.conversation.add_line(warning, "warning", after=welcome)

    @work(group="earlier-messages")
    async def _add_earlier(self) -> None:
        """The messages before the snapshot's newest turns, read once they are on screen (their usage
        counts in the footer)."""
        await self.feed.add_earlier()
        self.refresh_footer()

    @work(group="events")
    async def _pump(self) -> None:
        try:
            await self._pump_events.drain()
        except MountError:
            return  # the app quit while a widget was being mounted: its DOM is going away

    def _fold(self, events: Sequence[SessionEvent]) -> None:
        self.feed.apply(events)
        for event in events:
            self._status.saw(event.type)

    async def _draw(self) -> None:
        await self.feed.render()
        await self._after_render()

    async def _connection_event(self, item: ConnectionEvent) -> None:
        if isinstance(item, SessionEventReceived):  # a shell command's (the pump's `apart`)
            await show_shell_event(self.conversation, item.event)
        elif isinstance(item, SessionReplaced):
            await self.feed.render()
            await self.feed.load(item.snapshot)
            self.completions.set_cwd(item.snapshot.state.cwd)
            self._read_branch()
            self._status.kernel_changed()
        elif isinstance(item, ClientSetEditorText):
            self.editor.set_prompt(item.text)
        elif isinstance(item, ClientNotice):
            self.notify(item.message, severity=_SEVERITY[item.level])
        elif isinstance(item, ConnectionStatus):
            self._status.link = item.status
        elif isinstance(item, Closed):
            await self.conversation.add_line(f"Disconnected: {item.error or 'the connection closed'}", "error")

    async def _after_render(self) -> None:
        """What follows the view state outside the conversation: questions and the footer."""
        state = self.feed.state
        if state is None:
            return
        self._questions.sync(state.questions)
        ended, long_run = self._status.run_ended(self.feed.running)
        if ended:
            if long_run:
                self.app.bell()
            self._read_branch()  # the run may have switched it
            gc_policy.modules_loaded()  # a first run imports the provider and tools: freeze them, as the server does
        await self._poll_kernel()

    async def _poll_kernel(self, timer_fired: bool = False) -> None:
        """The footer's kernel state, asked for again while the kernel starts (the launch starts it)."""
        if timer_fired:
            self._kernel_timer = None
        await self._status.refresh_kernel(self.connection)
        self.refresh_footer()
        if self._status.kernel_starting and self._kernel_timer is None:
            self._kernel_timer = self.set_timer(KERNEL_POLL_S, partial(self._poll_kernel, True))

    def refresh_footer(self) -> None:
        if self.feed.state is not None:
            self.footer.show(self._status.info(self.feed.state, self.feed.running))

    @work(group="branch", exclusive=True)
    async def _read_branch(self) -> None:
        """The branch of the session's directory, read off the UI thread."""
        branch = await asyncio.to_thread(git_branch, Path(self.completions.cwd))
        if branch != self._status.branch:
            self._status.branch = branch
            self.refresh_footer()

    # --- the editor -----------------------------------------------------------------------------

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._escape.reset()
        text = self.editor.text
        if self.completions.needs_files(text):
            self._list_files()
        self.editor.menu_open = self.menu.show(self.completions.choices(text))

    @work(group="files", exclusive=True)
    async def _list_files(self) -> None:
        await self.completions.list_files()
        self.editor.menu_open = self.menu.show(self.completions.choices(self.editor.text))

    def on_prompt_editor_menu_key(self, event: PromptEditor.MenuKey) -> None:
        if event.key == "tab":
            chosen = self.menu.chosen()
            if chosen:
                self.editor.set_prompt(chosen)
        else:
            self.menu.move(1 if event.key == "down" else -1)

    async def on_prompt_editor_submitted(self, event: PromptEditor.Submitted) -> None:
        text = event.text.strip()
        if text.startswith("!"):
            include = not text.startswith("!!")
            self._run_shell(text.removeprefix("!!" if not include else "!").strip(), include)
            return
        if text.startswith("/") and "\n" not in text:
            word, _, arg = text[1:].partition(" ")
            name = resolve(word, [c.name for c in self.commands() if c.source not in PROMPT_SOURCES])
            if name is not None:
                self._command(name, arg.strip())
                return
        behavior = "follow_up" if event.behavior == "follow_up" else "send"
        if not self._ready:
            self._waiting.append((behavior, event.text))
            return
        await self._send(event.text, behavior)

    async def _send(self, text: str, behavior: str) -> None:
        assert self.connection is not None
        cwd = self.completions.cwd
        await send_prompt(self.connection, self.feed, self.conversation, self.editor, text, behavior, cwd)

    @work(group="shell")
    async def _run_shell(self, command: str, include_in_context: bool) -> None:
        """`!cmd` (the output goes into the agent's context) or `!!cmd` (only shown): a card while it runs."""
        if not command:
            await self.conversation.add_line("Type the command after the '!': !ls (!!ls keeps it from the agent)")
            return
        if self.connection is None:
            self.notify("Still connecting to the session…", severity="warning")
            self.editor.set_prompt(("!" if include_in_context else "!!") + command)
            return
        card = ShellCard(command, include_in_context, uuid.uuid4().hex[:12])
        await self.conversation.add_shell(card)
        try:
            card.finish(await self.connection.run_shell(command, include_in_context, card.execution_id))
        except (PrimeError, ValueError) as exc:
            card.fail(f"Not run: {exc}")
        finally:
            self._read_branch()  # the command may have switched it

    @work(group="command")
    async def _command(self, name: str, arg: str) -> None:
        await run_command(self, name, arg)

    # --- actions --------------------------------------------------------------------------------

    def action_escape(self) -> None:
        """Close the menu; else abort the run; else, twice on an empty editor, open the session tree."""
        if self.menu.display:
            self.menu.display = False
            self.editor.menu_open = False
        elif (self.feed.running or any(c.running for c in self.conversation.shells)) and self.connection is not None:
            self._abort()
        elif not self.editor.text and self.connection is not None and self._escape.press():
            self._command("tree", "")

    @work(group="abort")
    async def _abort(self) -> None:
        if self.connection is not None:
            try:
                await self.connection.abort()
            except PrimeError as exc:
                self.notify(f"Could not abort: {exc}", severity="error")

    def action_cycle_thinking(self) -> None:
        self._command("thinking", "")

    def action_expand_all(self) -> None:
        self._expanded = not self._expanded
        self.conversation.set_expanded(self._expanded)

    def action_command(self, name: str) -> None:
        self._command(name, "")

    def on_conversation_reached_top(self, message: Conversation.ReachedTop) -> None:
        self._load_earlier()

    @work(group="earlier", exclusive=True)
    async def _load_earlier(self) -> None:
        await self.feed.load_earlier()

    def on_conversation_behind(self, message: Conversation.Behind) -> None:
        self.query_one("#below").display = message.behind

    def on_click(self, event: Click) -> None:
        if event.widget is not None and event.widget.id == "below":
            self.action_jump_to_end()

    def action_jump_to_end(self) -> None:
        self.conversation.jump_to_end()

    def action_scroll_transcript(self, pages: int) -> None:
        """PgUp/PgDn scroll the transcript, wherever the focus is (the editor keeps it)."""
        self.conversation.scroll_pages(pages)

    def on_prompt_editor_external_edit(self, event: PromptEditor.ExternalEdit) -> None:
        """Ctrl+G: edit the prompt in `$VISUAL` / `$EDITOR`; the app steps aside while it runs."""
        text = edit_externally(self.app, self.editor.text)
        if text is not None:
            self.editor.set_prompt(text)

    def action_take_back(self) -> None:
        self._take_back()

    @work(group="queue")
    async def _take_back(self) -> None:
        """The last queued message back into the editor; the others stay queued, in order."""
        if self.connection is None:
            return
        try:
            last = await take_back(self.connection)
        except PrimeError as exc:
            self.notify(f"The queue could not be changed: {exc}", severity="error")
            return
        if last is not None:
            self.editor.set_prompt(last)

    async def action_interrupt(self) -> None:
        """Ctrl+C: clear the editor; with nothing to clear, abort the run; with no run, twice quits."""
        if self.editor.text:
            self.editor.set_prompt("")
        elif self.feed.running and self.connection is not None:
            self._abort()
        elif self._quit.press():
            self.app.exit()
        else:
            self.notify("Ctrl+C again to quit (or Ctrl+D, or Ctrl+Q)", timeout=AGAIN_S)

    def action_quit_if_empty(self) -> None:
        if not self.editor.text:
            self.app.exit()
