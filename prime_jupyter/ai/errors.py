"""Turning provider failures into something the loop can act on: retry, compact, or report.

The providers' HTTP client (`providers._client`) raises the exceptions defined here, and only inside a
provider: `stream()` turns them into error events (design.md D2), so they are not part of the one
exception tree of `prime_jupyter.errors`.

    Exception
    ├── ProviderStatusError      the provider answered with an error status
    ├── ProviderConnectionError  no answer: no connection, one that broke off, or a timeout
    ├── NotAnEventStream         JSON where an event stream was asked for
    └── ValueError
        └── ProviderSetupError   a setting makes the request impossible (URL, header, proxy, timeout)
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

__all__ = [
    "Failure",
    "KeyHint",
    "NotAnEventStream",
    "ProviderConnectionError",
    "ProviderHints",
    "ProviderSetupError",
    "ProviderStatusError",
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


class NotAnEventStream(Exception):
    """The server answered a streaming request with something else (a server or proxy without streaming,
    or an error it reports with status 200). Retrying would get the same answer."""


class ProviderSetupError(ValueError):
    """A setting makes the request impossible before it is sent (an unsupported URL scheme, a header with
    a line break, an unusable proxy, a bad `PRIME_CONNECT_TIMEOUT_S`): the message says which to fix, and
    retrying cannot help."""


class ProviderStatusError(Exception):
    """The provider answered with a status of 400 or more: what it said, for the retry policy and the user.

    `message` is the API's own error message (else the body's text, else the status's name);
    `error_type` the API's error type (`rate_limit_error`, `insufficient_quota`), when it names one."""

    def __init__(
        self,
        status_code: int,
        message: str,
        *,
        error_type: str | None = None,
        retry_after: str | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(f"{status_code} {message}")
        self.status_code = status_code
        self.message = message
        self.error_type = error_type
        self.retry_after = retry_after
        self.request_id = request_id


class ProviderConnectionError(Exception):
    """No (whole) answer: the provider could not be reached, its connection broke off, or it stayed silent
    for the timeout. Worth retrying. `url` is without user, password or query."""

    def __init__(self, message: str, url: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.url = url
        self.timed_out = timed_out


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
    if isinstance(exc, ProviderStatusError):
        return classify_status(exc.status_code, exc.message, exc.retry_after)
    if isinstance(exc, ProviderConnectionError):
        return Failure(message=str(exc), retryable=True)
    if isinstance(exc, (NotAnEventStream, ProviderSetupError)):
        return Failure(message=str(exc), retryable=False)
    message = str(exc) or type(exc).__name__
    return Failure(message=message, retryable=bool(_TRANSIENT_TEXT.search(message)))


def _parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
