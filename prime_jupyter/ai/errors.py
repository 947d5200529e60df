"""Turning provider failures into something the loop can act on: retry, compact, or report.

Works by duck typing on the SDKs' exceptions (`status_code`, `response.headers`, `body`) so this module
never imports a provider SDK.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

__all__ = ["Failure", "NotAnEventStream", "classify_exception", "classify_status", "is_context_overflow_text"]

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


class NotAnEventStream(Exception):
    """The server answered a streaming request with something else (a server or proxy without streaming,
    or an error it reports with status 200). Retrying would get the same answer."""


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
    if isinstance(exc, NotAnEventStream):
        return Failure(message=str(exc), retryable=False)
    status = getattr(exc, "status_code", None)
    message = _message(exc)
    if isinstance(status, int):
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        retry_after = headers.get("retry-after") if headers is not None else None
        return classify_status(status, message, retry_after)
    causes = _chain(exc)
    chain = [type(e).__name__ for e in causes]
    transient = any(name in _TRANSIENT_TYPES for name in chain) or bool(_TRANSIENT_TEXT.search(message))
    if chain[0] in ("APIConnectionError", "APITimeoutError"):
        message = _unreachable(exc, causes[-1], timed_out=chain[0] == "APITimeoutError")
    return Failure(message=message or type(exc).__name__, retryable=transient)


def _unreachable(exc: BaseException, root: BaseException, *, timed_out: bool) -> str:
    """'cannot reach <url>: <why>' instead of the SDKs' bare 'Connection error.' (the URL without any
    user:password or query, which could hold a key)."""
    where = "the provider"
    try:
        url = exc.request.url  # type: ignore[attr-defined]
        host = f"[{url.host}]" if ":" in url.host else url.host
        where = f"{url.scheme}://{host}{f':{url.port}' if url.port else ''}{url.path}"
    except Exception:  # no request recorded: say less rather than fail
        pass
    if isinstance(root, OSError) and root.errno:  # decided by the root cause: an SDK may call a refusal a timeout
        # "Connection refused" rather than "[Errno 111] Connect call failed (...)"; a DNS failure's errno
        # is negative, and its strerror says it ("Name or service not known")
        return f"cannot reach {where}: {os.strerror(root.errno) if root.errno > 0 else root.strerror}"
    if timed_out:
        return f"the request to {where} timed out"
    why = str(root).strip() if root is not exc else ""
    return f"cannot reach {where}: {why}" if why else f"cannot reach {where}"


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
