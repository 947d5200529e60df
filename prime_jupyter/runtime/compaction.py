"""Running compaction for a live session (upstream.md §5.5): when, and the summarising model call.

The pure parts (cut point, what to summarise, serialisation, the prompt) live in `sessions.compaction`;
this module decides when to compact — after a context-overflow error (then the run is retried once), when
the context passes `contextWindow - reserveTokens`, or on request — and asks the session's model for
the summary.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from prime_jupyter.ai.stream import stream
from prime_jupyter.ai.types import AssistantMessage, Context, Message, UserMessage
from prime_jupyter.errors import PrimeError
from prime_jupyter.protocol.events import CompactionEnd, CompactionStart
from prime_jupyter.protocol.events import CompactionReason as Reason

if TYPE_CHECKING:
    from prime_jupyter.runtime.agent_session import AgentSession

__all__ = ["CompactionRunner"]

log = logging.getLogger(__name__)


class CompactionRunner:
    def __init__(self, session: AgentSession) -> None:
        self._session = session
        self._overflow_retried_at: int | None = None

    def overflowed(self, message: AssistantMessage) -> bool:
        """A context-overflow error that has not already had its one compact-and-retry."""
        from prime_jupyter.ai.errors import is_context_overflow_text

        if message.stop_reason != "error" or not is_context_overflow_text(message.error_message or ""):
            return False
        if self._overflow_retried_at == message.timestamp:
            return False
        self._overflow_retried_at = message.timestamp
        return True

    def over_threshold(self, message: AssistantMessage) -> bool:
        settings = self._session.settings.compaction
        if not settings.enabled or message.stop_reason in ("error", "aborted"):
            return False
        from prime_jupyter.sessions.compaction import should_compact  # after a turn: not imported to start

        usage = message.usage
        used = usage.input + usage.output + usage.cache_read + usage.cache_write
        window = self._session.model.context_window
        return bool(should_compact(used, window, settings.for_window(window)[0]))

    async def compact(self, reason: Reason, *, will_retry: bool = False, instructions: str | None = None) -> bool:
        """Summarise everything before the kept recent span and append a compaction entry.

        `compaction_end` follows `compaction_start` on every path (a failure, a cancellation, a bug), so no
        surface is left saying "Compacting the context…". A failure is reported there and not raised: the
        run it follows is over already."""
        session = self._session
        session.emit(CompactionStart(reason))
        try:
            end = await self._compact(reason, will_retry, instructions)
        except asyncio.CancelledError:
            session.emit(CompactionEnd(reason, aborted=True))
            raise
        except Exception as exc:
            if not isinstance(exc, PrimeError):
                log.exception("compacting session %s failed", session.session_id)
            session.emit(CompactionEnd(reason, error_message=str(exc) or type(exc).__name__))
            return False
        session.emit(end)
        return end.error_message is None

    async def _compact(self, reason: Reason, will_retry: bool, instructions: str | None) -> CompactionEnd:
        from prime_jupyter.sessions.compaction import prepare_compaction
        from prime_jupyter.sessions.summary import format_file_lists

        session = self._session
        keep = session.settings.compaction.for_window(session.model.context_window)[1]
        preparation = prepare_compaction(session.manager, keep)
        if preparation is None:
            return CompactionEnd(reason, error_message="nothing to compact yet")
        try:
            parts: list[str] = []
            if preparation.messages_to_summarize:
                parts.append(
                    await self.summarise(preparation.messages_to_summarize, preparation.previous_summary, instructions)
                )
            elif preparation.previous_summary:
                parts.append(preparation.previous_summary)
            if preparation.is_split_turn and preparation.turn_prefix_messages:
                prefix = await self.summarise(preparation.turn_prefix_messages, None, instructions, turn_prefix=True)
                parts.append(f"**Turn context (split turn):**\n\n{prefix}")
            summary = "\n\n---\n\n".join(parts)
        except _SummaryFailed as exc:
            return CompactionEnd(reason, None, preparation.tokens_before, error_message=str(exc))
        summary += format_file_lists(preparation.read_files, preparation.modified_files)
        session.manager.append_compaction(
            summary, preparation.first_kept_entry_id, preparation.tokens_before, preparation.details()
        )
        return CompactionEnd(reason, summary, preparation.tokens_before, will_retry=will_retry)

    async def summarise(
        self,
        messages: list[Message],
        previous: str | None,
        instructions: str | None,
        *,
        turn_prefix: bool = False,
    ) -> str:
        from prime_jupyter.sessions.summary import SUMMARIZATION_SYSTEM_PROMPT, summary_request

        session = self._session
        text = summary_request(messages, previous, instructions, turn_prefix=turn_prefix)
        options = session._stream_options()
        options.thinking = "off"
        context = Context(system_prompt=SUMMARIZATION_SYSTEM_PROMPT, messages=[UserMessage(content=text)])
        result = await stream(session.model, context, options).result()
        if result.stop_reason in ("error", "aborted") or not result.text().strip():
            raise _SummaryFailed(result.error_message or "the model returned an empty summary")
        return result.text().strip()


class _SummaryFailed(Exception):
    """The summarising model call failed; compaction reports it and leaves the transcript as it was."""
