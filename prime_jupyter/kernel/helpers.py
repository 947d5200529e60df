"""Helpers the agent uses from inside its kernel: `edit`, `attach_image`, `%%bash`, image previews.

KERNEL-SIDE: the bootstrap cell sends this file's source to the kernel (so the kernel needs none of
prime_jupyter's dependencies); it may import only the standard library and IPython (and Pillow, when
the kernel has it). In a kernel of the agent's own, `install(shell)` puts `edit`
and `attach_image` into the user namespace, replaces `%%bash` and hooks the display machinery so images
larger than the model may see get a downscaled preview in their metadata, made with Pillow (which
matplotlib brings; without it such an image is described as not downscaled). The originals stay
untouched for notebooks and the panel.

In the user's own notebook kernel (`%%prime`) nothing is installed: the kernel and its namespace are the
user's (design.md D16). There the agent's code finds the helpers under one name, `__prime__`
(`HELPERS_NAME`: `__prime__.edit(...)`, `__prime__.attach_image(...)`), lent by `kernel.inprocess` only
while that code runs; `%%bash` is IPython's own; previews are made for what the agent is shown
(`with_preview`), not written into the notebook.
"""

from __future__ import annotations

import base64
import codecs
import difflib
import importlib
import io
import os
import selectors
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

__all__ = [
    "DIFF_MIME",
    "HELPERS_NAME",
    "PREVIEW_KEY",
    "BashExitError",
    "attach_image",
    "edit",
    "helpers_namespace",
    "install",
    "jpeg_size",
    "with_preview",
]

DIFF_MIME = "application/vnd.prime.diff+json"
PREVIEW_KEY = "prime.preview"
_IMAGE_MIMES = ("image/png", "image/jpeg")
_settings = {"max_side": 1568}
HELPERS_NAME = "__prime__"
"""The one name the helpers have in the user's own kernel: a dunder, which Python reserves for the system
and a user's variables do not take."""


def install(shell: Any, max_image_side: int = 1568) -> None:
    """Make the helpers available in `shell` (an IPython `InteractiveShell`); safe to call again."""
    _settings["max_side"] = max_image_side
    names = {"edit": edit, "attach_image": attach_image}
    shell.user_ns.update(names)
    shell.user_ns_hidden.update(names)
    shell.register_magic_function(bash, magic_kind="cell", magic_name="bash")
    _wrap(shell.display_pub, "publish", _publish_with_preview)
    _wrap(shell.displayhook, "write_format_data", _format_with_preview)


def helpers_namespace() -> Any:
    """`edit` and `attach_image` as attributes of one object, for `HELPERS_NAME`."""
    import types

    return types.SimpleNamespace(edit=edit, attach_image=attach_image)


# -- edit --------------------------------------------------------------------------------------------


def edit(path: str | os.PathLike[str], old_str: str, new_str: str) -> None:
    """Replace the one occurrence of `old_str` in the file at `path` with `new_str`, and show the diff.

    `old_str` must occur exactly once (add surrounding lines until it does). An empty `old_str` creates
    a new file holding `new_str`. The file is replaced atomically and keeps its permissions.
    """
    target = os.path.abspath(os.path.expanduser(os.fspath(path)))
    before = _read_for_edit(target, old_str)
    if old_str and old_str not in before and "\r\n" in before:  # a CRLF file, old_str typed with \n
        old_str, new_str = old_str.replace("\n", "\r\n"), new_str.replace("\n", "\r\n")
    count = before.count(old_str) if old_str else 1
    if count != 1:
        problem = "was not found" if count == 0 else f"occurs {count} times"
        raise ValueError(f"old_str {problem} in {path}; it must occur exactly once (add surrounding lines)")
    index = before.find(old_str) if old_str else 0
    after = before[:index] + new_str + before[index + len(old_str) :]
    _write_atomic(target, after)
    first_line = before.count("\n", 0, index) + 1
    diff = _unified_diff(before, after, os.fspath(path))
    payload = {"path": target, "diff": diff, "firstChangedLine": first_line}
    _publish({DIFF_MIME: payload, "text/plain": f"Edited {path} (line {first_line})\n{diff}"})


def _read_for_edit(target: str, old_str: str) -> str:
    if not old_str:
        if os.path.exists(target):
            raise ValueError(f"{target} exists: pass the text to replace as old_str (empty creates a file)")
        return ""
    with open(target, encoding="utf-8", newline="") as handle:
        return handle.read()


def _write_atomic(target: str, text: str) -> None:
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    mode = os.stat(target).st_mode & 0o7777 if os.path.exists(target) else None
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".edit-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def _unified_diff(before: str, after: str, name: str) -> str:
    out = []
    for line in difflib.unified_diff(_lines(before), _lines(after), fromfile=name, tofile=name):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _lines(text: str) -> list[str]:
    """Lines with their endings, split on \\n only (not on the other breaks str.splitlines knows)."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


# -- attach_image ------------------------------------------------------------------------------------


def attach_image(image: Any) -> None:
    """Show the model an image: a file path, PNG/JPEG bytes, a matplotlib figure or a PIL image."""
    data, label = _image_bytes(image)
    mime = _sniff(data)
    if mime is None:
        data, mime = _convert_to_png(data), "image/png"
    size = _size(data, mime)
    text = f"<image {label}" + (f" {size[0]}x{size[1]}>" if size else ">")
    _publish({mime: base64.b64encode(data).decode("ascii"), "text/plain": text})


def _image_bytes(image: Any) -> tuple[bytes, str]:
    if isinstance(image, (str, os.PathLike)):
        with open(os.path.expanduser(os.fspath(image)), "rb") as handle:
            return handle.read(), os.fspath(image)
    if isinstance(image, (bytes, bytearray)):
        return bytes(image), "bytes"
    if hasattr(image, "savefig"):
        buffer = io.BytesIO()
        image.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue(), "figure"
    for method in ("_repr_png_", "_repr_jpeg_"):
        if callable(getattr(image, method, None)):
            data = getattr(image, method)()
            data = data[0] if isinstance(data, tuple) else data
            return (base64.b64decode(data) if isinstance(data, str) else data), type(image).__name__
    raise TypeError(f"attach_image takes a path, image bytes, a figure or an image, not {type(image).__name__}")


def _sniff(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    return None


def _convert_to_png(data: bytes) -> bytes:
    try:
        Image = importlib.import_module("PIL.Image")
    except ImportError:
        raise ValueError("not a PNG or JPEG image (install Pillow in the kernel for other formats)") from None
    buffer = io.BytesIO()
    try:
        Image.open(io.BytesIO(data)).save(buffer, format="PNG")
    except OSError:  # PIL's UnidentifiedImageError: text, or a format it cannot read
        raise ValueError("not a PNG or JPEG image, nor one Pillow can read and convert") from None
    return buffer.getvalue()


def _size(data: bytes, mime: str) -> tuple[int, int] | None:
    if mime == "image/png":
        return png_size(data)
    return jpeg_size(data)


def png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's IHDR chunk, or None when `data` is not a PNG."""
    if len(data) < 24 or not data.startswith(b"\x89PNG\r\n\x1a\n") or data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    pos = 2
    while pos + 9 < len(data) and data[pos] == 0xFF:
        marker, length = data[pos + 1], int.from_bytes(data[pos + 2 : pos + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(data[pos + 7 : pos + 9], "big"), int.from_bytes(data[pos + 5 : pos + 7], "big")
        pos += 2 + length
    return None


# -- previews of large images ------------------------------------------------------------------------


def _wrap(owner: Any, name: str, make: Callable[[Callable[..., Any]], Callable[..., Any]]) -> None:
    original = getattr(owner, name, None)
    if original is None or getattr(original, "_prime_wrapped", False):
        return
    wrapped = make(original)
    wrapped._prime_wrapped = True  # type: ignore[attr-defined]
    setattr(owner, name, wrapped)


def _publish_with_preview(original: Callable[..., Any]) -> Callable[..., Any]:
    def publish(data: Any, metadata: Any = None, *args: Any, **kwargs: Any) -> Any:
        return original(data, with_preview(data, metadata), *args, **kwargs)

    return publish


def _format_with_preview(original: Callable[..., Any]) -> Callable[..., Any]:
    def write_format_data(format_dict: Any, md_dict: Any = None) -> Any:
        return original(format_dict, with_preview(format_dict, md_dict))

    return write_format_data


def with_preview(data: Any, metadata: Any) -> Any:
    """`metadata` plus a downscaled copy of an oversized image in `data`; never fails the display."""
    try:
        preview = _preview(data)
    except Exception as error:
        preview = {"unavailable": f"{type(error).__name__}: {error}"}
    if preview is None:
        return metadata
    return {**(metadata or {}), PREVIEW_KEY: preview}


def _preview(data: Any) -> dict[str, Any] | None:
    if not isinstance(data, dict):
        return None
    mime = next((m for m in _IMAGE_MIMES if isinstance(data.get(m), str)), None)
    if mime is None:
        return None
    raw = base64.b64decode(data[mime])
    size, limit = _size(raw, mime), _settings["max_side"]
    if size is None or max(size) <= limit:
        return None
    made, why = _downscale_with_pillow(raw, mime, limit)
    if made is None:
        return {"unavailable": f"cannot downscale {size[0]}x{size[1]} {mime}: {why}"}
    small, width, height = made
    encoded = base64.b64encode(small).decode("ascii")
    return {"mimeType": mime, "data": encoded, "width": width, "height": height, "original": list(size)}


def _downscale_with_pillow(raw: bytes, mime: str, limit: int) -> tuple[tuple[bytes, int, int] | None, str]:
    """The image shrunk to fit `limit` (bytes, width, height), or None and why not."""
    try:
        Image = importlib.import_module("PIL.Image")
    except ImportError:
        return None, "Pillow is not installed in the kernel"
    try:
        image = Image.open(io.BytesIO(raw))
        image.thumbnail((limit, limit))
        buffer = io.BytesIO()
        image.save(buffer, format="PNG" if mime == "image/png" else "JPEG", quality=85)
    except Exception as exc:  # a broken image stays as it is, with the reason
        return None, f"Pillow cannot read it ({exc})"
    return (buffer.getvalue(), image.width, image.height), ""


def _publish(data: dict[str, Any]) -> None:
    display = importlib.import_module("IPython.display")
    display.publish_display_data(data)


# -- %%bash ------------------------------------------------------------------------------------------


class BashExitError(Exception):
    """A `%%bash` cell ended with a non-zero exit status; shown as one line, not a traceback."""

    def __init__(self, status: int) -> None:
        super().__init__(f"exit status {status}")
        self.status = status

    def _render_traceback_(self) -> list[str]:
        return [f"bash exited with status {self.status}"]


def bash(line: str, cell: str) -> None:
    """`%%bash [bash options]`: run the cell in a bash subshell, streaming its output.

    A non-zero exit status fails the cell (`BashExitError`), so it shows in the result. The subshell
    starts in the kernel's working directory with its environment: `%cd` and `os.environ` persist
    between cells, shell variables do not. stdin is /dev/null.
    """
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False, encoding="utf-8") as script:
        script.write(cell)
    try:
        status = _run_streaming(["bash", *shlex.split(line), script.name])
    finally:
        os.unlink(script.name)
    if status != 0:
        raise BashExitError(status)


def _run_streaming(argv: list[str]) -> int:
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    targets = {process.stdout: sys.stdout, process.stderr: sys.stderr}
    decoders = {pipe: codecs.getincrementaldecoder("utf-8")("replace") for pipe in targets}
    try:
        with selectors.DefaultSelector() as selector:
            for pipe in targets:
                selector.register(pipe, selectors.EVENT_READ)  # type: ignore[arg-type]
            while selector.get_map():
                for key, _ in selector.select():
                    chunk = os.read(key.fd, 65536)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    target = targets[key.fileobj]  # type: ignore[index]
                    target.write(decoders[key.fileobj].decode(chunk))  # type: ignore[index]
                    target.flush()
        return process.wait()
    except BaseException:
        process.kill()
        process.wait()
        raise
