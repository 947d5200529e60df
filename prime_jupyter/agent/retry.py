"""When and how long to wait before retrying a transient provider failure."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RetryPolicy"]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """3 retries at 2, 4, 8 s by default; a provider's `retry-after` replaces the computed wait.

    A wait longer than `max_delay_s` is not waited out: the run fails at once with the provider's error.
    """

    enabled: bool = True
    max_retries: int = 3
    base_delay_s: float = 2.0
    max_delay_s: float = 60.0

    def delay(self, attempt: int, retry_after_s: float | None) -> float:
        """Seconds to wait before retry number `attempt` (1-based)."""
        if retry_after_s is not None:
            return retry_after_s
        return float(self.base_delay_s * 2 ** (attempt - 1))
