"""Turning provider failures into something the loop can act on: retry, compact, or report.

Works by duck typing on the SDKs' exceptions (`status_code`, `response.headers`, `body`) so this module
never imports a provider SDK.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass

__all__ = [
    "Failure",
    "KeyHint",
    "NotAnEventStream",
    "ProviderHints",
    "classify_exception",
    "classify_status",
    "did_you_mean",
    "explain",
    "is_context_overflow_text",
]

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
    status: int | None = None
    """The HTTP status the provider answered, when it answered."""


@dataclass(frozen=True, slots=True)
class KeyHint:
    """Where the API key sent came from (`the environment variable ANTHROPIC_API_KEY`; never the key) and
    how to change it."""

    source: str
    fix: str


@dataclass(frozen=True, slots=True)
class ProviderHints:
    """What the caller knows that a provider's bare "401 invalid x-api-key" or "404 model: x" does not
    say: where the key came from, and the model ids known for the provider."""

    key: KeyHint | None = None
    known_models: tuple[str, ...] = ()


def explain(failure: Failure, provider: str, model_id: str, hints: ProviderHints | None) -> Failure:
    """`failure` with what to do added to its message: for a refused key (401, 403) where the key came
    from and how to fix it; for an unknown model (404 naming it) the closest known model ids of the
    provider, or the known ones."""
    if hints is None or failure.status is None:
        return failure
    if failure.status in (401, 403) and hints.key is not None:
        refused = "was refused" if failure.status == 401 else "is not allowed this request"
        note = f"the API key for '{provider}' from {hints.key.source} {refused}; {hints.key.fix}"
        return dataclasses.replace(failure, message=f"{failure.message}: {note}")
    if failure.status == 404 and hints.known_models and _about_the_model(failure.message, model_id):
        return dataclasses.replace(failure, message=f"{failure.message}: {_models_hint(provider, model_id, hints)}")
    return failure


def _about_the_model(message: str, model_id: str) -> bool:
    return model_id in message or "model" in message.lower()


def did_you_mean(model_id: str, known: tuple[str, ...]) -> str | None:
    """`did you mean a, b or c?` of the known ids closest to `model_id` (difflib), or None."""
    import difflib  # only for a mistyped model: not worth its import on every launch

    close = difflib.get_close_matches(model_id, known, n=3, cutoff=0.6)
    return f"did you mean {_or(close)}?" if close else None


def _models_hint(provider: str, model_id: str, hints: ProviderHints) -> str:
    known = hints.known_models
    close = did_you_mean(model_id, known)
    if close:
        return f"'{model_id}' is not a model of '{provider}'; {close}"
    shown = ", ".join(known[:12]) + (f" and {len(known) - 12} more" if len(known) > 12 else "")
    return f"'{model_id}' is not a model of '{provider}'; its known models: {shown}"


def _or(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" or {names[-1]}"


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
        status=status,
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
