"""`%load_ext prime_jupyter` and `%%prime` in a real kernel, against the scripted LLM server."""

from __future__ import annotations

import json
import re

import pytest
from notebook_kit import Kernel

from prime_jupyter.testing import HttpError, ScriptedLLMServer, ScriptedTurn, Text, Thinking, ToolCall

pytestmark = pytest.mark.e2e  # the product runs in a kernel process the test drives


def request_text(llm: ScriptedLLMServer, index: int = -1) -> str:
    body = llm.requests[index].body
    assert isinstance(body, dict)
    return json.dumps(body["messages"])


def test_loading_the_extension_imports_no_provider_sdk(kernel: Kernel) -> None:
    probe = kernel.run("import sys\nprint(sorted(m for m in ('anthropic', 'openai') if m in sys.modules))")
    assert probe.text().strip() == "[]"


def test_prime_without_arguments_prints_the_usage(kernel: Kernel) -> None:
    assert "%prime ask" in kernel.run("%prime").text()


def test_the_agent_reads_the_notebooks_dataframe_and_leaves_a_variable(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    made = kernel.run(
        "import pandas as pd\n"
        "orders = pd.DataFrame({'region': ['north', 'south', 'north', 'east'], 'amount': [120, 80, 60, 95]})"
    )
    assert made.status == "ok", made.text()
    code = "by_region = orders.groupby('region')['amount'].sum().sort_values(ascending=False)\nby_region.to_frame()"
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text="Grouping."), ToolCall(name="ipython", arguments={"code": code})]),
        ScriptedTurn(blocks=[Text(text="**north** sold most: 180.", chunks=3)]),
    )
    cell = kernel.run("%%prime\nWhich region of `orders` sold most?")
    assert cell.status == "ok", cell.text()
    assert "**north** sold most: 180." in cell.text()
    assert "Which region of `orders` sold most?" in request_text(llm, -2)
    [table] = [m["content"]["data"] for m in cell.of_type("execute_result")]  # the frame, a real output
    assert "<table" in table["text/html"] and "<th>north</th>" in table["text/html"]
    assert re.search(r"north +180\\neast +95\\nsouth +80", request_text(llm, -1))  # the agent saw the frame
    blocks = [m["content"]["data"] for m in cell.of_type("display_data", "update_display_data")]
    assert any("<details>" in data.get("text/html", "") and "ipython" in data["text/html"] for data in blocks)
    after = kernel.run("print(type(by_region).__name__, by_region.idxmax(), by_region['north'] * 2)")
    assert after.text().strip() == "Series north 360"


def test_consecutive_cells_continue_one_session(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="first answer")]), ScriptedTurn(blocks=[Text(text="second")]))
    kernel.run("%%prime\nremember the word heron")
    kernel.run("%%prime\nwhich word?")
    assert "remember the word heron" in request_text(llm) and "first answer" in request_text(llm)


def test_a_long_answer_updates_one_display_a_bounded_number_of_times(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    answer = "".join(f"w{i % 10} " for i in range(20_000))
    llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=20_000)]))
    cell = kernel.run("%%prime\nwrite a lot")
    displays, updates = cell.of_type("display_data"), cell.of_type("update_display_data")
    ids = {m["content"]["transient"]["display_id"] for m in displays + updates}
    assert len(displays) == 1 and len(ids) == 1
    assert len(updates) <= 500  # at most ~10 a second: 20,000 deltas would take 50 s to reach this
    assert (updates or displays)[-1]["content"]["data"]["text/markdown"] == answer


def test_variables_are_interpolated_unless_turned_off(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    kernel.run("name = 'Ada'\nrows = [1, 2]")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]), ScriptedTurn(blocks=[Text(text="ok")]))
    kernel.run("%%prime\nGreet {name}: {rows} and {unknown_name}")
    assert "Greet Ada: [1, 2] and {unknown_name}" in request_text(llm)
    kernel.run("%%prime --no-interpolate\nGreet {name}")
    assert "Greet {name}" in request_text(llm)


def test_ask_is_the_one_line_form(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="a short answer")]))
    cell = kernel.run('%prime ask "how long is {name}?"')
    assert "a short answer" in cell.text() and "how long is Ada?" in request_text(llm)


def test_fix_sends_the_last_traceback_and_the_agent_fixes_it(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    failed = kernel.run("values = [4, 0]\nratio = values[0] / values[1]")
    assert failed.status == "error"
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "ratio = values[0] / (values[1] or 1)"})]),
        ScriptedTurn(blocks=[Text(text="Division by zero: guarded it.")]),
    )
    cell = kernel.run("%prime fix")
    prompt = request_text(llm, -2)
    assert "ZeroDivisionError" in prompt and "ratio = values[0] / values[1]" in prompt
    assert "guarded it" in cell.text() and kernel.run("print(ratio)").text().strip() == "4.0"


def test_fix_without_an_error_says_so(kernel: Kernel) -> None:
    kernel.run("import sys\nfor name in ('last_exc', 'last_value'):\n    sys.__dict__.pop(name, None)")
    assert "no exception to fix" in kernel.run("%prime fix").text()


def test_a_question_is_answered_through_stdin(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    ask = {"question": "Overwrite results.csv?", "kind": "confirm"}
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ask", arguments=ask)]),
        ScriptedTurn(blocks=[Text(text="Overwriting it.")]),
    )
    msg_id = kernel.submit("%%prime\nsave the results", allow_stdin=True)
    request = kernel.client.get_stdin_msg(timeout=60)
    assert request["content"]["prompt"] == "[y/n]: "  # no time limit unless one is configured (issue 31 item 9)
    kernel.client.input("y")
    cell = kernel.collect(msg_id)
    assert "Overwrite results.csv?" in cell.text() and "Overwriting it." in cell.text()
    assert "The user answered: yes" in request_text(llm)


def test_an_approval_is_answered_through_stdin_and_a_rejection_carries_the_words(
    kernel: Kernel, llm: ScriptedLLMServer
) -> None:
    kernel.run("%prime mode ask")
    run = {"code": "approved_value = 41 + 1"}
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments=run)]),
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "rejected_value = 0"})]),
        ScriptedTurn(blocks=[Text(text="Done.")]),
    )
    msg_id = kernel.submit("%%prime\nset it", allow_stdin=True)
    first = kernel.client.get_stdin_msg(timeout=60)
    assert first["content"]["prompt"] == "number [words]: "  # an approval waits: no time limit
    kernel.client.input("1")
    kernel.client.get_stdin_msg(timeout=60)
    kernel.client.input("3 not now")
    cell = kernel.collect(msg_id)
    assert "Allow ipython?" in cell.text() and "approved_value = 41 + 1" in cell.text()
    assert 'They said: \\"not now\\"' in request_text(llm)
    assert "42" in kernel.run("print(approved_value)").text()
    assert "NameError" in kernel.run("rejected_value").text()
    kernel.run("%prime mode auto")


def test_in_out_and_the_last_error_can_be_referenced(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    count = kernel.run("6 * 7").reply["execution_count"]
    kernel.run("undefined_thing")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    kernel.run(f"%%prime\nIn: {{In[{count}]}} Out: {{Out[{count}]}} Err: {{Err}}")
    sent = request_text(llm)
    assert "In: 6 * 7 Out: 42 Err: " in sent and "NameError" in sent


def test_a_failed_model_call_shows_its_error_then_fails_the_cell(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    """Regression (issue 27, item 5): the error was only printed, so "Run all" carried on past it."""
    llm.enqueue(ScriptedTurn(fault=HttpError(status=400, message="this request is invalid")))
    cell = kernel.run("%%prime\nanything")
    shown = [m for m in cell.of_type("display_data", "update_display_data") if "invalid" in str(m["content"])]
    [error] = [m["content"] for m in cell.of_type("error")]
    assert cell.status == "error" and shown and cell.reply["ename"] == "RunFailedError"
    assert "this request is invalid" in error["evalue"] and error["traceback"] == [f"RunFailedError: {error['evalue']}"]


def test_no_raise_only_shows_the_error(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(fault=HttpError(status=400, message="this request is invalid")))
    cell = kernel.run("%%prime --no-raise\nanything")
    assert cell.status == "ok" and "this request is invalid" in cell.text() and not cell.of_type("error")
    llm.enqueue(ScriptedTurn(fault=HttpError(status=400, message="this request is invalid")))
    assert kernel.run('%prime ask --no-raise "anything"').status == "ok"
    llm.enqueue(ScriptedTurn(fault=HttpError(status=400, message="this request is invalid")))
    assert kernel.run('%prime ask "anything"').status == "error"


def test_insert_puts_the_answers_code_in_a_new_cell_with_its_provenance(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    answer = "Here it is:\n\n```python\ninserted = 3\nprint(inserted)\n```\n"
    llm.enqueue(ScriptedTurn(blocks=[Text(text=answer, chunks=4)]))
    cell = kernel.run("%%prime --insert\nwrite code that prints 3")
    [payload] = [p for p in cell.reply["payload"] if p["source"] == "set_next_input"]
    origin, code = payload["text"].split("\n", 1)
    assert code == "inserted = 3\nprint(inserted)" and payload["replace"] is False
    assert origin.startswith("# prime: session ") and "model scripted/m1" in origin and "entry None" not in origin
    provenance = payload["metadata"]["prime"]  # for the labextension to put on the cell (set_next_input has none)
    assert provenance["model"] == "scripted/m1" and f"session {provenance['session']}," in origin
    assert provenance["entry"] and f"entry {provenance['entry']}," in origin
    assert "do not run it" in request_text(llm) and "NameError" in kernel.run("inserted").text()


def test_thinking_shows_as_a_collapsed_block(kernel: Kernel, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Thinking(text="weighing <options>"), Text(text="decided")]))
    cell = kernel.run("%%prime\ndecide")
    html = [m["content"]["data"].get("text/html", "") for m in cell.of_type("display_data", "update_display_data")]
    assert any("<summary><i>Thinking</i></summary><pre>weighing &lt;options&gt;</pre>" in h for h in html)
    assert "decided" in cell.text()


def test_the_users_kernel_keeps_its_bash_and_gains_only_what_the_agents_code_made(
    kernel: Kernel, llm: ScriptedLLMServer
) -> None:
    """Regression (issue 25): `%load_ext` and a `%%prime` run replaced IPython's `%%bash` with ours and put
    `edit` and `attach_image` into the user's namespace, over their own variables of those names."""
    before = kernel.run("import re\nedit = 'my edit'\n__names = set(get_ipython().user_ns) | {'__names'}")
    assert before.status == "ok", before.text()
    code = "made_by_agent = __prime__.edit.__name__ + '!'\nmade_by_agent"
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": code})]),
        ScriptedTurn(blocks=[Text(text="made it")]),
    )
    cell = kernel.run("%%prime\nmake a variable")
    assert cell.status == "ok" and "made it" in cell.text(), cell.text()
    assert "__prime__.edit(path, old_str, new_str)" in json.dumps(llm.requests[-2].body)  # the model is told
    history = r"_+|_i+|_i?\d+"  # IPython's own names for the cells the user ran
    probe = kernel.run(
        "gained = sorted(n for n in set(get_ipython().user_ns) - __names if not re.fullmatch(r'" + history + "', n))\n"
        "bash = get_ipython().find_cell_magic('bash')\n"
        "print(gained, repr(edit), 'attach_image' in dir(), bash.__module__)"
    )
    assert probe.text().strip() == "['made_by_agent'] 'my edit' False IPython.core.magics.script"


def test_unloading_removes_the_magics_and_loading_again_starts_a_new_session(
    kernel: Kernel, llm: ScriptedLLMServer
) -> None:
    assert kernel.run("%unload_ext prime_jupyter").status == "ok"
    assert "not found" in kernel.run("%prime status").text()
    assert kernel.run("%load_ext prime_jupyter").status == "ok"
    llm.enqueue(ScriptedTurn(blocks=[Text(text="fresh start")]))
    assert "fresh start" in kernel.run("%%prime\nhello").text()
    assert "hello" in request_text(llm) and "remember the word heron" not in request_text(llm)
