"""`%load_ext prime_jupyter` and `%%prime` in a real kernel, against the scripted LLM server."""

from __future__ import annotations

import json

from notebook_kit import Kernel

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


def request_text(llm: ScriptedLLMServer, index: int = -1) -> str:
    body = llm.requests[index].body
    assert isinstance(body, dict)
    return json.dumps(body["messages"])


def test_loading_the_extension_imports_no_provider_sdk(kernel: Kernel) -> None:
    probe = kernel.run("import sys\nprint(sorted(m for m in ('anthropic', 'openai') if m in sys.modules))")
    assert probe.text().strip() == "[]"


def test_prime_without_arguments_prints_the_usage(kernel: Kernel) -> None:
    assert "%prime ask" in kernel.run("%prime").text()


def test_the_agent_works_in_the_notebooks_namespace(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    kernel.run("data = {'a': [3, 1, 2]}")
    llm.enqueue(
        ScriptedTurn(
            blocks=[
                Text(text="Summing."),
                ToolCall(name="ipython", arguments={"code": "total = sum(data['a'])\nprint('total', total)"}),
            ]
        ),
        ScriptedTurn(blocks=[Text(text="The **total** is 6.", chunks=3)]),
    )
    cell = kernel.run("%%prime\nWhat is the sum of data['a']?")
    assert cell.status == "ok", cell.text()
    text = cell.text()
    assert "total 6" in text and "The **total** is 6." in text
    assert "What is the sum of data['a']?" in request_text(llm, -2)
    blocks = [m["content"]["data"] for m in cell.of_type("display_data", "update_display_data")]
    assert any("<details>" in data.get("text/html", "") and "ipython" in data["text/html"] for data in blocks)
    assert kernel.run("print(total * 2)").text().strip() == "12"


def test_consecutive_cells_continue_one_session(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="first answer")]), ScriptedTurn(blocks=[Text(text="second")]))
    kernel.run("%%prime\nremember the word heron")
    kernel.run("%%prime\nwhich word?")
    assert "remember the word heron" in request_text(llm) and "first answer" in request_text(llm)
