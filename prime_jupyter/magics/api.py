"""`Session`: the agent from plain Python, in a script or a notebook (its kernel as the agent's hands).

    from prime_jupyter import Session

    session = Session(model="anthropic/claude-sonnet-5-5")
    answer = session.prompt("Load data.csv into df and describe it")
    print(answer.text)
    for event in session.stream("Now plot it"):
        ...
    await session.aprompt("...")          # in async code (or a notebook cell)

The agent runs on a loop of its own in a worker thread (`LoopThread`); the calling thread waits and, while
it waits, runs what the agent hands it through a `ShellChannel`: the `ipython` tool's code when the kernel
is this notebook's (`kernel="notebook"`, the default inside IPython), and event callbacks. So Ctrl-C or
the stop button aborts the run (the KeyboardInterrupt is raised once the run wound down), and the tool's
time limit holds. `kernel="separate"` gives the agent a kernel of its own.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import functools
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from prime_jupyter.ai.models import THINKING_LEVELS, ThinkingLevel
from prime_jupyter.ai.types import AssistantMessage, Message
from prime_jupyter.connection.base import AgentConnection
from prime_jupyter.connection.types import ConnectionEvent, SessionEventReceived
from prime_jupyter.errors import ConfigError
from prime_jupyter.kernel.inprocess import InProcessLauncher, ShellChannel
from prime_jupyter.kernel.ops import KernelLauncher
from prime_jupyter.magics._waiting import AsyncPump, nothing, running_shell, session_id_of
from prime_jupyter.magics.answer import Answer, answer_of
from prime_jupyter.magics.connect import connect
from prime_jupyter.magics.loop_thread import LoopThread
from prime_jupyter.protocol.common import ExportFormat
from prime_jupyter.protocol.events import AgentEnd, MessageEnd, QuestionAsked, SessionEvent
from prime_jupyter.protocol.questions import Question, QuestionAnswer
from prime_jupyter.runtime.permissions import PermissionMode, parse_permission_mode
from prime_jupyter.runtime.tool_set import AnyTool, function_tool

if TYPE_CHECKING:
    from prime_jupyter.connection.in_process import LocalTarget

__all__ = ["Answer", "KernelChoice", "Session"]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., object])
KernelChoice = Literal["auto", "notebook", "separate"]
EventListener = Callable[[SessionEvent], None]
QuestionHandler = Callable[[Question], QuestionAnswer | None]


class Session:
    """One agent session (a transcript like any other), opened on first use or by `open()`.

    `kernel`: "notebook" runs the `ipython` tool in this IPython shell's namespace (it sees your
    variables and leaves its own); "separate" starts a kernel of its own; "auto" picks "notebook" inside
    IPython. `resume`: a session id (or prefix) to continue. `on_question`: answers the agent's
    questions (called on the waiting thread; `magics.questions.ask_on_stdin` asks like `input()`); without
    it the agent has no `ask` tool. `functions`: plain Python functions offered as tools (see `tool`).
    `permission_mode`: `ask`, `accept-edits`, `plan` or `auto` (None: the transcript's, settings.json's,
    else `ask` with `on_question` and `auto` without: approvals are questions, answered like the others).
    """

    def __init__(
        self,
        *,
        model: str | None = None,
        thinking: ThinkingLevel | None = None,
        tools: tuple[str, ...] | list[str] | None = None,
        cwd: str | Path | None = None,
        kernel: KernelChoice = "auto",
        resume: str | None = None,
        context_files: bool = True,
        shell: object | None = None,
        on_question: QuestionHandler | None = None,
        functions: Sequence[Callable[..., object]] = (),
        permission_mode: PermissionMode | None = None,
    ) -> None:
        self._model, self._thinking = model, thinking
        self._tools = tuple(tools) if tools is not None else None
        self._cwd = Path(cwd) if cwd is not None else Path.cwd()
        self._resume, self._context_files = resume, context_files
        self._shell = shell if shell is not None else running_shell()
        self._kernel = self._resolve(kernel)
        self._loop = LoopThread()
        self.channel = ShellChannel()
        self._connection: AgentConnection | None = None
        self._on_question = on_question
        self._subscribers: list[EventListener] = []
        self._functions: list[Callable[..., object]] = list(functions)
        self._permission_mode = permission_mode

    # --- state ----------------------------------------------------------------------------------

    @property
    def kernel(self) -> Literal["notebook", "separate"]:
        """Where the `ipython` tool runs."""
        return self._kernel

    @property
    def tools(self) -> tuple[str, ...] | None:
        """The tools asked for (None: the settings' default)."""
        return self._tools

    @property
    def session_id(self) -> str | None:
        """The transcript's id once the session is open."""
        if self._connection is None:
            return None
        return self.call(session_id_of)

    def open(self) -> Session:
        """Open (or resume) the session now rather than at the first prompt."""
        self.call(lambda _connection: nothing())
        return self

    def set_kernel(self, kernel: KernelChoice) -> None:
        """Move the `ipython` tool to another kernel; an open session is reopened on its transcript."""
        choice = self._resolve(kernel)
        if choice == self._kernel:
            return
        self._kernel = choice
        if self._connection is not None:
            self._wait(self._reopen())

    def tool(self, fn: F) -> F:
        """Decorator: offer `fn` to the agent as a tool (type hints: its JSON schema; docstring: its
        description). It runs on the thread waiting for the prompt (in a notebook, the shell's)."""
        self._functions.append(fn)
        if self._connection is not None:
            self._wait(self._reopen())
        return fn

    def set_tools(self, tools: tuple[str, ...] | list[str]) -> None:
        """Give the agent these tools (`ipython`, `read`, `write`, `edit`, `bash`); reopens an open session."""
        self._tools = tuple(tools)
        if self._connection is not None:
            self._wait(self._reopen())

    def set_model(self, ref: str) -> None:
        """Switch to `provider/id[:thinking]` (from the next prompt on, recorded in the transcript)."""
        if self._connection is None:
            self._model = ref
            return
        from prime_jupyter.ai.registry import parse_model_ref

        parsed = parse_model_ref(ref)

        async def switch(connection: AgentConnection) -> None:
            current = (await connection.get_state()).model
            provider = parsed.provider or (current.provider if current is not None else "")
            await connection.set_model(provider, parsed.model_id)
            if parsed.thinking is not None:
                await connection.set_thinking_level(parsed.thinking)

        self.call(switch)

    def set_permission_mode(self, mode: str) -> None:
        """Switch the permission mode (`ask`, `accept-edits`, `plan`, `auto`), recorded in the transcript."""
        self._permission_mode = parse_permission_mode(mode, "mode")
        if self._connection is not None:
            self.call(lambda connection: connection.set_permission_mode(mode))

    @property
    def permission_mode(self) -> str | None:
        """The session's mode once it is open (before: the one asked for, if any)."""
        if self._connection is None:
            return self._permission_mode
        return self.call(lambda connection: connection.get_state()).permission_mode

    def new(self) -> None:
        """Start a new session (the next prompt begins an empty conversation)."""
        self._resume = None
        if self._connection is not None:
            self.call(lambda connection: connection.new_session())

    def resume(self, session: str) -> None:
        """Continue a saved session (an id, an id prefix or a path)."""
        if self._connection is None:
            self._resume = session
            self.open()
        else:
            self.call(lambda connection: connection.switch_session(session))

    # --- prompting ------------------------------------------------------------------------------

    def prompt(self, text: str, on_event: EventListener | None = None) -> Answer:
        """Run a turn for `text` and return its answer; `on_event` sees each event, on this thread."""
        post = self.channel.post
        listener = None if on_event is None else (lambda event: post(lambda: on_event(event)))
        return self._wait(self.run(text, listener))

    async def aprompt(self, text: str, on_event: EventListener | None = None) -> Answer:
        """`prompt` for async code (and top-level `await` in a notebook cell)."""
        post = self.channel.post
        listener = None if on_event is None else (lambda event: post(lambda: on_event(event)))
        return await self._await(self.run(text, listener))

    def stream(self, text: str) -> Iterator[SessionEvent]:
        """Run a turn for `text`, yielding its session events as they come."""
        events: deque[SessionEvent] = deque()
        with self.channel.open(self._abort_soon):
            future = self._loop.submit(self.run(text, lambda event: self.channel.post(lambda: events.append(event))))
            try:
                while True:
                    while events:
                        yield events.popleft()
                    if future.done() and self.channel.idle:
                        break
                    self.channel.run_until(future, stop=lambda: bool(events))
            finally:
                if not future.done():
                    self._abort_soon()
        if self.channel.user_interrupted:
            raise KeyboardInterrupt
        future.result()

    async def astream(self, text: str) -> AsyncIterator[SessionEvent]:
        """`stream` for async code."""
        events: deque[SessionEvent] = deque()
        pump = AsyncPump(self.channel)
        with self.channel.open(self._abort_soon, wake=pump.wake):
            future = self._loop.submit(self.run(text, lambda event: self.channel.post(lambda: events.append(event))))
            try:
                while True:
                    while events:
                        yield events.popleft()
                    if future.done() and self.channel.idle:
                        break
                    await pump.step(future, stop=lambda: bool(events))
            finally:
                if not future.done():
                    self._abort_soon()
        future.result()

    def steer(self, text: str) -> None:
        """Tell the running agent something now (it reads it after the current tool call); from any thread."""
        self._loop.submit(self._on_connection(lambda connection: connection.steer(text))).result(timeout=30)

    def follow_up(self, text: str) -> None:
        """Queue a prompt for when the running agent is done (the same run continues with it)."""
        self._loop.submit(self._on_connection(lambda connection: connection.follow_up(text))).result(timeout=30)

    def fork(self, entry_id: str, position: Literal["before", "at"] = "before") -> str:
        """Continue in a new session holding this one's conversation up to `entry_id` ("at": including it,
        "before": up to the message before it); returns the new session's id."""
        self.call(lambda connection: connection.fork(entry_id, position))
        return self.call(session_id_of)

    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """Call `listener` with every event of every prompt, on the thread waiting for it; returns the
        function that unsubscribes."""
        self._subscribers.append(listener)
        return lambda: self._subscribers.remove(listener) if listener in self._subscribers else None

    def abort(self) -> None:
        """Abort the running prompt (from another thread; in a cell, interrupt the kernel instead)."""
        self._abort_soon().result(timeout=30)

    def export(self, fmt: ExportFormat = "html", path: str | None = None) -> Path:
        """Write the session as HTML, JSONL or a notebook (default: `prime-<id>.<ext>` in the session's
        working folder); where it went."""
        result = self.call(lambda connection: connection.export(fmt, path))
        return Path(result.path)

    def close(self) -> None:
        """Dispose of the session (its separate kernel is shut down) and stop the agent's thread."""
        connection, self._connection = self._connection, None
        if connection is not None:
            self._wait(connection.dispose())
        self._loop.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- for the magics -------------------------------------------------------------------------

    def call(self, work: Callable[[AgentConnection], Awaitable[T]]) -> T:
        """Run `work(connection)` on the agent's loop (opening the session first) and wait for it."""

        async def run() -> T:
            return await work(await self._ensure())

        return self._wait(run())

    async def run(self, text: str, listener: EventListener | None) -> Answer:
        """On the agent's loop: prompt and wait for the run; `listener` is called there for each event."""
        connection = await self._ensure()
        ended: list[Message] = []
        entries: list[str] = []

        def on_event(received: ConnectionEvent) -> None:
            if not isinstance(received, SessionEventReceived):
                return
            event = received.event
            if listener is not None:
                listener(event)
            for subscriber in tuple(self._subscribers):
                self.channel.post(functools.partial(subscriber, event))
            if isinstance(event, AgentEnd):
                ended[:] = event.messages
            elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage) and event.entry_id:
                entries.append(event.entry_id)
            elif isinstance(event, QuestionAsked) and self._on_question is not None:
                question = event.question
                self.channel.post(lambda: self._answer_question(connection, question))

        unsubscribe = connection.subscribe(on_event)
        try:
            await connection.prompt(text)
            await connection.wait_for_idle()
        finally:
            unsubscribe()
        answer = answer_of(ended)
        session_id = (await connection.get_state()).session_id
        return dataclasses.replace(answer, session_id=session_id, entry_id=entries[-1] if entries else None)

    def run_pumped(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the agent's loop while this thread pumps the channel."""
        return self._wait(coro)

    def _answer_question(self, connection: AgentConnection, question: Question) -> None:
        """On the waiting thread: ask, then hand the answer back to the agent's loop."""
        assert self._on_question is not None
        answer = self._on_question(question)
        self._loop.submit(connection.answer_question(question.id, answer))

    # --- internals ------------------------------------------------------------------------------

    def _resolve(self, kernel: KernelChoice) -> Literal["notebook", "separate"]:
        if kernel == "separate" or (kernel == "auto" and self._shell is None):
            return "separate"
        if self._shell is None:
            raise ConfigError("kernel='notebook' needs a running IPython shell; use kernel='separate' here")
        return "notebook"

    def _target(self, mode: Literal["new", "resume"], resume: str | None) -> LocalTarget:
        from prime_jupyter.connection.in_process import LocalTarget

        return LocalTarget(
            cwd=self._cwd, mode=mode, resume=resume, model=self._model, thinking=self._thinking,
            tools=self._tools, context_files=self._context_files, interactive=self._on_question is not None,
            permission_mode=self._permission_mode,
        )  # fmt: skip

    def _custom_tools(self) -> list[AnyTool]:
        async def on_waiting_thread(call: Callable[[], object]) -> object:
            return await asyncio.wrap_future(self.channel.call(call))

        return [function_tool(fn, run=on_waiting_thread) for fn in self._functions]

    def _launcher(self) -> KernelLauncher | None:
        if self._kernel == "notebook":
            return InProcessLauncher(self._shell, self.channel, store_history=False)
        return None

    async def _ensure(self) -> AgentConnection:
        if self._connection is None:
            mode: Literal["new", "resume"] = "resume" if self._resume else "new"
            self._connection = await connect(self._target(mode, self._resume), self._launcher(), self._custom_tools())
        return self._connection

    async def _reopen(self) -> None:
        old = self._connection
        if old is None:
            return
        state = await old.get_state()
        self._model = f"{state.model.provider}/{state.model.id}" if state.model else self._model
        self._thinking = next((level for level in THINKING_LEVELS if level == state.thinking_level), self._thinking)
        target = self._target("resume", state.session_file or state.session_id)
        self._connection = await connect(target, self._launcher(), self._custom_tools())
        await old.dispose()

    async def _on_connection(self, work: Callable[[AgentConnection], Awaitable[T]]) -> T:
        return await work(await self._ensure())

    def _abort_soon(self) -> concurrent.futures.Future[None]:
        async def abort() -> None:
            if self._connection is not None:
                await self._connection.abort()

        return self._loop.submit(abort())

    def _wait(self, coro: Coroutine[Any, Any, T]) -> T:
        if self.channel.on_pump_thread:
            coro.close()
            raise RuntimeError("a Session call from code the agent itself runs would wait for itself")
        with self.channel.open(self._abort_soon):  # before the work starts: it may hand code over at once
            future = self._loop.submit(coro)
            self.channel.run_until(future)
        if self.channel.user_interrupted:
            raise KeyboardInterrupt
        return future.result()

    async def _await(self, coro: Coroutine[Any, Any, T]) -> T:
        pump = AsyncPump(self.channel)
        with self.channel.open(self._abort_soon, wake=pump.wake):
            future = self._loop.submit(coro)
            try:
                await pump.step(future, stop=None)
            except asyncio.CancelledError:
                self._abort_soon()
                raise
        if self.channel.user_interrupted:
            raise KeyboardInterrupt
        return future.result()
