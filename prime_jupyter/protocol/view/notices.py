"""The notices under the conversation (retries, compaction, notifications, request errors): pure
functions over the list, the twins of `labextension/src/notices.ts`, texts included, so every front end
says the same thing."""

from __future__ import annotations

import math

from prime_jupyter.protocol.frames import CompactionFrame, RetryFrame
from prime_jupyter.protocol.view.state import MAX_NOTIFY, Notice, NoticeLevel

__all__ = ["add_notify", "compaction_notice", "put_notice", "retry_notice"]

Notices = tuple[Notice, ...]


def put_notice(notices: Notices, notice: Notice) -> Notices:
    """`notices` with `notice` in place of the one with the same key, last."""
    return (*(n for n in notices if n.key != notice.key), notice)


def _js_round(value: float) -> int:
    """JavaScript's `Math.round` (halves go up), not Python's `round` (halves go to even)."""
    return math.floor(value + 0.5)


def retry_notice(frame: RetryFrame) -> Notice | None:
    """The notice of a retry frame; None once a retry succeeded (the notice goes)."""
    if frame.phase == "start":
        seconds = _js_round((frame.delay_ms or 0) / 1000)
        of = f"/{frame.max_attempts}" if frame.max_attempts else ""
        why = f' after "{frame.error_message}"' if frame.error_message else ""
        return Notice("retry", "warning", f"Retrying in {seconds} s (attempt {frame.attempt}{of}){why}")
    if frame.success:
        return None
    final = frame.final_error if frame.final_error is not None else "gave up"
    return Notice("retry", "error", f"Retry failed: {final}", "retry")


def compaction_notice(frame: CompactionFrame) -> Notice:
    """The notice of a compaction frame."""
    key = "compaction"
    if frame.phase == "start":
        return Notice(key, "info", f"Compacting the context ({frame.reason})…")
    if frame.error_message:
        return Notice(key, "error", f"Compaction failed: {frame.error_message}")
    if frame.aborted:
        return Notice(key, "warning", "Compaction was cancelled.")
    before = f" ({frame.tokens_before} tokens before)" if frame.tokens_before else ""
    retry = "; retrying the request" if frame.will_retry else ""
    return Notice(key, "info", f"Context compacted{before}{retry}.")


def add_notify(notices: Notices, count: int, level: NoticeLevel, text: str) -> Notices:
    """`notices` plus notification number `count`, keeping the newest `MAX_NOTIFY` notifications."""
    notice = Notice(f"notify-{count}", level, text)
    older = [n for n in notices if n.key.startswith("notify-")][-(MAX_NOTIFY - 1) :]
    return (*(n for n in notices if not n.key.startswith("notify-")), *older, notice)
