"""Which image of an output the model gets, and at what size.

The kernel-side helpers already attach a downscaled preview (longer side at most 1568 px) to oversized
images, in the output's metadata: made where Pillow may exist, and where the CPU time is spent in the
kernel's process instead of the agent's event loop. Here we only pick: the preview, the original when it
is small enough, or the original with a note when it could not be shrunk, or nothing with a note when
it is beyond what providers accept.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from pydantic import JsonValue

from prime_jupyter.ai.models import image_not_shown
from prime_jupyter.ai.types import ImageContent
from prime_jupyter.kernel.helpers import PREVIEW_KEY, jpeg_size, png_size

__all__ = ["MAX_IMAGE_SIDE", "ModelImage", "image_size", "model_image"]

MAX_IMAGE_SIDE = 1568
_HARD_MAX_SIDE = 8000  # providers reject larger images outright
_HARD_MAX_BASE64 = 10_000_000
_MIMES = ("image/png", "image/jpeg")


@dataclass(frozen=True, slots=True)
class ModelImage:
    """An image for the model (`block`, or None when it is left out) and the line that stands for it."""

    block: ImageContent | None
    note: str


def image_size(data_b64: str, mime: str) -> tuple[int, int] | None:
    """(width, height) from the header, decoding only a prefix of the base64 when that suffices."""
    for prefix_chars in (4096, 262_144, len(data_b64)):
        head = base64.b64decode(data_b64[: prefix_chars - prefix_chars % 4] or data_b64)
        size = png_size(head) if mime == "image/png" else jpeg_size(head)
        if size is not None or prefix_chars >= len(data_b64):
            return size
    return None


def model_image(
    data: dict[str, JsonValue], metadata: dict[str, JsonValue], *, number: int, accepts_images: bool
) -> ModelImage | None:
    """The model's view of the image in one MIME bundle, or None when the bundle holds no image."""
    mime = next((m for m in _MIMES if isinstance(data.get(m), str)), None)
    if mime is None:
        return None
    original = str(data[mime])
    size = image_size(original, mime)
    shown = f"{size[0]}x{size[1]} " if size else ""
    if not accepts_images:
        return ModelImage(None, image_not_shown(f"image {number}: {shown}{mime}"))
    preview = metadata.get(PREVIEW_KEY)
    if isinstance(preview, dict) and isinstance(preview.get("data"), str):
        block = ImageContent(data=str(preview["data"]), mime_type=str(preview.get("mimeType", mime)))
        small = f"{preview.get('width')}x{preview.get('height')}"
        return ModelImage(block, f"[image {number}: {shown}{mime}, attached downscaled to {small}]")
    if size is not None and max(size) <= MAX_IMAGE_SIDE:
        return ModelImage(ImageContent(data=original, mime_type=mime), f"[image {number}: {shown}{mime}, attached]")
    why = preview.get("unavailable") if isinstance(preview, dict) else None
    reason = f" ({why})" if why else ""
    if size is None or max(size) > _HARD_MAX_SIDE or len(original) > _HARD_MAX_BASE64:
        return ModelImage(None, f"[image {number}: {shown}{mime}, left out: too large to send{reason}]")
    return ModelImage(
        ImageContent(data=original, mime_type=mime),
        f"[image {number}: {shown}{mime}, attached at full size: it could not be downscaled{reason}]",
    )
