"""One conversation model for every front end (design.md D12): session events and chat frames folded
into a typed, immutable view state.

- `state`: the view state (`ViewState`, `MessageView`, the part views, `Notice`, `Text`);
- `fold`: `apply_frame` and `from_session`, the twins of the panel's `applyFrame` and `fromSession`
  (`labextension/src/model.ts`), with the operations on messages (`messages`) and notices (`notices`);
- `live`: `ViewFold`, the fold of a session's events (through `prime_jupyter.protocol.mapper`, the
  mapper the server uses for the panel), started empty or from an attach snapshot;
- `canonical`: `to_json`, the canonical JSON form both folds are compared in (the golden view files).

The panel folds chat frames; the terminal app and notebooks fold the same frames, made by the same
mapper from the same session events, so all three draw the same conversation.
"""

from prime_jupyter.protocol.view.fold import (
    add_local_message,
    apply_frame,
    apply_frames,
    dismiss_notice,
    fail_local,
    from_session,
    is_running,
    last_user_text,
    latest_kernel_id,
    question_for,
)
from prime_jupyter.protocol.view.live import ViewFold
from prime_jupyter.protocol.view.state import (
    MAX_NOTIFY,
    ErrorView,
    ImageView,
    MessageView,
    Notice,
    NoticeLevel,
    PartView,
    ReasoningView,
    ResyncReason,
    Text,
    TextView,
    ToolView,
    ViewState,
    empty_state,
)

__all__ = [
    "MAX_NOTIFY",
    "ErrorView",
    "ImageView",
    "MessageView",
    "Notice",
    "NoticeLevel",
    "PartView",
    "ReasoningView",
    "ResyncReason",
    "Text",
    "TextView",
    "ToolView",
    "ViewFold",
    "ViewState",
    "add_local_message",
    "apply_frame",
    "apply_frames",
    "dismiss_notice",
    "empty_state",
    "fail_local",
    "from_session",
    "is_running",
    "last_user_text",
    "latest_kernel_id",
    "question_for",
]
