"""What tool cards and the footer show, as pure functions of the data they are given."""

from __future__ import annotations

import base64
import io
import struct
import zlib

from prime_jupyter.cli.tui.tool_render import CardData, render_tool, summary_of
from prime_jupyter.cli.tui.widgets.status_footer import context_style, tokens
from rich.console import Console

from prime_jupyter.ai.types import TextContent


def shown(view: CardData, expanded: bool = False) -> str:
    console = Console(width=100, record=True, file=io.StringIO(), color_system=None)
    console.print(render_tool(view, expanded))
    return console.export_text()


def png(width: int, height: int) -> str:
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + header
    raw = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(header)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    return base64.b64encode(raw + b"\0" * 4096).decode()


def test_an_image_output_is_a_placeholder_with_its_size() -> None:
    details = {
        "outputs": [
            {"output_type": "display_data", "data": {"image/png": png(640, 480), "text/plain": "<Figure 640x480>"}},
            {"output_type": "execute_result", "execution_count": 3, "data": {"text/plain": "42"}},
        ]
    }
    text = shown(CardData("ipython", {"code": "plot()\n42"}, (), details, "done"))
    assert "[image/png 640x480, 4 KB]" in text and "Out[3]: 42" in text and "<Figure" not in text


def test_stderr_and_a_traceback_lose_their_colour_codes() -> None:
    details = {
        "outputs": [
            {"output_type": "stream", "name": "stderr", "text": "careful\n"},
            {
                "output_type": "error",
                "ename": "KeyError",
                "evalue": "'x'",
                "traceback": ["\x1b[0;31m" + "-" * 75 + "\x1b[0m", "\x1b[0;31mKeyError\x1b[0m: 'x'"],
            },
        ]
    }
    text = shown(CardData("ipython", {"code": "d['x']"}, (), details, "error"))
    assert "careful" in text and "KeyError: 'x'" in text and "\x1b" not in text and "-" * 20 not in text


def test_a_one_line_command_is_shown_once_and_a_long_one_in_full() -> None:
    one = CardData("bash", {"command": "ls"}, (TextContent(text="a\nb"),), None, "done")
    assert summary_of(one) == "ls" and "ls" not in shown(one)
    script = "\n".join(f"echo {i}" for i in range(30))
    many = CardData("bash", {"command": script}, (), None, "running")
    assert "9 more lines of code" in shown(many) and "echo 29" in shown(many, expanded=True)


def test_the_body_does_not_repeat_the_line_the_header_shows() -> None:
    """Issue 31 item 10: a card's header showed the code's first line and its body showed it again."""
    code = "import pandas as pd\ndf = pd.read_csv('x.csv')\ndf.shape"
    card = CardData("ipython", {"code": code}, (), None, "running")
    body = shown(card)
    assert summary_of(card) == "import pandas as pd" and "import pandas" not in body and "df.shape" in body
    long_first = "x = " + "1 + " * 30 + "1\nprint(x)"
    cut = CardData("ipython", {"code": long_first}, (), None, "running")
    assert summary_of(cut).endswith("…") and "x = 1 + 1" in shown(cut)  # cut short there: shown whole here


def test_a_generic_tool_shows_its_arguments_and_result() -> None:
    view = CardData("lookup", {"path": "data.csv"}, (TextContent(text="year,sales"),), None, "done")
    assert '"path": "data.csv"' in shown(view) and "year,sales" in shown(view)
    read = CardData("read", {"path": "data.csv"}, (TextContent(text="year,sales"),), None, "done")
    assert summary_of(read) == "data.csv" and "year,sales" in shown(read) and '"path"' not in shown(read)


def test_footer_numbers_and_context_colours() -> None:
    assert (tokens(999), tokens(1500), tokens(25_000), tokens(1_200_000)) == ("999", "1.5k", "25k", "1.2M")
    assert context_style(0.5) == "dim" and context_style(0.75) == "yellow" and context_style(0.95) == "bold red"


def test_the_kernel_s_edit_helper_shows_a_diff() -> None:
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new\n"
    bundle = {"application/vnd.prime.diff+json": {"path": "x.py", "diff": diff}, "text/plain": "Edited x.py"}
    text = shown(CardData("ipython", {"code": "edit('x.py', 'old', 'new')"}, (), {"outputs": [
        {"output_type": "display_data", "data": bundle}]}, "done"))  # fmt: skip
    assert "Edited x.py" in text and "-old" in text and "+new" in text and text.count("Edited x.py") == 1


def test_a_notebook_edit_shows_each_changed_cell_with_its_lines() -> None:
    changes = [
        {"action": "replace", "cellId": "c1", "cellType": "code", "before": "x = 1\ny = 2", "after": "x = 1\ny = 3"},
        {"action": "insert", "cellId": "c2", "cellType": "markdown", "before": None, "after": "# Results"},
        {"action": "delete", "cellId": "c3", "cellType": "code", "before": "old()", "after": None},
    ]
    text = shown(
        CardData("notebook_edit", {"path": "a.ipynb"}, (), {"path": "a.ipynb", "changes": changes}, "done"), True
    )
    assert "Replaced code cell c1" in text and "-y = 2" in text and "+y = 3" in text and " x = 1" in text
    assert "Inserted markdown cell c2\n+# Results" in text
    assert "Deleted code cell c3\n-old()" in text
    assert summary_of(CardData("notebook_edit", {"path": "a.ipynb", "edits": []})) == "a.ipynb"


def test_a_question_card_is_summarised_by_its_question_while_its_arguments_stream() -> None:
    """Issue 31 item 10: the `ask` card's summary was `{`, the first line of its streaming JSON."""
    draft = '{\n  "question": "Drop the empty rows?\\nThere are 12",\n  "kind": "con'
    assert summary_of(CardData("ask", {"…": draft}, status="pending")) == "Drop the empty rows?"
    assert summary_of(CardData("ask", {"kind": "confirm", "question": "Keep it?"}, status="done")) == "Keep it?"
