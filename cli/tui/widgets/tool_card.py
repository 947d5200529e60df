"""A tool card: one tool call, keyed by its id, redrawn in place as its arguments and output stream.

Collapsed it shows the last lines of the output; Enter on a focused card (or a click) expands that one,
and Ctrl+O on the chat expands or collapses all of them. Images the call produced are drawn below its
output where the terminal can (`images.py`; elsewhere the output says where each one is, with its
size); `s` saves them to files and `o` opens them with the system's viewer.
"""

from __future__ import annotations

import asyncio
import subprocess

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.widgets import Static

from prime_jupyter.protocol.view import ToolView

from ..images import InlineImage, open_in_viewer, save_images
from ..tool_render import CardData, card_data, images_of, render_tool, summary_of
from .card import Card

__all__ = ["ToolCard"]

_MARKS = {"pending": ("…", "dim"), "running": ("●", "yellow"), "done": ("✓", "green"), "error": ("✗", "red")}


class ToolCard(Card):
    """Header (status, tool name, first line of its input) and body (input and output)."""

    BINDINGS = [
        Binding("s", "save_images", "save its images to files", show=False),
        Binding("o", "open_images", "open its images in the system's viewer", show=False),
    ]

    def __init__(self, tool: ToolView) -> None:
        super().__init__(classes="tool-card")
        self.call_id = tool.tool_call_id
        self.tool = tool
        self.view = card_data(tool)
        self.images: list[tuple[str, bytes]] = images_of(self.view)
        """The call's images (MIME type, bytes), in order."""
        self._drawn_images = 0

    def show(self, tool: ToolView) -> None:
        """Draw the tool part as the view state has it now."""
        if tool is not self.tool:
            self.tool = tool
            self.view = card_data(tool)
            self.images = images_of(self.view)
            self._redraw()

    def header_text(self) -> Text:
        mark, style = _MARKS.get(self.view.status, _MARKS["pending"])
        return Text.assemble((f"{mark} ", style), (self.view.name, "bold"), "  ", (summary_of(self.view), "dim"))

    def _redraw(self) -> None:
        if not self.is_mounted:
            return
        view: CardData = self.view
        self.query_one(".tool-header", Static).update(self.header_text())
        self.query_one(".tool-body", Static).update(render_tool(view, self.expanded))
        self.set_class(view.status == "error", "-error")
        inline: InlineImage | None = getattr(self.app, "inline_images", None)
        if inline is not None and len(self.images) > self._drawn_images:
            self.mount_all(inline(data) for _, data in self.images[self._drawn_images :])
            self._drawn_images = len(self.images)

    def action_save_images(self) -> None:
        self._save(open_them=False)

    def action_open_images(self) -> None:
        self._save(open_them=True)

    @work(group="images")
    async def _save(self, open_them: bool) -> None:
        """Save the images (and open them): files under the system's temporary directory, said in a notice."""
        if not self.images:
            self.notify("This card has no image to save or open.", severity="warning")
            return
        try:
            paths = await asyncio.to_thread(save_images, self.images, self.call_id)
            if open_them:
                for path in paths:
                    await asyncio.to_thread(open_in_viewer, path)
        except (OSError, subprocess.SubprocessError) as exc:
            self.notify(f"The image could not be {'opened' if open_them else 'saved'}: {exc}", severity="error")
            return
        where = ", ".join(str(p) for p in paths)
        self.notify(f"Opened {where}" if open_them else f"Saved {where}")
