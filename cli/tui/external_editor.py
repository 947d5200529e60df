"""Ctrl+G: edit the prompt in the user's own editor (`$VISUAL`, else `$EDITOR`, else `vi`).

The app suspends (gives the terminal back) while the editor runs, and resumes when it exits; where the
app cannot suspend (no real terminal), it says so and the prompt stays as it was.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from textual.app import App, SuspendNotSupported

__all__ = ["edit_externally"]


def edit_externally(app: App[None], text: str) -> str | None:
    """The text as the user left it in their editor; None when it could not run."""
    command = shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
    handle, name = tempfile.mkstemp(prefix="prime-prompt-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        try:
            with app.suspend():
                done = subprocess.run([*command, str(path)], check=False)
        except SuspendNotSupported:
            app.notify("This terminal cannot hand itself to an editor.", severity="warning")
            return None
        except OSError as exc:
            app.notify(f"Could not run {command[0]}: {exc.strerror}", severity="error")
            return None
        if done.returncode != 0:
            app.notify(f"{command[0]} exited with {done.returncode}: the prompt is unchanged.", severity="warning")
            return None
        return path.read_text(encoding="utf-8").rstrip("\n")
    finally:
        path.unlink(missing_ok=True)
