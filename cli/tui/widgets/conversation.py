"""The conversation: every message, tool card and notice of the session, in order, scrollable.

It follows the newest output (Textual's anchor) until the user scrolls up, and follows again once they
are back at the bottom. Tool cards are kept by tool-call id, so a tool's execution updates the card its
call created, wherever it is.
"""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widget import Widget

from .tool_card import ToolCard

__all__ = ["Conversation"]


class Conversation(VerticalScroll):
    """The scrolling transcript; `cards` maps tool-call ids to their cards."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cards: dict[str, ToolCard] = {}
        self.can_focus = False

    def on_mount(self) -> None:
        self.anchor()

    async def add(self, widget: Widget) -> None:
        await self.mount(widget)

    async def card(self, call_id: str, name: str) -> ToolCard:
        """The card of this tool call; a new one at the end when its call was not seen (attached mid-run)."""
        found = self.cards.get(call_id)
        if found is None:
            found = self.cards[call_id] = ToolCard(call_id, name)
            await self.mount(found)
        return found

    async def clear(self) -> None:
        self.cards.clear()
        await self.remove_children()
        self.anchor()

    def set_expanded(self, expanded: bool) -> None:
        for card in self.cards.values():
            card.expanded = expanded
