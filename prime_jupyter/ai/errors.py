"""Turning provider failures into something the loop can act on: retry, compact, or report.

Works by duck typing on the SDKs' exceptions (`status_code`, `response.headers`, `body`) so this module
never imports a provider SDK.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Failure", "classify_exception", "classify_status", "is_context_overflow_text"]

_OVERFLOW = re.compile(
    r"prompt is too long|context[_ ]length[_ ]exceeded|maximum context length|exceeds the context window"
    r"|input is too long|too many (input )?tokens|context window",
    re.IGNORECASE,
)
_TRANSIENT_TEXT = re.compile(
    r"overloaded|rate.?limit|too many requests|service.?unavailable|server.?error|internal.?error"
    r"|connection|timed? ?out|terminated|incomplete chunked|peer closed|stream",
    re.IGNORECASE,
)
_TRANSIENT_TYPES = {
    "APIConnectionError",
    "APITimeoutError",
    "ConnectError",
    "ReadError",
    "ReadTimeout",
    "RemoteProtocolError",
    "WriteError",
    "ConnectTimeout",
    "PoolTimeout",
    "IncompleteRead",
}


@dataclass(frozen=True, slots=True)
class Failure:
    message: str
    retryable: bool
    retry_after_s: float | None = None
    context_overflow: bool = False


def is_context_overflow_text(text: str) -> bool:
    return bool(_OVERFLOW.search(text))


def classify_status(status: int, message: str, retry_after: str | None = None) -> Failure:
    overflow = status in (400, 413) and is_context_overflow_text(message)
    retryable = status in (408, 409, 425, 429) or status >= 500
    return Failure(
        message=f"{status} {message}".strip(),
        retryable=retryable and not overflow,
        retry_after_s=_parse_retry_after(retry_after),
        context_overflow=overflow,
    )


def classify_exception(exc: BaseException) -> Failure:
    status = getattr(exc, "status_code", None)
    message = _message(exc)
    if isinstance(status, int):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        retry_after = headers.get("retry-after") if headers is not None else None
        return classify_status(status, message, retry_after)
    chain = [type(e).__name__ for e in _chain(exc)]
    transient = any(name in _TRANSIENT_TYPES for name in chain) or bool(_TRANSIENT_TEXT.search(message))
    return Failure(message=message or type(exc).__name__, retryable=transient)


def _message(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return str(exc) or type(exc).__name__


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
