"""Where a Jupyter server listens, and what its refusals mean: both standard library only.

`ServerEndpoint` names a server (TCP or Unix socket, base path, token). `refusal` turns a refused
request (status and body) into the exception of `prime_jupyter.errors` a caller can act on. Both the
httpx transport (`_transport.py`) and the one-request run (`remote_run.py`, which imports neither httpx
nor pydantic) use them, so a refusal reads the same whichever client met it.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from prime_jupyter.errors import (
    BusyError,
    ConfigError,
    ModelNotFoundError,
    PrimeError,
    ServerUnavailableError,
    SessionNotFoundError,
)

__all__ = ["ServerEndpoint", "error_reason", "refusal"]

_BY_REASON: dict[str, type[PrimeError]] = {
    "busy": BusyError,
    "not-found": SessionNotFoundError,
    "unknown-model": ModelNotFoundError,
    "no-api-key": ConfigError,
}


class ServerEndpoint(NamedTuple):
    """Where a Jupyter server listens: `url` is its base URL (`http://127.0.0.1:8888/` or with a base
    path); with `sock` (a Unix socket) only the path of `url` counts. `token` is sent as
    `Authorization: token <token>`.

    A `NamedTuple`, not a dataclass: importing `dataclasses` (and `inspect`) was 5 ms of the 75 ms
    launch budget of `jupyter prime attach -p`."""

    url: str
    token: str | None = None
    sock: str | None = None

    @classmethod
    def unix(cls, sock: str, token: str | None = None, base_url: str = "/") -> ServerEndpoint:
        return cls(url="http://localhost" + base_url, token=token, sock=sock)

    @property
    def display(self) -> str:
        return f"{self.sock} ({self.url})" if self.sock else self.url


def error_reason(content: bytes) -> tuple[str, str] | None:
    """The `(reason, message)` of a route's `ErrorBody`, or None when the answer is not one (Jupyter's
    own 404 page, a proxy's)."""
    try:
        data = json.loads(content)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("reason"), str):
        return None
    message = data.get("message")
    return (data["reason"], message) if isinstance(message, str) else None


def refusal(status: int, where: str, content: bytes) -> PrimeError:
    """The exception a refused request stands for; `where` names the server and the path asked."""
    body = error_reason(content)
    if status in (401, 403):
        return PrimeError(f"the Jupyter server refused the request ({status} at {where}): check the token")
    if status in (502, 503, 504):  # a proxy in front of a server that is restarting
        return ServerUnavailableError(f"the Jupyter server is not available ({status} at {where})")
    if body is None and status == 404:
        return PrimeError(f"no such route: {where} (is prime-jupyter installed and enabled on that server?)")
    if body is None:
        return PrimeError(f"the Jupyter server answered {status} at {where}")
    reason, message = body
    return _BY_REASON.get(reason, PrimeError)(message)
