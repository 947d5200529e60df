"""The scripted tasks and how each figure is read off one run.

Times come from two sources on the same wall clock: the tap in front of the scripted server (request
and response bytes) and the benchmark's own stamps of each stdout line of the agent (tool start/end).
"""

from __future__ import annotations

from statistics import median

from _child import ChildRun, TapTimes

from prime_jupyter.testing import Script, ScriptedTurn, Text, ToolCall

__all__ = [
    "STREAM_DELTAS",
    "answer_script",
    "delta_lines",
    "launch_s",
    "median_or_nan",
    "pandas_script",
    "problem",
    "send_ms",
    "stream_rate",
    "stream_script",
    "tool_spans",
    "tool_task_script",
    "turn_gaps_ms",
]

STREAM_DELTAS = 20_000

_TOOL_CALLS: list[tuple[str, dict[str, object]]] = [
    ("write", {"path": "notes.txt", "content": "alpha\nbeta\ngamma\n"}),
    ("read", {"path": "notes.txt"}),
    ("edit", {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]}),
    ("bash", {"command": "echo one"}),
    ("read", {"path": "notes.txt"}),
    ("write", {"path": "data.csv", "content": "a,b\n1,2\n"}),
    ("edit", {"path": "data.csv", "edits": [{"oldText": "1,2", "newText": "3,4"}]}),
    ("bash", {"command": "cat data.csv"}),
    ("read", {"path": "data.csv"}),
    ("bash", {"command": "echo done"}),
]


def tool_task_script(model_time_s: float = 0.0) -> Script:
    """Ten turns that each call one cheap tool (bash, read, write, edit), then a final answer; each
    answer's status line waits `model_time_s` (the model's time to its first token)."""
    turns = [
        ScriptedTurn(
            first_byte_delay_s=model_time_s,
            blocks=[Text(text=f"Step {i + 1}.", chunks=2), ToolCall(name=name, arguments=args, chunks=3)],
        )
        for i, (name, args) in enumerate(_TOOL_CALLS)
    ]
    last = ScriptedTurn(first_byte_delay_s=model_time_s, blocks=[Text(text="All ten steps are done.", chunks=6)])
    return Script(turns=[*turns, last])


_DATA = (
    "import pandas as pd, numpy as np; "
    "df = pd.DataFrame({'a': np.arange(200_000), 'b': np.random.default_rng(0).normal(size=200_000)})"
)
_PANDAS_STEPS = [
    "df['c'] = df.a * 2; df.shape",
    "df.describe()",
    "df.groupby(df.a % 10).b.mean()",
    "df[df.b > 0].shape",
    "df.sort_values('b').head()",
    "df.to_csv('data.csv', index=False); len(df)",
    "pd.read_csv('data.csv').shape",
    "df.b.quantile([0.1, 0.5, 0.9])",
    "df[['a', 'b']].corr()",
    "df.b.rolling(100).mean().iloc[-1]",
]


def pandas_script(python: str | None = None) -> Script:
    """Ten steps of data work on one frame, then an answer. With `python` (pi's way: its `bash` tool), each
    step is a `python -c` that builds the frame again; without (ours), `ipython` calls in one kernel,
    the first building the frame."""
    turns = []
    for i, step in enumerate(_PANDAS_STEPS):
        if python is None:
            call = ToolCall(name="ipython", arguments={"code": f"{_DATA}\n{step}" if i == 0 else step})
        else:
            head, _, tail = step.rpartition("; ")
            body = f"{_DATA}; {head}; print({tail})" if head else f"{_DATA}; print({tail})"
            call = ToolCall(name="bash", arguments={"command": f'{python} -c "{body}"'})
        turns.append(ScriptedTurn(blocks=[Text(text=f"Step {i + 1}."), call]))
    return Script(turns=[*turns, ScriptedTurn(blocks=[Text(text="The data work is done.")])])


def stream_script() -> Script:
    """One answer of `STREAM_DELTAS` one-character text deltas."""
    return Script(turns=[ScriptedTurn(blocks=[Text(text="x" * STREAM_DELTAS, chunks=STREAM_DELTAS)])])


def answer_script() -> Script:
    """One short answer: the whole task of the launch and resume runs."""
    return Script(turns=[ScriptedTurn(blocks=[Text(text="ok", chunks=1)])])


def _tool_events(run: ChildRun) -> tuple[list[tuple[str, float]], dict[str, float], int]:
    starts: list[tuple[str, float]] = []
    ends: dict[str, float] = {}
    errors = 0
    for stamp, event in run.events():
        kind, call_id = event.get("type"), str(event.get("toolCallId"))
        if kind == "tool_execution_start":
            starts.append((call_id, stamp))
        elif kind == "tool_execution_end":
            ends[call_id] = stamp
            errors += event.get("isError") is True
    return starts, ends, errors


def tool_spans(run: ChildRun) -> list[float]:
    """Each tool call's run time as seen on stdout (start line to end line), in call order."""
    starts, ends, _ = _tool_events(run)
    return [ends[call_id] - start for call_id, start in starts if call_id in ends]


def launch_s(run: ChildRun, taps: TapTimes) -> float:
    """Process spawn to the first request fully received by the provider."""
    return taps.ends[0] - run.spawned_at


def turn_gaps_ms(run: ChildRun, taps: TapTimes, *, to_first_byte: bool = False) -> list[float]:
    """For each turn k: request k+1 received - response k's last byte sent - turn k's tool time.

    `to_first_byte`: to the first byte of request k+1 instead of its last (the agent's own work, without
    the request's transfer, which the reader at the tap paces as much as the sender)."""
    spans = tool_spans(run)
    arrivals = taps.starts if to_first_byte else taps.ends
    gaps: list[float] = []
    for k in range(len(taps.ends) - 1):
        response_end = taps.response_ends[k]
        if response_end is not None:
            tool = spans[k] if k < len(spans) else 0.0
            gaps.append((arrivals[k + 1] - response_end - tool) * 1000)
    return gaps


def send_ms(taps: TapTimes) -> list[float]:
    """For each request after the first: its first byte to its last reaching the provider (the wire's
    share of the per-turn gap, which grows with the body)."""
    return [(end - start) * 1000 for start, end in zip(taps.starts[1:], taps.ends[1:], strict=True)]


def stream_rate(run: ChildRun, taps: TapTimes) -> float:
    """Deltas per second: first request received to the last stdout line of the run."""
    return STREAM_DELTAS / (run.lines[-1][0] - taps.ends[0])


def delta_lines(run: ChildRun) -> int:
    """How many text-delta events the JSON output carried (a check that nothing was coalesced)."""
    count = 0
    for _, event in run.events():
        inner = event.get("assistantMessageEvent")
        count += event.get("type") == "message_update" and isinstance(inner, dict) and inner.get("type") == "text_delta"
    return count


def problem(run: ChildRun, taps: TapTimes, requests: int, json_mode: bool) -> str | None:
    """Why this run cannot be counted, or None when it did what the script asked."""
    if run.exit_code != 0:
        return f"exit code {run.exit_code}: {run.stderr.strip()[-400:]}"
    if len(taps.ends) != requests or any(outcome != "completed" for outcome in taps.outcomes):
        return f"{len(taps.ends)} requests (expected {requests}), outcomes {taps.outcomes}: {run.stderr[-400:]}"
    if not run.lines:
        return "no output"
    if json_mode and (errors := _tool_events(run)[2]):
        return f"{errors} tool calls failed"
    return None


def median_or_nan(values: list[float]) -> float:
    """The median, or NaN for no values (a figure that could not be measured)."""
    return median(values) if values else float("nan")
