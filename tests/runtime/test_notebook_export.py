"""A session's messages as a notebook: the pure converter every surface's `export ipynb` goes through."""

from __future__ import annotations

import nbformat

from prime_jupyter.ai.types import AssistantMessage, Message, TextContent, ToolCall, ToolResultMessage, UserMessage
from prime_jupyter.runtime.notebook_export import session_notebook

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


def _answer(*content: TextContent | ToolCall, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(content=list(content), api="a", provider="p", model="m", stop_reason=stop)  # type: ignore[arg-type]


def _messages() -> list[Message]:
    stream = {"output_type": "stream", "name": "stdout", "text": ["a", "b"]}
    image = {"output_type": "display_data", "data": {"image/png": PNG}, "metadata": {}, "transient": {"x": 1}}
    error = {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero", "traceback": ["tb"]}
    drawn = {"outputs": [stream, image], "executionCount": 3}
    return [
        UserMessage(content="plot it"),
        _answer(TextContent(text="Plotting."), ToolCall(id="c1", name="ipython", arguments={"code": "plot()"})),
        ToolResultMessage(tool_call_id="c1", tool_name="ipython", details=drawn),
        _answer(ToolCall(id="c2", name="ipython", arguments={"code": "1/0"}), ToolCall(id="c3", name="read")),
        ToolResultMessage(tool_call_id="c2", tool_name="ipython", details={"outputs": [error]}, is_error=True),
        ToolResultMessage(tool_call_id="c3", tool_name="read", content=[TextContent(text="file text")]),
        _answer(TextContent(text="half an answer"), stop="aborted"),
    ]


def test_a_session_becomes_a_valid_notebook_with_provenance_on_every_cell() -> None:
    messages = _messages()
    notebook = nbformat.from_dict(session_notebook(messages, [f"e{i}" for i in range(len(messages))], session_id="s1"))
    nbformat.validate(notebook)
    kinds = [cell.cell_type for cell in notebook.cells]
    assert kinds == ["markdown", "markdown", "code", "code", "markdown", "markdown", "markdown"]
    prompt, text, plot, divide, read, half, aborted = notebook.cells
    assert prompt.source == "**Prompt**\n\nplot it" and text.source == "Plotting." and plot.source == "plot()"
    assert plot.execution_count == 3 and plot.outputs[0].text == "ab" and "transient" not in plot.outputs[1]
    assert divide.outputs[0].ename == "ZeroDivisionError" and divide.execution_count is None
    assert "`read`" in read.source and "file text" in read.source
    assert half.source == "half an answer" and aborted.source == "*aborted*"
    assert plot.metadata["prime"] == {"session": "s1", "entry": "e1", "role": "assistant", "model": "p/m",
                                      "tool": "ipython", "toolCallId": "c1"}  # fmt: skip
    assert prompt.metadata["prime"] == {"session": "s1", "entry": "e0", "role": "user"}
    assert notebook.metadata["prime"] == {"session": "s1"}
