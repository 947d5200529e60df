"""Images for the tests, made with Pillow (which matplotlib brings, in the test extra)."""

from __future__ import annotations

import io

from PIL import Image


def png(width: int, height: int, color: str | tuple[int, int, int] = "black") -> bytes:
    """A PNG of one colour, `width` by `height` pixels."""
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, format="PNG")
    return buffer.getvalue()


PNG_IN_THE_KERNEL = (
    "import io\nfrom PIL import Image as _I\nfrom IPython.display import Image, display\n"
    "def _png(w, h):\n    b = io.BytesIO()\n    _I.new('L', (w, h)).save(b, format='PNG')\n    return b.getvalue()\n"
)
"""Code that defines `_png(w, h)` in a kernel (the same PNGs, made where the agent's code runs)."""
