"""Moving through a session's history: `/tree` (switch to any point, label, fork), `/fork`, `/clone` and
`/rewind` (the agent's file changes undone too).

Switching moves the session's leaf inside its own file (`navigate_tree`); forking and cloning write a
new transcript and the connection replaces its session with it (`SessionReplaced` redraws the chat, a
fork's user message comes back into the editor through `ClientSetEditorText`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prime_jupyter.connection.types import ClientNotice, SessionReplaced
from prime_jupyter.protocol.common import TreeNode
from prime_jupyter.protocol.snapshot import SessionView

from .screens.fork_picker import ForkPicker
from .screens.tree import TreeChoice, TreeScreen, TreeState
from .tree_rows import active_path

if TYPE_CHECKING:
    from prime_jupyter.connection.base import AgentConnection

    from .screens.chat import ChatScreen

__all__ = ["branch_user_messages", "clone", "fork", "open_tree", "rewind"]


async def open_tree(chat: ChatScreen, connection: AgentConnection) -> None:
    """The tree, until the user switches, forks or closes it (a label opens it again, as it was)."""
    state: TreeState | None = None
    while True:
        view = await connection.get_session_view()
        choice = await chat.app.push_screen_wait(TreeScreen(view, state))
        if choice is None:
            return
        state = choice.state
        if choice.action == "label":
            await connection.set_label(choice.entry_id, choice.label)
            continue
        if choice.action == "fork":
            await connection.fork(choice.entry_id, "before" if choice.user_message else "at")
        else:
            await _switch(chat, connection, view, choice)
        return


async def _switch(chat: ChatScreen, connection: AgentConnection, view: SessionView, choice: TreeChoice) -> None:
    if choice.entry_id == view.leaf_id and not choice.user_message:
        return  # already there
    if choice.summarize:
        await chat.conversation.add_line("Summarising the branch left behind…")
    navigated = await connection.navigate_tree(choice.entry_id, summarize=choice.summarize)
    chat.post_event(SessionReplaced(await connection.get_snapshot()))  # redraw the branch now there
    if navigated.editor_text is not None:
        chat.editor.set_prompt(navigated.editor_text)


def branch_user_messages(view: SessionView) -> list[TreeNode]:
    """The user messages of the active branch, oldest first."""
    by_id = {node.id: node for node in view.nodes}
    path = (by_id[entry_id] for entry_id in active_path(view))
    return [node for node in path if node.type == "message" and node.role == "user"]


async def fork(chat: ChatScreen, connection: AgentConnection) -> None:
    """Pick a user message of this branch; the new session holds what came before it."""
    messages = branch_user_messages(await connection.get_session_view())
    if not messages:
        raise ValueError("there is no message to fork from yet")
    entry_id = await chat.app.push_screen_wait(ForkPicker(messages))
    if entry_id is not None:
        await connection.fork(entry_id, "before")


async def rewind(chat: ChatScreen, connection: AgentConnection) -> None:
    """Pick a user message of this branch: the files and notebooks the agent changed since go back as they
    were, the conversation goes on from before it (redrawn), and its text comes back into the editor."""
    messages = branch_user_messages(await connection.get_session_view())
    if not messages:
        raise ValueError("there is no message to rewind to yet")
    title = "Rewind to before a message: the agent's file changes since are undone (Enter rewinds, Esc closes)"
    entry_id = await chat.app.push_screen_wait(ForkPicker(messages, title))
    if entry_id is None:
        return
    result = await connection.rewind(entry_id)
    chat.post_event(SessionReplaced(await connection.get_snapshot()))  # redraw the branch now there
    kept = bool(result.conflicts or result.left or result.code_runs or result.kernel)
    chat.post_event(ClientNotice(result.summary, "warning" if kept else "info"))  # after the redraw
    if result.editor_text is not None:
        chat.editor.set_prompt(result.editor_text)


async def clone(chat: ChatScreen, connection: AgentConnection) -> None:
    before = (await connection.get_state()).session_id
    result = await connection.clone()
    after = result.snapshot.state.session_id if result.snapshot is not None else before
    chat.notify(f"Cloned this branch into a new session {after} (the old one is {before}).")
