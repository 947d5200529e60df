"""The Prime panel end to end: headless Chromium against a real `jupyter lab` (token auth, the server
extension, real kernels) with the scripted LLM server as the model. Each test queues the model's turns,
plays one scenario of `e2e/panel.mjs`, and checks what the page showed. Screenshots of every state land
in `tests/browser/screenshots/`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from kit.browser import Lab, finish_scenario, run_scenario, start_lab, start_scenario, wait_for_file, write_agent_dir

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall

pytestmark = pytest.mark.timeout(300)

WORDS = " ".join(f"word{i}" for i in range(120))
LONG_ANSWER = f"Here is a long answer: {WORDS}. The end."

DRAW = """\
import struct, zlib
from IPython.display import HTML, Image, display

def png(w, h):
    rows = b"".join(b"\\x00" + bytes(v for x in range(w) for v in (x * 255 // w, 90, 255 - y * 255 // h))
                    for y in range(h))
    chunk = lambda kind, data: (struct.pack(">I", len(data)) + kind + data
                                + struct.pack(">I", zlib.crc32(kind + data)))
    head = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")

display(Image(data=png(160, 90)))
display(HTML("<table><tr><th>city</th><th>sales</th></tr>"
             "<tr><td>Lyon</td><td>120</td></tr><tr><td>Oslo</td><td>95</td></tr></table>"))
print("rows:", 2)
6 * 7
"""


def ipython_turns(answer: str) -> list[ScriptedTurn]:
    return [
        ScriptedTurn(
            blocks=[Text(text="Let me draw it."), ToolCall(name="ipython", arguments={"code": DRAW}, chunks=6)]
        ),
        ScriptedTurn(blocks=[Text(text=answer, chunks=4)]),
    ]


def test_the_panel_opens_in_the_sidebar_and_finds_the_server(lab: Lab, turns: ScriptedLLMServer) -> None:
    report = run_scenario(lab, "open")
    assert report["banner"] is None and "Scripted model" in report["models"]


def test_the_panel_also_opens_in_the_main_area(lab: Lab, turns: ScriptedLLMServer) -> None:
    assert run_scenario(lab, "main")["panels"] == 2


def test_a_prompt_streams_its_answer(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(ScriptedTurn(blocks=[Text(text=LONG_ANSWER, chunks=60)], chunk_delay_s=0.05))
    report = run_scenario(lab, "stream", {"prompt": "Tell me something long", "expect": LONG_ANSWER})
    assert report["answer"] == LONG_ANSWER
    assert len([n for n in report["lengths"] if 0 < n < len(LONG_ANSWER)]) >= 3, report["lengths"]
    assert [m["role"] for m in report["messages"]] == ["user", "assistant"]
    assert report["footer"].startswith("↑")


def test_an_ipython_card_shows_code_an_image_and_a_table(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(*ipython_turns("The gradient is drawn, and the table lists two cities."))
    report = run_scenario(lab, "ipython", {"prompt": "Draw a gradient and a table", "expect": "two cities"})
    assert report["label"].startswith("IPython [")
    assert report["highlighted"] > 0 and report["insertButton"]
    assert report["images"] == [160]
    assert report["tableCells"] == ["Lyon", "120", "Oslo", "95"]
    assert "rows: 2" in report["stream"]


def test_jupyter_actions_console_insert_and_explain_an_error(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(*ipython_turns("Drawn; see the card."), ScriptedTurn(blocks=[Text(text="You divided by zero.")]))
    params = {"prompt": "Draw it for the notebook", "expect": "see the card", "explained": "You divided by zero."}
    report = run_scenario(lab, "jupyter", params)
    assert report["consoleKernel"] in report["before"], "the console did not attach to the agent's kernel"
    assert len(report["after"]) == len(report["before"]), "opening the console started a kernel"
    assert "ZeroDivisionError" in report["asked"][-1] and "1 / 0" in report["asked"][-1]
    assert report["prompt"].startswith("About this cell of `Untitled") and "1 / 0" in report["prompt"]


def test_a_question_is_answered_in_its_card(lab: Lab, turns: ScriptedLLMServer) -> None:
    ask = {"question": "Which colour next?", "kind": "select", "options": ["red", "blue"]}
    turns.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ask", arguments=ask)]),
        ScriptedTurn(blocks=[Text(text="Blue it is.")]),
    )
    report = run_scenario(
        lab, "question", {"prompt": "Pick a colour with me", "choice": "blue", "expect": "Blue it is."}
    )
    assert report["title"] == "Which colour next?"
    assert report["time"] == "waiting for your answer"  # no time limit unless one is configured (questionTimeoutS)
    assert report["questionsLeft"] == 0
    tool_result = json.dumps(turns.requests[-1].body)
    assert "The user chose: blue" in tool_result


def test_escape_aborts_a_long_run(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(ScriptedTurn(blocks=[Text(text=LONG_ANSWER * 3, chunks=300)], chunk_delay_s=0.05))
    report = run_scenario(lab, "abort", {"prompt": "Write a lot", "fullLength": len(LONG_ANSWER) * 3})
    assert 60 < report["stoppedAt"] < report["fullLength"]
    assert report["later"] == report["stoppedAt"], "text kept arriving after the abort"


def test_a_reload_in_the_middle_of_a_run_misses_and_doubles_nothing(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(ScriptedTurn(blocks=[Text(text=LONG_ANSWER, chunks=80)], chunk_delay_s=0.08))
    report = run_scenario(lab, "reload", {"prompt": "Stream while I reload", "expect": LONG_ANSWER})
    assert report["beforeReload"] < len(LONG_ANSWER), "the run ended before the reload"
    assert [(m["role"], m["text"]) for m in report["messages"]] == [
        ("user", "Stream while I reload"),
        ("assistant", LONG_ANSWER),
    ]
    assert report["cursor"] > 0


def test_the_session_list_switches_sessions(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(ScriptedTurn(blocks=[Text(text="Answer about apples.")]))
    turns.enqueue(ScriptedTurn(blocks=[Text(text="Answer about pears.")]))
    first = {"prompt": "Question about apples", "expect": "Answer about apples."}
    second = {"prompt": "Question about pears", "expect": "Answer about pears."}
    report = run_scenario(lab, "switch", {"first": first, "second": second})
    titles = {item["id"]: item["title"] for item in report["listed"]}
    assert titles[report["ids"][0]] == "Question about apples"
    assert titles[report["ids"][1]] == "Question about pears"
    shown = " ".join(m["text"] for m in report["shown"])
    assert "apples" in shown and "pears" not in shown
    assert [m["text"] for m in report["forked"]] == [m["text"] for m in report["shown"]]
    assert report["forkId"] not in report["left"] and report["ids"][0] in report["left"]


def test_rewind_undoes_the_agents_notebook_change_and_puts_the_message_back(lab: Lab, turns: ScriptedLLMServer) -> None:
    root = lab.log.parent / "root"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]), root / "rewind.ipynb")
    edit = {"action": "insert", "source": "y = 2"}
    turns.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="notebook_edit", arguments={"path": "rewind.ipynb", "edits": [edit]})])
    )
    turns.enqueue(ScriptedTurn(blocks=[Text(text="Inserted a cell.")]))
    report = run_scenario(lab, "rewind", {"prompt": "Add a cell", "expect": "Inserted a cell."})
    assert [cell.source for cell in nbformat.read(root / "rewind.ipynb", as_version=4).cells] == ["x = 1"]
    assert any("Rewound: restored rewind.ipynb." in text for text in report["notified"]), report["notified"]
    assert report["composer"] == "Add a cell" and report["messages"] == []


def test_enter_steers_and_alt_enter_queues_a_follow_up(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(
        ScriptedTurn(blocks=[Text(text=LONG_ANSWER, chunks=100)], chunk_delay_s=0.05),
        ScriptedTurn(blocks=[Text(text="Steered: shorter now.")]),
        ScriptedTurn(blocks=[Text(text="Followed up: here is the plot.")]),
    )
    params = {
        "prompt": "Explain at length",
        "steer": "Be shorter",
        "followUp": "Then plot it",
        "expect": ["Steered: shorter now.", "Followed up: here is the plot."],
    }
    report = run_scenario(lab, "queue", params)
    assert report["items"] == [["steer", "Be shorter"], ["follow-up", "Then plot it"]]
    users = [m["text"] for m in report["messages"] if m["role"] == "user"]
    assert users == ["Explain at length", "Be shorter", "Then plot it"]


def _luminance(css: str) -> float:
    r, g, b = (int(v) for v in css[css.index("(") + 1 : css.index(")")].split(",")[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_the_dark_theme_darkens_the_panel(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(*ipython_turns("Drawn in the dark."))
    report = run_scenario(lab, "dark", {"prompt": "Draw it in the dark", "expect": "Drawn in the dark."})
    assert _luminance(report["background"]) < 0.3 < 0.6 < _luminance(report["text"])


def test_the_live_stream_survives_a_server_restart(
    llm: ScriptedLLMServer, turns: ScriptedLLMServer, tmp_path: Path
) -> None:
    agent = write_agent_dir(tmp_path / "agent", llm.base_url)
    lab = start_lab(tmp_path, agent)
    turns.enqueue(ScriptedTurn(blocks=[Text(text="Before the restart.")]))
    turns.enqueue(ScriptedTurn(blocks=[Text(text="After the restart.")]))
    marker, back = tmp_path / "restart-ready", tmp_path / "server-back"
    first = {"prompt": "Say something", "expect": "Before the restart."}
    second = {"prompt": "And again", "expect": "After the restart."}
    params = {"first": first, "second": second, "marker": str(marker), "back": str(back)}
    driver = start_scenario(lab, "restart", params)
    try:
        wait_for_file(marker, driver)
        lab.stop()
        lab = start_lab(tmp_path, agent, port=lab.port, token=lab.token)
        back.write_text("back")  # the new server answers: the driver may prompt once its stream is live
        report = finish_scenario(lab, driver)
    finally:
        driver.kill()
        lab.stop()
    assert report["during"] in ("reconnecting", "connecting")
    assert [m["text"] for m in report["messages"]] == [
        "Say something",
        "Before the restart.",
        "And again",
        "After the restart.",
    ]


@pytest.fixture
def bare_lab(llm: ScriptedLLMServer, tmp_path: Path) -> Iterator[Lab]:
    server = start_lab(tmp_path, write_agent_dir(tmp_path / "agent", llm.base_url), extension=False)
    try:
        yield server
    finally:
        server.stop()


def test_without_the_server_extension_the_panel_says_so(bare_lab: Lab) -> None:
    report = run_scenario(bare_lab, "missing")
    assert report["banner"] == "The prime_jupyter server extension is not installed or not enabled."


def test_the_session_exports_as_a_notebook_that_opens_in_lab(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(ScriptedTurn(blocks=[Text(text="A notebook of this answer.")]))
    report = run_scenario(lab, "export-notebook", {"prompt": "Export me", "expect": "A notebook of this answer."})
    assert report["path"] == f"prime-{report['sessionId']}.ipynb"  # the name of every surface's default
    assert [(c["type"], c["source"]) for c in report["cells"]] == [
        ("markdown", "**Prompt**\n\nExport me"),
        ("markdown", "A notebook of this answer."),
    ]
    assert {c["prime"]["session"] for c in report["cells"]} == {report["sessionId"]}
    assert report["cells"][1]["prime"]["model"] == "scripted/m1"


def test_the_slash_menu_completes_a_template_from_the_registry(lab: Lab, turns: ScriptedLLMServer) -> None:
    prompts = lab.log.parent / "agent" / "prompts"
    prompts.mkdir(exist_ok=True)
    (prompts / "review.md").write_text(
        "---\ndescription: review a file\nargument-hint: <path>\n---\nReview $1 carefully."
    )
    turns.enqueue(ScriptedTurn(blocks=[Text(text="Reviewed it.")]))
    report = run_scenario(lab, "commands", {"typed": "/re", "argument": "notes.py", "expect": "Reviewed it."})
    assert report["listed"] == ["reload", "review"]  # what a prompt can name: no /model, no /resume here
    assert report["picked"] == "/review "
    body = turns.requests[-1].body
    assert isinstance(body, dict) and body["messages"][-1]["content"][0]["text"] == "Review notes.py carefully."
