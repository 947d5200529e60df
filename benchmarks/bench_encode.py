"""One more turn's request body, per API: built from scratch against encoded once (`providers._encoded`).

    python benchmarks/bench_encode.py [--entries 10 10000] [--runs 9]

For each API and history length (a synthetic session, `_long_session.py`, opened as a resume opens
it), times the body of the request that follows one more tool turn (an assistant call and its result):
`encode_body(build_request(...))` from scratch, and `encode_messages_once` on a history that holds the
encoded prefix of the request before, as the agent loop's history does. The pieces of the encoded body
are not joined (the transport sends them as they are). `first` is the encoded-once body with nothing
kept yet (a resumed session's first request, or the first after a compaction). Prints medians and the
load (`uptime`); on a checkout whose provider has no `encode_messages_once`, only the from-scratch
column.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from _long_session import make_session

from prime_jupyter.ai.history import History
from prime_jupyter.ai.models import Api, Model
from prime_jupyter.ai.providers import anthropic, openai_completions, openai_responses
from prime_jupyter.ai.providers._body import Body
from prime_jupyter.ai.providers._request import encode_body, encode_request
from prime_jupyter.ai.stream import StreamOptions
from prime_jupyter.ai.types import AssistantMessage, Context, TextContent, ToolCall, ToolResultMessage, ToolSpec

MODULES: dict[Api, ModuleType] = {
    "anthropic-messages": anthropic,
    "openai-completions": openai_completions,
    "openai-responses": openai_responses,
}
OPTIONS = StreamOptions(api_key="unused")
TOOLS = [ToolSpec(name="bash", description="run a command", parameters={"type": "object", "properties": {}})]


def _turn(i: int) -> list[AssistantMessage | ToolResultMessage]:
    call = ToolCall(id=f"bench{i}", name="bash", arguments={"command": f"ls -la src/{i}"})
    asked = AssistantMessage(content=[call], api="anthropic-messages", provider="p", model="m", stop_reason="toolUse")
    text = TextContent(text=f"total {i}\n" + "-rw-r--r-- 1 user user 1024 file.py\n" * 20)
    return [asked, ToolResultMessage(tool_call_id=call.id, tool_name="bash", content=[text])]


def _grown(base: History, i: int) -> History:
    history = base.copy()
    for message in _turn(i):
        history.append(message)
    return history


def _time(build: Callable[[Model, Context, StreamOptions], object], model: Model, context: Context) -> float:
    gc.collect()
    start = time.perf_counter()
    build(model, context, OPTIONS)
    return (time.perf_counter() - start) * 1000


def _measure(api: Api, base: History, runs: int) -> tuple[float, float | None, float | None, int]:
    """Median ms of one more turn's body from scratch, encoded once, and encoded once with nothing kept
    (a resume's first request); None: not on this checkout."""
    module = MODULES[api]
    model = Model(id="bench-model", name="Bench", api=api, provider="bench", max_tokens=8192)
    once: Callable[[Model, Context, StreamOptions], Body] | None = getattr(module, "encode_messages_once", None)

    def context(messages: History) -> Context:
        return Context.model_construct(system_prompt="be brief", messages=messages, tools=TOOLS)

    def from_scratch(model: Model, context: Context, options: StreamOptions) -> bytes:
        return encode_body(module.build_request(model, context, options))

    def encoded_once(model: Model, context: Context, options: StreamOptions) -> Body:
        assert once is not None
        return encode_request(once, model, context, options)

    scratch: list[float] = []
    encoded: list[float] = []
    first: list[float] = []
    size = 0
    for i in range(runs + 1):  # the first run warms up
        history = _grown(base, i)
        size = len(from_scratch(model, context(history), OPTIONS))
        scratch.append(_time(from_scratch, model, context(history)))
        if once is not None:
            fresh = _grown(base, i)
            fresh.set_memo(api, None)  # nothing kept (the providers' memo key is their API's name)
            first.append(_time(encoded_once, model, context(fresh)))
            kept = base.copy()
            encoded_once(model, context(kept), OPTIONS)  # the request before: its prefix kept
            for message in _turn(i):
                kept.append(message)
            encoded.append(_time(encoded_once, model, context(kept)))
    median = statistics.median
    if not encoded:
        return median(scratch[1:]), None, None, size
    return median(scratch[1:]), median(encoded[1:]), median(first[1:]), size


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, nargs="+", default=[10, 10_000])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    from prime_jupyter.sessions.manager import SessionManager

    print(f"{_load()}; median of {args.runs} runs, ms for one more turn's body")
    print(f"{'api':<20} {'entries':>8} {'MB':>5} {'scratch':>8} {'once':>8} {'first':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for entries in args.entries:
            path = Path(tmp) / f"session-{entries}.jsonl"
            make_session(entries, "anthropic", "bench-model").write(path, tmp)
            messages = SessionManager.open(path).build_context().messages
            base = messages if isinstance(messages, History) else History(messages)
            for api in MODULES:
                scratch, once, first, size = _measure(api, base, args.runs)
                shown = " ".join(f"{t:8.2f}" if t is not None else f"{'-':>8}" for t in (once, first))
                print(f"{api:<20} {len(base):>8,} {size / 1e6:5.2f} {scratch:8.2f} {shown}")
    print(_load())


if __name__ == "__main__":
    main()
