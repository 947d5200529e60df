"""The expected view state of every golden stream, which the Python fold and the panel's fold must both give.

Each stream `<name>.ndjson` (the mapped scenarios beside this file, and the hand-written streams of
frames that only the server writes in `frames/`) has a `<name>.view.json`:

    {"stream": "<name>.ndjson",
     "final": <canonical view state after the whole stream>,
     "steps": [{"after": n, "frame": "<type>", "changed": {<top-level keys whose value changed>}}, ...]}

`final` and `changed` are in the canonical JSON form (`prime_jupyter.protocol.view.canonical`; the panel's
twin is `labextension/test/canonical.ts`). `steps` has one entry per frame, so the states in between
(a tool's draft while its input streams, the queue, pending questions, a running tool's output) are
pinned too, without storing every whole state: a fold that gives the same `changed` at every step from
the same empty state gives the same state at every step. `tests/golden/test_golden_view.py` and
`labextension/test/view.test.ts` read these files. They are written by the Python fold; if a change to
the fold is meant, regenerate them, review the diff, and run both tests:

    PYTHONPATH=.:tests .venv/bin/python tests/golden/golden_views.py
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import JsonValue

from prime_jupyter.protocol.frames import ChatFrame, parse_frame
from prime_jupyter.protocol.framing import NdjsonDecoder
from prime_jupyter.protocol.view import apply_frame, empty_state
from prime_jupyter.protocol.view.canonical import to_json

GOLDEN_DIR = Path(__file__).parent
FRAMES_DIR = GOLDEN_DIR / "frames"


def streams() -> list[Path]:
    """Every golden stream: the mapped scenarios', then the hand-written ones."""
    return sorted(GOLDEN_DIR.glob("*.ndjson")) + sorted(FRAMES_DIR.glob("*.ndjson"))


def view_path(stream: Path) -> Path:
    return stream.with_name(stream.name.removesuffix(".ndjson") + ".view.json")


def read_frames(stream: Path) -> list[ChatFrame]:
    decoder = NdjsonDecoder()
    lines = decoder.feed(stream.read_bytes()) + decoder.close()
    frames = [parse_frame(line) for line in lines]
    return [frame for frame in frames if frame is not None]


def expected_view(stream: Path, frames: list[ChatFrame]) -> dict[str, JsonValue]:
    """What the fold of `frames` is expected to give: the final state and each step's changes."""
    state = empty_state()
    before = to_json(state)
    steps: list[JsonValue] = []
    for n, frame in enumerate(frames, start=1):
        state = apply_frame(state, frame)
        after = to_json(state)
        changed: dict[str, JsonValue] = {key: value for key, value in after.items() if before[key] != value}
        steps.append({"after": n, "frame": frame.type, "changed": changed})
        before = after
    return {"stream": stream.name, "final": before, "steps": steps}


def dump_view(view: dict[str, JsonValue]) -> str:
    """The file's text: `final` indented for reading, one line per step."""
    steps = view["steps"]
    assert isinstance(steps, list)
    lines = ",\n".join("  " + json.dumps(step, ensure_ascii=False, separators=(",", ":")) for step in steps)
    head = {"stream": view["stream"], "final": view["final"]}
    text = json.dumps(head, ensure_ascii=False, indent=1)
    return f'{text[:-2]},\n "steps": [\n{lines}\n ]\n}}\n'


def main() -> None:
    for stream in streams():
        path = view_path(stream)
        path.write_text(dump_view(expected_view(stream, read_frames(stream))), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
