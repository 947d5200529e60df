"""The session tree (`/tree`, Esc twice on an empty editor): every point of the session, to switch to.

Up and Down move, Left folds the branch point under the cursor and Right unfolds it; Enter switches the
session to the highlighted entry (a user message: to just before it, its text back in the editor), `s`
does the same and leaves a summary of the branch given up; `f` forks a new session from the entry; `l`
labels it (the input takes the label, Enter keeps it, an empty one clears it). `u` shows only user
messages, `b` only labelled entries (again: everything). The screen dismisses with what to do
(`TreeChoice`, carrying the view to reopen with); the command does it and, for a label, opens it again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from prime_jupyter.protocol.snapshot import SessionView

from ..tree_rows import TreeFilter, TreeRow, tree_rows, visible_anchor
from ..widgets.key_order import OrderedInput
from ..widgets.row_list import RowList

__all__ = ["TreeChoice", "TreeScreen", "TreeState"]

_KINDS = {"user": ("user", "bold"), "assistant": ("assistant", ""), "toolResult": ("tool", "dim")}
_TYPES = {"compaction": "compaction", "branch_summary": "branch summary"}
_FILTERS: dict[TreeFilter, str] = {"all": "", "user": "user messages only", "labelled": "labelled entries only"}


@dataclass(frozen=True, slots=True)
class TreeState:
    """How the tree is shown: the filter, the folded branch points, the highlighted entry."""

    filter: TreeFilter = "all"
    folded: frozenset[str] = frozenset()
    at: str | None = None


@dataclass(frozen=True, slots=True)
class TreeChoice:
    """Switch to (`summarize`: leaving a summary), fork from, or label (`label`; None clears) `entry_id`."""

    action: Literal["switch", "fork", "label"]
    entry_id: str
    state: TreeState
    summarize: bool = False
    label: str | None = None
    user_message: bool = False


class TreeScreen(ModalScreen[TreeChoice | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close the tree (or the label input)"),
        Binding("left", "fold", "fold the branch point"),
        Binding("right", "unfold", "unfold the branch point"),
        Binding("s", "switch(True)", "switch here, leaving a summary of the branch given up"),
        Binding("f", "fork", "fork a new session from here"),
        Binding("l", "label", "label the entry (an empty label clears it)"),
        Binding("u", "filter('user')", "only user messages (again: everything)"),
        Binding("b", "filter('labelled')", "only labelled entries (again: everything)"),
    ]
    KEY_NOTES: ClassVar[tuple[tuple[str, str], ...]] = (
        ("↑ / ↓, PgUp / PgDn, Home / End", "move (the row list's keys)"),
        ("Enter", "switch here (a user message: to just before it, its text back in the editor)"),
    )

    def __init__(self, view: SessionView, state: TreeState | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.view = view
        self.state = state or TreeState()
        self.rows: list[TreeRow] = []
        self._labelling: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog tree"):
            yield Label("Session tree", classes="dialog-title", id="tree-title")
            yield RowList(id="tree-rows")
            yield OrderedInput(placeholder="label, then Enter (empty clears it)", id="tree-label")
            yield Static(
                "Enter switch · s with a summary · f fork · l label · u / b filter · ← → fold · Esc close",
                classes="hint",
            )

    def on_mount(self) -> None:
        self.query_one("#tree-label", Input).display = False
        self._fill()

    # --- drawing --------------------------------------------------------------------------------

    def _fill(self) -> None:
        state = self.state
        self.rows = tree_rows(self.view, state.filter, state.folded)
        title = "Session tree" + (f" ({_FILTERS[state.filter]})" if state.filter != "all" else "")
        self.query_one("#tree-title", Label).update(title)
        at = visible_anchor(self.view, state.at or self.view.leaf_id, state.filter)
        index = next((i for i, row in enumerate(self.rows) if row.node.id == at), len(self.rows) - 1)
        choices = self.query_one("#tree-rows", RowList)
        rows = self.rows
        choices.set_rows(len(rows), lambda i: _row_text(rows[i]), index)
        choices.focus()

    def highlighted(self) -> TreeRow | None:
        if not self.rows:
            return None
        return self.rows[self.query_one("#tree-rows", RowList).cursor]

    def _here(self) -> TreeState:
        """The state, with the highlighted entry as where to reopen."""
        row = self.highlighted()
        return replace(self.state, at=row.node.id) if row is not None else self.state

    # --- actions --------------------------------------------------------------------------------

    def on_row_list_selected(self, event: RowList.Selected) -> None:
        self.action_switch(False)

    def action_switch(self, summarize: bool) -> None:
        row = self.highlighted()
        if row is not None:
            self.dismiss(TreeChoice("switch", row.node.id, self._here(), summarize, user_message=_is_user(row)))

    def action_fork(self) -> None:
        row = self.highlighted()
        if row is not None:
            self.dismiss(TreeChoice("fork", row.node.id, self._here(), user_message=_is_user(row)))

    def action_fold(self) -> None:
        row = self.highlighted()
        if row is not None and row.branches > 1 and not row.folded:
            self.state = replace(self.state, folded=self.state.folded | {row.node.id}, at=row.node.id)
            self._fill()

    def action_unfold(self) -> None:
        row = self.highlighted()
        if row is not None and row.folded:
            self.state = replace(self.state, folded=self.state.folded - {row.node.id}, at=row.node.id)
            self._fill()

    def action_filter(self, view_filter: TreeFilter) -> None:
        chosen: TreeFilter = "all" if self.state.filter == view_filter else view_filter
        self.state = replace(self._here(), filter=chosen)
        self._fill()

    def action_label(self) -> None:
        row = self.highlighted()
        if row is None:
            return
        self._labelling = row.node.id
        field = self.query_one("#tree-label", Input)
        field.value = row.node.label or ""
        field.display = True
        field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self._labelling is not None:
            label = event.value.strip() or None
            self.dismiss(TreeChoice("label", self._labelling, self._here(), label=label))

    def action_close(self) -> None:
        if self._labelling is not None:
            self._labelling = None
            self.query_one("#tree-label", Input).display = False
            self.query_one("#tree-rows", RowList).focus()
            return
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While the label is typed, letters are the label's: only Escape (and Enter) act."""
        return self._labelling is None or action == "close"


def _is_user(row: TreeRow) -> bool:
    return row.node.type == "message" and row.node.role == "user"


def _row_text(row: TreeRow) -> Text:
    node = row.node
    text = Text(no_wrap=True, overflow="ellipsis")
    glyph = {"branch": "├─", "last branch": "└─"}.get(row.starts, "  ")
    text.append("  " * max(row.depth - 1, 0) + (glyph if row.depth else ""), style="dim")
    text.append("▸ " if row.folded else "▾ " if row.branches > 1 else "  ", style="cyan")
    text.append("● " if row.current else "• " if row.on_path else "  ", style="green" if row.on_path else "")
    kind, style = _KINDS.get(node.role or "", (_TYPES.get(node.type, node.type), "italic"))
    text.append(f"{kind}: ", style=style or "")
    text.append(" ".join((node.preview or "").split()) or "(no text)", style="dim" if node.role != "user" else "")
    if node.label:
        text.append(f"  [{node.label}]", style="bold magenta")
    if row.current:
        text.append("  ← you are here", style="green")
    return text
