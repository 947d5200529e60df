"""The `%prime` / `%%prime` magics: one agent session per notebook, its answers streamed into cells.

    %%prime [--model provider/id[:thinking]] [--kernel notebook|separate] [--no-interpolate] [--insert]
            [--no-raise]
    <prompt, with {variables}, {In[n]}, {Out[n]} and {Err} interpolated>

    %prime ask "one-line prompt"        %prime fix          (explain and fix the last exception)
    %prime new | sessions | resume ID | fork [ENTRY] | model REF | tools NAME,... | status
    %prime export [html|jsonl|ipynb] [PATH]    %prime mode [ask|accept-edits|plan|auto]
    %prime rewind [N]                   (undo the agent's file changes of the last N prompts)

`--insert` puts the answer's code into a new cell below (its first line says where it came from)
instead of running it. A prompt whose run ends in an error (or cannot start) fails its cell with
`RunFailedError` after showing what happened, so "Run all" and nbclient stop there; `--no-raise` only
shows it. Consecutive `%%prime` cells continue one session, an ordinary transcript the
panel and `jupyter prime -r` open. Nothing heavy is imported before the first prompt.
"""

from __future__ import annotations

import argparse
import shlex
from typing import TYPE_CHECKING, Any

from prime_jupyter.errors import PrimeError, RunFailedError

if TYPE_CHECKING:
    from prime_jupyter.connection.base import AgentConnection
    from prime_jupyter.magics.api import Answer, Session
    from prime_jupyter.protocol.common import ExportFormat, RewindResult
    from prime_jupyter.protocol.snapshot import ConnectionState, SessionsResult

__all__ = ["NotebookMagics", "load", "unload"]

_USAGE = "\n\n".join(__doc__.split("\n\n")[1:3]) if __doc__ else ""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse would exit the kernel's process
        raise PrimeError(f"%prime: {message}\n{_USAGE}")


def _prompt_parser() -> _Parser:
    parser = _Parser(prog="%%prime", add_help=False)
    parser.add_argument("--model")
    parser.add_argument("--kernel", choices=("notebook", "separate"))
    parser.add_argument("--no-interpolate", action="store_true")
    parser.add_argument("--insert", action="store_true")
    parser.add_argument("--no-raise", action="store_true")
    parser.add_argument("words", nargs="*")
    return parser


class NotebookMagics:
    """The state behind the magics of one shell: its session, opened at the first prompt."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self._session: Session | None = None

    @property
    def session(self) -> Session:
        if self._session is None:
            from prime_jupyter.magics.api import Session
            from prime_jupyter.magics.questions import ask_on_stdin

            self._session = Session(shell=self.shell, kernel="notebook", on_question=ask_on_stdin)
        return self._session

    def prime(self, line: str, cell: str | None = None) -> None:
        """Entry point of both forms (registered as a line-and-cell magic)."""
        try:
            self._dispatch(line, cell)
        except PrimeError as error:
            if not _is_prompt(line, cell) or _no_raise(line):
                if not isinstance(error, RunFailedError):  # that one the cell shows already
                    print(str(error))
            elif isinstance(error, RunFailedError):
                raise
            else:
                raise RunFailedError(str(error)) from None

    def _dispatch(self, line: str, cell: str | None) -> None:
        if cell is not None:
            self._ask(line, cell)
            return
        words = shlex.split(line)
        command, rest = (words[0], words[1:]) if words else ("help", [])
        if command == "ask":
            self._ask(shlex.join(rest), None)
        elif command == "fix":
            self._fix()
        elif command in _COMMANDS:
            _COMMANDS[command](self, rest)
        else:
            print(_USAGE)

    def _ask(self, line: str, cell: str | None) -> None:
        options = _prompt_parser().parse_args(shlex.split(line))
        text = cell if cell is not None else " ".join(options.words)
        if not text.strip():
            raise PrimeError(f"%prime: nothing to ask\n{_USAGE}")
        if not options.no_interpolate:
            from prime_jupyter.magics.prompt_text import interpolate

            text = interpolate(text, self.shell.user_ns)
        if options.insert:
            self._insert(text, model=options.model, kernel=options.kernel)
        else:
            self._run(text, model=options.model, kernel=options.kernel)

    def _insert(self, text: str, *, model: str | None, kernel: str | None) -> None:
        from prime_jupyter.magics.prompt_text import INSERT_NOTE, code_block

        answer = self._run(text + INSERT_NOTE, model=model, kernel=kernel)
        code = code_block(answer.text)
        if code is None:
            print("The answer has no code block to insert.")
            return
        origin = f"# prime: session {answer.session_id}, entry {answer.entry_id}, model {answer.model}"
        provenance = {"session": answer.session_id, "entry": answer.entry_id, "model": answer.model}
        _set_next_input(self.shell, f"{origin}\n{code}", {"prime": provenance})

    def _fix(self) -> None:
        from prime_jupyter.magics.prompt_text import fix_prompt, last_error

        error = last_error()
        if error is None:
            raise PrimeError("%prime fix: no exception to fix yet")
        history = self.shell.user_ns.get("In")
        cell = history[-2] if isinstance(history, list) and len(history) > 1 else None
        self._run(fix_prompt(error, cell if isinstance(cell, str) and cell.strip() else None))

    def _run(self, text: str, *, model: str | None = None, kernel: str | None = None) -> Answer:
        from prime_jupyter.magics.cell_run import run_in_cell

        session = self.session
        if kernel == "separate":
            session.set_kernel("separate")
        elif kernel == "notebook":
            session.set_kernel("notebook")
        if model:
            session.set_model(model)
        answer = run_in_cell(session, text)
        if answer.stop_reason == "aborted" and not answer.error:
            raise RunFailedError("the run was aborted")
        if answer.stop_reason in ("error", "aborted"):
            raise RunFailedError(f"the run ended in an error: {answer.error}")
        return answer

    # --- commands ---------------------------------------------------------------------------------

    def new(self, _args: list[str]) -> None:
        self.session.new()
        print("A new session starts with the next prompt.")

    def resume(self, args: list[str]) -> None:
        if len(args) != 1:
            raise PrimeError("%prime resume: give a session id (or prefix); `%prime sessions` lists them")
        self.session.resume(args[0])
        print(f"Resumed session {self.session.session_id}.")

    def model(self, args: list[str]) -> None:
        if len(args) != 1:
            raise PrimeError("%prime model: give provider/id[:thinking]")
        self.session.set_model(args[0])
        print(f"Model: {args[0]}")

    def fork(self, args: list[str]) -> None:
        if len(args) > 1:
            raise PrimeError("%prime fork: give at most an entry id (default: the latest)")
        entry = args[0] if args else self.session.call(lambda connection: connection.get_state()).leaf_id
        if entry is None:
            raise PrimeError("%prime fork: the session is empty")
        print(f"Forked into session {self.session.fork(entry, 'at')}.")

    def rewind(self, args: list[str]) -> None:
        """`%prime rewind [N]`: undo the agent's file and notebook changes of the last N prompts (default 1)
        and go on from before them."""
        if len(args) > 1 or (args and not (args[0].isdigit() and int(args[0]) >= 1)):
            raise PrimeError("%prime rewind: give how many prompts back (default 1: to before the last prompt)")
        back = int(args[0]) if args else 1
        result: RewindResult = self.session.call(lambda connection: _rewind_back(connection, back))
        print(result.summary)

    def tools(self, args: list[str]) -> None:
        if args:
            self.session.set_tools([name for arg in args for name in arg.split(",") if name])
        shown = ", ".join(self.session.tools) if self.session.tools is not None else "the default (settings)"
        print(f"Tools: {shown}")

    def mode(self, args: list[str]) -> None:
        if len(args) > 1:
            raise PrimeError("%prime mode: give at most one of ask, accept-edits, plan, auto")
        if args:
            self.session.set_permission_mode(args[0])
        print(f"Permission mode: {self.session.permission_mode or 'the default (settings)'}")

    def sessions(self, _args: list[str]) -> None:
        result: SessionsResult = self.session.call(lambda connection: connection.list_sessions("current"))
        _markdown(_sessions_table(result, self.session.session_id))

    def status(self, _args: list[str]) -> None:
        state: ConnectionState = self.session.call(_state_with_usage)
        _markdown(_status_text(state, self.session.kernel))

    def export(self, args: list[str]) -> None:
        fmt = args[0] if args else "html"
        if fmt not in _FORMATS:
            raise PrimeError("%prime export: the format is html, jsonl or ipynb")
        path = self.session.export(_FORMATS[fmt], args[1] if len(args) > 1 else None)
        print(f"Exported to {path}")

    def close(self) -> None:
        if self._session is not None:
            self._session.close()
            self._session = None


async def _rewind_back(connection: AgentConnection, back: int) -> RewindResult:
    """Rewind to before the `back`-th last prompt of the current branch."""
    view = await connection.get_session_view()
    by_id = {node.id: node for node in view.nodes}
    node, path = by_id.get(view.leaf_id or ""), []
    while node is not None:
        path.append(node)
        node = by_id.get(node.parent_id) if node.parent_id else None
    prompts = [n for n in reversed(path) if n.type == "message" and n.role == "user"]
    if len(prompts) < back:
        raise PrimeError(f"%prime rewind: this branch has {len(prompts)} prompt(s), fewer than {back}")
    return await connection.rewind(prompts[-back].id)


def _is_prompt(line: str, cell: str | None) -> bool:
    """Whether the magic asked the model (`%%prime`, `%prime ask`, `%prime fix`): those fail their cell."""
    return cell is not None or line.split(maxsplit=1)[:1] in (["ask"], ["fix"])


def _no_raise(line: str) -> bool:
    try:
        return "--no-raise" in shlex.split(line)
    except ValueError:
        return False


_FORMATS: dict[str, ExportFormat] = {"html": "html", "jsonl": "jsonl", "ipynb": "ipynb"}
_COMMANDS = {
    "new": NotebookMagics.new,
    "resume": NotebookMagics.resume,
    "model": NotebookMagics.model,
    "mode": NotebookMagics.mode,
    "sessions": NotebookMagics.sessions,
    "fork": NotebookMagics.fork,
    "rewind": NotebookMagics.rewind,
    "tools": NotebookMagics.tools,
    "status": NotebookMagics.status,
    "export": NotebookMagics.export,
}


def _set_next_input(shell: Any, text: str, metadata: dict[str, object]) -> None:
    """A new cell below with `text` (`set_next_input`), whose payload also carries the cell's `metadata`.

    Front ends insert the text alone (`set_next_input` has no metadata); the panel's labextension
    (`provenance.ts`) puts the metadata on the cell JupyterLab inserted. A shell whose `set_next_input`
    writes no payload (a terminal IPython) just gets the text."""
    shell.set_next_input(text, replace=False)
    payloads = getattr(shell, "payload_manager", None)
    for payload in payloads.read_payload() if payloads is not None else []:
        if isinstance(payload, dict) and payload.get("source") == "set_next_input" and payload.get("text") == text:
            payload["metadata"] = metadata


async def _state_with_usage(connection: AgentConnection) -> ConnectionState:
    """The state, with what the session cost so far when the connection does not say."""
    state = await connection.get_state()
    if state.usage is not None:
        return state
    from prime_jupyter.protocol.hydration import total_usage

    return state.model_copy(update={"usage": total_usage((await connection.get_messages()).messages)})


def _sessions_table(result: SessionsResult, current: str | None) -> str:
    rows = ["| | id | title | messages |", "|---|---|---|---|"]
    for summary in result.sessions:
        mark = "▶" if summary.session_id == current else ""
        title = summary.title.replace("|", "\\|").replace("\n", " ")[:60]
        rows.append(f"| {mark} | `{summary.session_id}` | {title} | {summary.message_count} |")
    return "\n".join(rows) if result.sessions else "No sessions here yet."


def _status_text(state: ConnectionState, kernel: str) -> str:
    model = f"{state.model.provider}/{state.model.id}" if state.model else "?"
    lines = [
        f"- **session** `{state.session_id}` ({state.message_count} messages)",
        f"- **model** `{model}`, thinking {state.thinking_level}",
        f"- **kernel** {'this notebook' if kernel == 'notebook' else 'a separate kernel'}",
    ]
    if state.usage is not None:
        usage = state.usage
        lines.append(f"- **tokens** {usage.input} in, {usage.output} out; **cost** ${usage.cost.total:.4f}")
    if state.context_tokens is not None and state.context_window:
        share = 100 * state.context_tokens / state.context_window
        lines.append(f"- **context** {state.context_tokens} of {state.context_window} tokens ({share:.0f}%)")
    return "\n".join(lines)


def _markdown(text: str) -> None:
    from prime_jupyter.magics.cell_run import show

    show({"text/markdown": text, "text/plain": text})


_registered: dict[int, NotebookMagics] = {}


def load(shell: Any) -> None:
    """Register `%prime` / `%%prime` on `shell` (what `%load_ext prime_jupyter` does)."""
    if id(shell) in _registered:
        return
    magics = _registered[id(shell)] = NotebookMagics(shell)
    shell.register_magic_function(magics.prime, magic_kind="line_cell", magic_name="prime")


def unload(shell: Any) -> None:
    """Close the shell's session (`%unload_ext prime_jupyter`)."""
    magics = _registered.pop(id(shell), None)
    if magics is not None:
        magics.close()
        shell.magics_manager.magics["line"].pop("prime", None)
        shell.magics_manager.magics["cell"].pop("prime", None)
