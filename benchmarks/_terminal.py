"""A real terminal for interactive benchmarks: one tmux server of our own, watched in control mode.

The command runs in a 100x30 tmux pane. A control-mode client (`tmux -C`) stays attached: tmux tells it
each time the pane wrote output (`%output`), and answers its commands (`send-keys`, `capture-pane`)
without a process spawn per call. So the benchmark reads the screen only when something was written,
and a condition met on screen is stamped at the `capture-pane` that first shows it (at most one capture
round trip, under a millisecond, after it became true).

The pane starts with its echo off, waiting for one line: `start()` lets the command run only once the
control client is attached, so its first output is seen. With echo off, a key typed before the app
under test has put the terminal in raw mode is not echoed by the terminal itself (it would look like the
app drew it); the app reads it when it starts reading keys.
"""

from __future__ import annotations

import contextlib
import shlex
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["TMUX", "ControlTerminal", "TerminalTimeout"]

TMUX = shutil.which("tmux")
_HOLD = 'stty -echo && read _ && exec "$0" "$@"'


class TerminalTimeout(RuntimeError):
    """A condition was not met on screen in time (the message carries the last screen)."""


class ControlTerminal:
    """One command in a tmux pane of `width` x `height`, on a tmux server (socket) of its own."""

    def __init__(self, socket: str, width: int = 100, height: int = 30) -> None:
        assert TMUX is not None, "tmux is not installed"
        self.socket = socket
        self.size = (width, height)
        self._client: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._changed = threading.Condition()
        self._outputs = 0
        self._replies: list[list[str]] = []
        self._reply_ready = threading.Condition()
        self._block: list[str] | None = None
        self.exited = threading.Event()

    def _tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert TMUX is not None
        return subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True, timeout=30)

    def start(self, argv: list[str], cwd: Path, env: dict[str, str]) -> float:
        """Open the pane on `argv` (with `env` added to tmux's), attach, then let it run; the time it was let go."""
        words = ["env", "-u", "COLUMNS", "-u", "LINES", *(f"{k}={v}" for k, v in env.items())]
        command = shlex.join([*words, "sh", "-c", _HOLD, *argv])
        width, height = self.size
        size = ("-x", str(width), "-y", str(height))
        done = self._tmux("new-session", "-d", "-s", "bench", *size, "-c", str(cwd), command)
        if done.returncode != 0:
            raise RuntimeError(f"tmux new-session failed: {done.stderr}")
        self._tmux("set-option", "-t", "bench", "remain-on-exit", "off")
        assert TMUX is not None
        self._client = subprocess.Popen(
            [TMUX, "-L", self.socket, "-C", "attach", "-t", "bench"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        threading.Thread(target=self._read, daemon=True).start()
        self.command("refresh-client")  # attached once it answers
        released = time.time()
        self.keys("Enter")
        return released

    def _read(self) -> None:
        assert self._client is not None and self._client.stdout is not None
        for raw in self._client.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if self._block is not None:
                if line.startswith(("%end ", "%error ")):
                    with self._reply_ready:
                        self._replies.append(self._block)
                        self._block = None
                        self._reply_ready.notify_all()
                else:
                    self._block.append(line)
            elif line.startswith("%begin ") and line.endswith(" 1"):  # flag 1: a command of this client
                self._block = []
            elif line.startswith("%output "):
                with self._changed:
                    self._outputs += 1
                    self._changed.notify_all()
            elif line.startswith("%exit"):
                break
        self.exited.set()
        with self._changed:
            self._changed.notify_all()
        with self._reply_ready:
            self._reply_ready.notify_all()

    def command(self, text: str) -> list[str]:
        """Send one tmux command through the control client and wait for its reply lines."""
        with self._lock:
            assert self._client is not None and self._client.stdin is not None
            self._client.stdin.write(text.encode() + b"\n")
            self._client.stdin.flush()
            with self._reply_ready:
                while not self._replies and not self.exited.is_set():
                    self._reply_ready.wait(5)
                return self._replies.pop(0) if self._replies else []

    def keys(self, *keys: str) -> None:
        """`tmux send-keys` (key names as tmux spells them: `Enter`, `BSpace`, `C-q`; or literal text)."""
        self.command("send-keys -t bench " + " ".join(shlex.quote(k) for k in keys))

    def screen(self) -> str:
        return "\n".join(self.command("capture-pane -p -t bench"))

    def wait(self, condition: Callable[[str], bool], what: str, within: float = 60.0) -> tuple[float, str]:
        """Wait until `condition(screen)` holds; the time of the capture that first showed it, and that screen."""
        deadline = time.monotonic() + within
        while True:
            with self._changed:
                seen = self._outputs
            stamp = time.time()
            screen = self.screen()
            if condition(screen):
                return stamp, screen
            with self._changed:
                while self._outputs == seen and not self.exited.is_set():
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise TerminalTimeout(f"{what} within {within:g} s; the screen:\n{screen}")
                    self._changed.wait(left)
            if self.exited.is_set():
                raise TerminalTimeout(f"{what}: the pane closed; the last screen:\n{screen}")

    def wait_closed(self, within: float = 60.0) -> bool:
        """Wait for the command (and so the pane and the session) to end."""
        return self.exited.wait(within)

    def close(self) -> None:
        """Stop the tmux server of this terminal (whatever still runs in it gets SIGHUP)."""
        self._tmux("kill-server")
        if self._client is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._client.wait(10)
