"""Images of tool cards: drawn inline where the terminal speaks a graphics protocol, saved, opened.

Inline drawing is `textual-image`'s (Kitty's graphics protocol, or Sixel). It finds out what the terminal
supports by asking it, which it can only do before Textual takes the terminal over, and which costs a
round trip to the terminal: so it is asked only when the environment names a terminal known to draw
images (kitty, Ghostty, WezTerm, iTerm2, Konsole, foot), before the app starts. Anywhere else, and when
the answer is neither protocol, a card shows its images as a placeholder with their type and size.

`s` on a card saves its images under the system's temporary directory (`prime-images/`), and `o` opens
them with the system's viewer (`open` on macOS, `xdg-open` elsewhere), in a thread.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from textual.widget import Widget
from textual.widgets import Static

__all__ = ["InlineImage", "graphics_terminal", "inline_images", "open_in_viewer", "save_images"]

InlineImage = Callable[[bytes], Widget]
"""Makes the widget that draws an image (its encoded bytes: PNG, JPEG, ...)."""

_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
_TERMS = ("xterm-kitty", "xterm-ghostty", "foot", "foot-extra", "wezterm")
_PROGRAMS = ("ghostty", "WezTerm", "iTerm.app")


def graphics_terminal(env: Mapping[str, str]) -> bool:
    """Whether the environment names a terminal known to draw images (cheap: no question to it)."""
    return (
        env.get("TERM", "") in _TERMS
        or env.get("TERM_PROGRAM", "") in _PROGRAMS
        or "KITTY_WINDOW_ID" in env
        or "KONSOLE_VERSION" in env
    )


def inline_images() -> InlineImage | None:
    """How to draw images inline on this terminal, or None (placeholders). Call before the app starts."""
    stdout = sys.__stdout__
    if not graphics_terminal(os.environ) or stdout is None or not stdout.isatty():
        return None
    from textual_image.renderable import Image as Chosen  # asks the terminal what it supports
    from textual_image.renderable.sixel import Image as Sixel
    from textual_image.renderable.tgp import Image as Tgp
    from textual_image.widget import Image

    if Chosen is not Sixel and Chosen is not Tgp:
        return None  # half-cell blocks are a picture of the picture: the placeholder says more

    def draw(data: bytes) -> Widget:
        try:
            return Image(io.BytesIO(data), classes="card-image")
        except (OSError, ValueError):  # not an image Pillow can read: the placeholder above says what it is
            return Static("(this image cannot be drawn: Pillow cannot read it; s saves it)", classes="hint")

    return draw


def save_images(images: Sequence[tuple[str, bytes]], stem: str, directory: Path | None = None) -> list[Path]:
    """Write `images` as `<stem>-<n>.<ext>` under `directory` (`<tmp>/prime-images`); their paths."""
    folder = directory or Path(tempfile.gettempdir()) / "prime-images"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, (mime, data) in enumerate(images, start=1):
        path = folder / f"{_safe(stem)}-{number}.{_EXTENSIONS.get(mime, 'bin')}"
        path.write_bytes(data)
        paths.append(path)
    return paths


def open_in_viewer(path: Path) -> None:
    """Open `path` with the system's viewer; raises OSError when there is none."""
    opener = "open" if sys.platform == "darwin" else "xdg-open"
    found = shutil.which(opener)
    if found is None:
        raise OSError(f"no `{opener}` on this system to open {path} with: open it yourself")
    subprocess.run([found, str(path)], check=True, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)


def _safe(stem: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in stem) or "image"
