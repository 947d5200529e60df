"""A real ipykernel for the magics tests: started by jupyter_client, pointed at the scripted server.

`Kernel.run(code)` executes a cell and returns its iopub messages and reply, as a notebook front end
would see them. The kernel's environment carries the agent directory (a models.json whose provider's
base URL is the scripted server) and a fake key; PYTHONPATH puts this checkout first (harmless when it
is installed editable, as in CI).
"""

from __future__ import annotations

import json
import os
import queue
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.manager import KernelManager

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED_MODEL = "scripted/m1"


def write_agent_dir(home: Path, base_url: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    provider = {
        "baseUrl": base_url,
        "api": "anthropic-messages",
        "apiKey": "SCRIPTED_TEST_KEY",
        "models": [
            {"id": "m1", "contextWindow": 200000, "input": ["text", "image"]},  # sees the plots it makes
            {"id": "m2", "contextWindow": 100000},
        ],
    }
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "settings.json").write_text(
        json.dumps({"defaultModel": SCRIPTED_MODEL, "retry": {"enabled": False}, "permissionMode": "auto"})
    )
    return home


def kernel_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("PYTEST")}
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(PRIME_AGENT_DIR=str(home), SCRIPTED_TEST_KEY="fake-key", PYTHONPATH=path)
    return env


@dataclass
class CellResult:
    messages: list[dict[str, Any]] = field(default_factory=list)
    reply: dict[str, Any] = field(default_factory=dict)

    def of_type(self, *types: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["msg_type"] in types]

    @property
    def status(self) -> str:
        return str(self.reply.get("status"))

    def text(self) -> str:
        """Everything the cell showed as text: streams, and the plain/markdown text of displays."""
        parts: list[str] = []
        for message in self.messages:
            content = message["content"]
            if message["msg_type"] == "stream":
                parts.append(content["text"])
            elif message["msg_type"] in ("display_data", "update_display_data", "execute_result"):
                data = content["data"]
                parts.append(data.get("text/markdown") or data.get("text/plain", ""))
            elif message["msg_type"] == "error":
                parts.append(f"{content['ename']}: {content['evalue']}")
        return "\n".join(parts)


class Kernel:
    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel(cwd=str(cwd), env=env)
        self.client = self.manager.blocking_client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def submit(self, code: str, *, allow_stdin: bool = False) -> str:
        return str(self.client.execute(code, store_history=True, allow_stdin=allow_stdin))

    def collect(self, msg_id: str, timeout: float = 120) -> CellResult:
        """The iopub messages of the execution `msg_id` up to its idle status, and its reply."""
        result = CellResult()
        while True:
            message = self.client.get_iopub_msg(timeout=timeout)
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
                break
            result.messages.append(message)
        while True:
            reply = self.client.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                result.reply = reply["content"]
                return result

    def run(self, code: str, timeout: float = 120) -> CellResult:
        return self.collect(self.submit(code), timeout)

    def wait_for_output(
        self, msg_id: str, needle: str, seen: CellResult, timeout: float = 60, *, kind: str | None = None
    ) -> None:
        """Read iopub messages of `msg_id` into `seen` until one (of type `kind`) has `needle` in its text."""
        while True:
            try:
                message = self.client.get_iopub_msg(timeout=timeout)
            except queue.Empty as error:
                raise AssertionError(f"no output containing {needle!r}: {seen.text()!r}") from error
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            seen.messages.append(message)
            if (kind is None or message["msg_type"] == kind) and needle in CellResult([message]).text():
                return

    def shutdown(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)
