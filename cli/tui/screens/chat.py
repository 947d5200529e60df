"""The chat: conversation, queue, command menu, editor and footer, on one `AgentConnection`.

The screen paints before the connection exists: the connection is opened in a worker after the first
paint, and prompts sent meanwhile wait for it. Connection events arrive through the listener into a
queue that one worker drains in order (a burst of streamed deltas is drawn once); the feed draws them,
the footer is refreshed from `get_state()` when a run or the model changes, and questions open the
question dialog (one at a time, closed here when they are settled anywhere). `!cmd` and `!!cmd` run a
shell command through the connection; its card (`ShellCard`) runs live from the session's shell events, as
another client's command does (`shell_events.py`).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Click
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import MountError
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
from prime_jupyter.protocol.questions import Question

from ..commands import command_list, resolve, run_command, take_back
from ..completion import Completions
from ..connect import Connector
from ..external_editor import edit_externally
from ..feed import Feed
from ..files import attach_files
from ..git_branch import git_branch
from ..shell_events import is_shell_event, show_shell_event
from ..widgets.command_menu import CommandMenu
from ..widgets.conversation import Conversation
from ..widgets.editor import PromptEditor
from ..widgets.queue_view import QueueView
from ..widgets.shell_card import ShellCard
from ..widgets.status_footer import StatusFooter, footer_info
from .question import DialogResult, QuestionDialog

__all__ = ["ChatScreen"]

_KERNEL_EVENTS = frozenset({"agent_start", "agent_end", "tool_execution_start", "tool_execution_end"})
"""After these the kernel's state may have changed (the view state does not carry it: `get_state()` does)."""


_ESCAPE_AGAIN_S = 2.0
"""A second Esc this soon after the first (editor empty, no run) opens the tree."""
_FOLD_BUDGET_S = 0.01
"""Folding a burst of thousands of streamed deltas in one pass held the loop for 100-400 ms (asyncio's
debug mode, during `benchmarks/bench_tui.py`'s 20,000-delta answer): a pass folds for at most this long,
then draws and lets keys in."""
_BELL_AFTER_S = 5.0
"""A run longer than this rings the terminal's bell when it ends (the user may be looking elsewhere)."""
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
        Binding("ctrl+d", "quit_if_empty", "quit (on an empty editor)", show=False),
        Binding("ctrl+c", "interrupt", "clear the editor, else abort the run", show=False),
        Binding("alt+up", "take_back", "take the last queued message back into the editor", show=False),
        Binding("ctrl+end", "jump_to_end", "back to the newest output (after scrolling up)", show=False, priority=True),
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
        self._events: asyncio.Queue[ConnectionEvent] = asyncio.Queue()
        self._dialog: QuestionDialog | None = None
        self._closed_questions: set[str] = set()
        """Questions whose dialog closed here (answered, declined, timed out, settled elsewhere)."""
        self._kernel_state: str | None = None
        self._kernel_stale = True
        self._run_started: float | None = None
        self.completions = Completions(lambda: [(c.name, c.description) for c in self.commands()])
        self._escaped = False
        """Esc was pressed once on an empty editor with no run: the next one opens the tree."""
        self._escape_timer: Timer | None = None
        self._expanded = False
        self._link = "connected"
        self._unsubscribe: Callable[[], None] | None = None
        """The card of the shell command running now (Esc cancels it)."""
        self._branch: str | None = None
        """The git branch of the session's directory, read again when a run or a command ends."""

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
        self._events.put_nowait(event)

    async def kernel_changed(self) -> None:
        """A command acted on the kernel: show its state now (no session event says so)."""
        self._kernel_stale = True
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
        self._unsubscribe = connection.subscribe(self._events.put_nowait)
        snapshot = await connection.get_snapshot()
        self.completions.connection = connection
        self.completions.set_cwd(snapshot.state.cwd)
        self._read_branch()
        await self.feed.load(snapshot)
        await self._after_render()
        gc_policy.start_up_done()  # the session is open and drawn: start-up is over
        self._pump()
        waiting, self._waiting = self._waiting, []
        for behavior, text in waiting:
            await self._send(text, behavior)

    @work(group="events")
    async def _pump(self) -> None:
        try:
            await self._drain()
        except MountError:
            return  # the app quit while a widget was being mounted: its DOM is going away

    async def _drain(self) -> None:
        """Fold the events that came since the last pass, then draw once; a pass folds for at most
        `_FOLD_BUDGET_S`, then draws and lets the loop take keys before it goes on."""
        while True:
            item = await self._events.get()
            deadline = time.monotonic() + _FOLD_BUDGET_S
            while True:
                if isinstance(item, SessionEventReceived):
                    if is_shell_event(item.event):
                        await show_shell_event(self.conversation, item.event)
                    self.feed.apply((item.event,))
                    self._kernel_stale |= item.event.type in _KERNEL_EVENTS
                else:
                    await self._connection_event(item)
                if self._events.empty() or time.monotonic() > deadline:
                    break
                item = self._events.get_nowait()
            await self.feed.render()
            await self._after_render()
            if not self._events.empty():
                await asyncio.sleep(0)

    async def _connection_event(self, item: ConnectionEvent) -> None:
        if isinstance(item, SessionReplaced):
            await self.feed.render()
            await self.feed.load(item.snapshot)
            self.completions.set_cwd(item.snapshot.state.cwd)
            self._read_branch()
            self._kernel_stale = True
        elif isinstance(item, ClientSetEditorText):
            self.editor.set_prompt(item.text)
        elif isinstance(item, ClientNotice):
            self.notify(item.message, severity=_SEVERITY[item.level])
        elif isinstance(item, ConnectionStatus):
            self._link = item.status
        elif isinstance(item, Closed):
            await self.conversation.add_line(f"Disconnected: {item.error or 'the connection closed'}", "error")

    async def _after_render(self) -> None:
        """What follows the view state outside the conversation: questions and the footer."""
        state = self.feed.state
        if state is None:
            return
        self._sync_questions(state.questions)
        self._ring_after_a_long_run()
        if self._kernel_stale and self.connection is not None:
            self._kernel_stale = False
            try:
                self._kernel_state = (await self.connection.get_state()).kernel_state
            except PrimeError:  # the server is out of reach: the connection says so, and reconnects
                self._kernel_stale = True
        self.refresh_footer()

    def _ring_after_a_long_run(self) -> None:
        now = time.monotonic()
        if self.feed.running and self._run_started is None:
            self._run_started = now
        elif not self.feed.running and self._run_started is not None:
            if now - self._run_started > _BELL_AFTER_S:
                self.app.bell()
            self._run_started = None
            self._read_branch()  # the run may have switched it
            gc_policy.modules_loaded()  # a first run imports a provider SDK: freeze it, as the server does

    def refresh_footer(self) -> None:
        if self.feed.state is not None:
            running = self.feed.running
            self.footer.show(footer_info(self.feed.state, self._kernel_state, running, self._link, self._branch))

    @work(group="branch", exclusive=True)
    async def _read_branch(self) -> None:
        """The branch of the session's directory, read off the UI thread."""
        branch = await asyncio.to_thread(git_branch, Path(self.completions.cwd))
        if branch != self._branch:
            self._branch = branch
            self.refresh_footer()

    # --- questions ------------------------------------------------------------------------------

    def _sync_questions(self, questions: tuple[Question, ...]) -> None:
        """One dialog at a time, for the oldest pending question; closed when it is settled anywhere."""
        if self._dialog is not None and all(q.id != self._dialog.question.id for q in questions):
            self._dialog.close_settled()
            self._dialog = None
        waiting = [q for q in questions if q.id not in self._closed_questions]
        if self._dialog is None and waiting:
            question = waiting[0]
            self._dialog = QuestionDialog(question)
            self.app.bell()
            self.app.push_screen(self._dialog, lambda result: self._answered(question, result))

    def _answered(self, question: Question, result: DialogResult | None) -> None:
        self._closed_questions.add(question.id)  # not opened again while the session settles it
        if self._dialog is not None and self._dialog.question.id == question.id:
            self._dialog = None
        if result is not None and result.timed_out:
            self._timed_out(question)
        if result is not None and result.send and self.connection is not None:
            self._answer(question.id, result)

    @work(group="timeouts")
    async def _timed_out(self, question: Question) -> None:
        waited = round(question.timeout_ms / 1000)
        await self.conversation.add_line(
            f"Nobody answered “{question.title}” within {waited} s, so the agent went on without an answer.",
            "warning",
        )

    @work(group="answers")
    async def _answer(self, question_id: str, result: DialogResult) -> None:
        if self.connection is not None:
            try:
                await self.connection.answer_question(question_id, result.answer)
            except PrimeError as exc:
                self.notify(f"The answer was not sent: {exc}", severity="error")

    # --- the editor -----------------------------------------------------------------------------

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._escaped = False
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
            name = resolve(word, [c.name for c in self.commands()])
            if name is not None:
                self._command(name, arg.strip())
                return
        behavior = "follow_up" if event.behavior == "follow_up" else "send"
        if self.connection is None:
            self._waiting.append((behavior, event.text))
            return
        await self._send(event.text, behavior)

    async def _send(self, text: str, behavior: str) -> None:
        assert self.connection is not None
        attached = await asyncio.to_thread(attach_files, text, self.completions.cwd)
        if attached.error is not None:
            await self.conversation.add_line(f"Not sent: {attached.error}", "error")
            self.editor.set_prompt(text)
            return
        images = attached.images or None
        try:
            if not self.feed.running:
                self.feed.add_local(text)
                await self.feed.render()
                await self.connection.prompt(attached.text, images)
            elif behavior == "follow_up":
                await self.connection.follow_up(attached.text, images)
            else:
                await self.connection.steer(attached.text, images)
        except PrimeError as exc:
            await self.conversation.add_line(f"Not sent: {exc}", "error")

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
        elif not self.editor.text and self.connection is not None:
            if self._escaped:
                self._escaped = False
                self._command("tree", "")
            else:
                self._escaped = True
                if self._escape_timer is not None:
                    self._escape_timer.stop()
                self._escape_timer = self.set_timer(_ESCAPE_AGAIN_S, self._escape_expired)

    def _escape_expired(self) -> None:
        self._escaped = False
        self._escape_timer = None

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
        """Ctrl+C: clear the editor; with nothing to clear, abort the run; with no run, say how to quit."""
        if self.editor.text:
            self.editor.set_prompt("")
        elif self.feed.running and self.connection is not None:
            self._abort()
        else:
            await self.app.run_action("help_quit")

    def action_quit_if_empty(self) -> None:
        if not self.editor.text:
            self.app.exit()
