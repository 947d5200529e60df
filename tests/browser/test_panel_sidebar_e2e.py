"""The Prime panel at sidebar width (250 px), end to end in headless Chromium (`e2e/sidebar.mjs`): dollars
that are prices stay text while math renders (issue 17, item 5), and code, plots, pickers, the prompt, the
header and errors stay usable that narrow (item 6). Screenshots: `tests/browser/screenshots/3*-sidebar-*`.
This module has its own lab (conftest's `lab` is module-scoped): its IPython turn starts a kernel.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kit.browser import Lab, run_scenario

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.script import HttpError

pytestmark = pytest.mark.timeout(300)

SIDEBAR = Path(__file__).parent / "e2e" / "sidebar.mjs"

MATH_ANSWER = r"""Prices move:

| trend | rate |
|---|---|
| rising | ~3.5 $/day |
| … | … |
| falling | ~1.2 $/day |

It costs $5 and $10 a month, rising ~3.5 $/day | … | falling ~1.2 $/day in prose.

The mean is $\mu = \frac{1}{n}\sum x_i$, and \(\sigma^2\) its variance:

$$\bar{x} = \frac{1}{n}\sum_{i=1}^{n} x_i$$

\[ e^{i\pi} + 1 = 0 \]

That is all about money and math."""

PLOT = """\
import struct, zlib
from IPython.display import Image, display

def png(w, h):
    rows = b"".join(b"\\x00" + bytes(v for x in range(w) for v in (x * 255 // w, 90, 255 - y * 255 // h))
                    for y in range(h))
    chunk = lambda kind, data: (struct.pack(">I", len(data)) + kind + data
                                + struct.pack(">I", zlib.crc32(kind + data)))
    head = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")

display(Image(data=png(640, 400)))
"""

LONG_LINE = "result = frame.groupby(['region', 'product']).agg(total=('sales', 'sum'), mean=('sales', 'mean'))"
CODE_ANSWER = f"The plot is drawn. To group:\n\n```python\n{LONG_LINE}\nresult.head()\n```\n\nThat is the grouping."
FAILURE = "the provider is unreachable at " + "/very/long/path/without/any/space/" * 4 + " (check the URL)"


def test_dollars_stay_text_and_math_renders_at_sidebar_width(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(ScriptedTurn(blocks=[Text(text=MATH_ANSWER, chunks=40)]))
    report = run_scenario(
        lab, "math", {"prompt": "Prices and a formula", "expect": "about money and math", "formulas": 4}, driver=SIDEBAR
    )
    assert report["tables"] == 1 and report["mathInTable"] == 0
    assert report["cells"] == ["rising", "~3.5 $/day", "…", "…", "falling", "~1.2 $/day"]
    assert "It costs $5 and $10 a month, rising ~3.5 $/day | … | falling ~1.2 $/day in prose." in report["prose"]
    assert report["italicDollars"] == 0
    assert report["inline"] >= 2 and report["display"] >= 2, report


def test_code_plots_pickers_and_errors_fit_a_sidebar(lab: Lab, turns: ScriptedLLMServer) -> None:
    turns.enqueue(
        ScriptedTurn(blocks=[Text(text="Let me plot it."), ToolCall(name="ipython", arguments={"code": PLOT})]),
        ScriptedTurn(blocks=[Text(text=CODE_ANSWER, chunks=8)]),
        ScriptedTurn(fault=HttpError(status=400, message=FAILURE)),
    )
    params = {
        "prompt": "Plot it and group the sales",
        "expect": "That is the grouping.",
        "failing": "Once more",
        "refused": "And again",
    }
    report = run_scenario(lab, "sidebar", params, timeout=240, driver=SIDEBAR)
    assert abs(report["width"] - 250) <= 1, report["width"]

    code = report["code"]
    assert code["whiteSpace"] == "pre" and code["overflowX"] == "auto"
    assert code["scrollWidth"] > code["clientWidth"], code  # the long line scrolls...
    assert code["renderedLines"] == code["lines"] == 2, code  # ...instead of wrapping

    image = report["image"]
    assert image["natural"] == 640 and image["width"] >= 0.8 * report["width"], image
    assert report["enlarged"] > 2 * image["width"], report["enlarged"]
    assert report["runningAfterEscape"] == "false"

    for state in ("before", "after"):
        controls = report[state]
        for picker in ("model", "thinking"):
            shown = controls[picker]
            assert shown["text"] and shown["textWidth"] <= shown["room"], (state, picker, shown)
        assert {(w, h) for w, h, _ in controls["icons"]} == {(16, 16)}, controls["icons"]
    prompt = report["before"]["prompt"]
    assert prompt["empty"] and prompt["scrollHeight"] <= prompt["clientHeight"], prompt

    kinds = {error["kind"]: [b["label"] for b in error["buttons"]] for error in report["errors"]}
    assert kinds.pop("notice") == ["\u00d7"], report["errors"]  # the refused message carries the Retry
    assert kinds.pop("failed") == ["Retry", "Edit"], report["errors"]
    assert kinds in ({}, {"error": []}, {"error": ["Retry"]}), report["errors"]  # only the newest failure retries
    for error in report["errors"]:
        assert error["inPanel"], error
        assert all(b["whole"] and b["oneLine"] for b in error["buttons"]), error
