"""`PrimeHandler`: what every route of the extension shares — the bridge, body parsing, errors.

Routes are thin: parse, call the bridge, serialise. Every verb is `@web.authenticated` and
`@authorized` (resource `prime`); browser POSTs carry XSRF (Jupyter checks it for cookie-authenticated
requests). Input never makes a 500: a body that is not JSON, nests deeper than `MAX_DEPTH` or does not
validate is a 400 naming the field, a body over `max_body_bytes` a 413, an unknown session a 404. Errors
are JSON `ErrorBody`s; `status_of` is the one mapping of errors to statuses, so handlers raise instead of
catching: `PrimeError`s by class, and the user's mistakes that surface as Python's own errors
(`ValueError`, `RecursionError`, an `OSError` about a path the request named) as 4xx, never 500.
"""

from __future__ import annotations

import errno
import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from jupyter_server.base.handlers import APIHandler
from pydantic import BaseModel, TypeAdapter, ValidationError
from tornado import web

from prime_jupyter.ai.models import ThinkingLevel
from prime_jupyter.errors import (
    BudgetExceededError,
    BusyError,
    ConfigError,
    MissingApiKeyError,
    ModelNotAllowedError,
    ModelNotFoundError,
    OutsideRootError,
    PermissionModeError,
    PrimeError,
    SessionNotFoundError,
    TranscriptWriteError,
)
from prime_jupyter.protocol.frames import ErrorReason
from prime_jupyter.protocol.requests import ErrorBody
from prime_jupyter.protocol.wire import dump_json
from prime_jupyter.runtime.session_ops import parse_thinking_level, resolve_cwd
from prime_jupyter.server.config import BRIDGE_SETTING
from prime_jupyter.server.host.bridge import PrimeBridge, is_session_id

__all__ = [
    "AUTH_RESOURCE",
    "MAX_DEPTH",
    "ApiError",
    "PrimeHandler",
    "level_of",
    "message_of",
    "nests_deeper_than",
    "status_of",
]

log = logging.getLogger(__name__)

AUTH_RESOURCE = "prime"

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


class ApiError(web.HTTPError):
    """A request the handler refuses: the status, a message naming what is wrong, the wire reason."""

    def __init__(self, status: int, message: str, reason: ErrorReason = "invalid") -> None:
        super().__init__(status, log_message=message.replace("%", "%%"))
        self.message = message
        self.error_reason: ErrorReason = reason


MAX_DEPTH = 64
"""Deepest nesting of arrays and objects a request body may have (the deepest request model needs < 10)."""


def status_of(error: BaseException) -> tuple[int, ErrorReason]:
    """The HTTP status and wire reason of an error raised while handling a request."""
    if isinstance(error, ApiError):
        return error.status_code, error.error_reason
    if isinstance(error, web.HTTPError):
        return error.status_code, "internal" if error.status_code >= 500 else "invalid"
    for kind, status, reason in _STATUSES:
        if isinstance(error, kind):
            return status, reason
    if isinstance(error, ValueError | RecursionError) or _users_path_error(error):
        return 400, "invalid"
    return 500, "internal"


def message_of(error: BaseException) -> str:
    """What the client reads about `error`: ours say what to do; a bug says only where to look."""
    if isinstance(error, ApiError):
        return error.message
    if isinstance(error, web.HTTPError):
        return error.log_message or error.reason or "request refused"
    if isinstance(error, RecursionError):
        return f"the request nests deeper than Python can follow; keep it under {MAX_DEPTH} levels"
    if isinstance(error, OSError) and _users_path_error(error):
        where = f" {error.filename!r}" if error.filename else ""
        return f"the path{where} cannot be used: {error.strerror or error}"
    if status_of(error)[0] < 500 or isinstance(error, PrimeError):
        return str(error) or type(error).__name__
    return "internal server error; see the server log"


_USERS_PATH_ERRNOS = frozenset(
    {errno.ENAMETOOLONG, errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EEXIST, errno.ELOOP, errno.EINVAL}
)
"""What an `OSError` says about the path it names, not about the server's disk (a full disk, I/O)."""


def _users_path_error(error: BaseException) -> bool:
    return isinstance(error, OSError) and error.filename is not None and error.errno in _USERS_PATH_ERRNOS


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def nests_deeper_than(body: bytes, limit: int) -> bool:
    """Whether the JSON text `body` opens arrays and objects deeper than `limit`, found before parsing
    it: Python's parser raises `RecursionError` at a depth of its own choosing, and a body of 100,000
    `[` should cost a scan, not a stack.

    Cheap: a body with at most `limit` opening brackets cannot be deeper; otherwise the strings are cut
    out, the brackets kept and innermost pairs peeled (all in C), and what cannot be peeled (brackets
    left open or not matching) is counted."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        peeled = brackets.replace(b"[]", b"").replace(b"{}", b"")
        if peeled == brackets:
            break
        brackets = peeled
    else:
        return bool(brackets)  # still nested after `limit` layers
    depth = 0
    for bracket in brackets:
        depth += 1 if bracket in _OPENING else -1
        if depth > limit:
            return True
    return False


_OPENING = frozenset(b"[{")


_STATUSES: tuple[tuple[type[PrimeError], int, ErrorReason], ...] = (
    (SessionNotFoundError, 404, "not-found"),
    (OutsideRootError, 403, "invalid"),
    (PermissionModeError, 403, "invalid"),
    (ModelNotAllowedError, 403, "invalid"),
    (TranscriptWriteError, 500, "internal"),  # the server's disk, not the request
    (BusyError, 409, "busy"),
    (BudgetExceededError, 403, "invalid"),
    (MissingApiKeyError, 400, "no-api-key"),
    (ModelNotFoundError, 400, "unknown-model"),
    (ConfigError, 500, "internal"),
    (PrimeError, 400, "invalid"),
)


def level_of(value: str | None, field: str = "thinkingLevel") -> ThinkingLevel | None:
    """The thinking level a request names (None when it names none); 400 when it is not a level."""
    try:
        return parse_thinking_level(value, field)
    except ValueError as exc:
        raise ApiError(400, str(exc)) from None


class PrimeHandler(APIHandler):
    auth_resource = AUTH_RESOURCE

    @property
    def bridge(self) -> PrimeBridge:
        get: Callable[[], PrimeBridge] = self.settings[BRIDGE_SETTING]
        return get()

    async def prepare(self) -> None:  # type: ignore[override]  # as jupyter_server's APIHandler does
        await super().prepare()
        if self.bridge.stopping:  # a kept-alive connection to a server that is shutting down
            raise ApiError(503, "the server is shutting down: try again once it is back", "internal")
        await self.bridge.start()

    # --- input ----------------------------------------------------------------------------------

    def parse(self, schema: type[M]) -> M:
        """The JSON body as `schema`."""
        return self.parse_as(_adapter(schema))

    def parse_as(self, adapter: TypeAdapter[T]) -> T:
        try:
            value = adapter.validate_python(self._json_body())
        except ValidationError as exc:
            raise ApiError(400, _describe(exc)) from None
        session_id = getattr(value, "session_id", None)
        if isinstance(session_id, str) and not is_session_id(session_id):
            raise ApiError(400, "sessionId: not a session id")
        return value

    def query_session_id(self) -> str:
        """The `sessionId` query argument (400 when it is missing or not an id)."""
        value = self.optional_session_id()
        if value is None:
            raise ApiError(400, "sessionId: a query argument is required")
        return value

    def request_cwd(self, cwd: str | None) -> Path:
        """The working directory a request names, relative to the server's root (400 when it is no directory,
        403 when it is outside the root and `allow_outside_root` is off)."""
        config = self.bridge.config
        try:
            return resolve_cwd(config.root_dir, cwd, confined_to=config.confined_to)
        except ValueError as exc:
            raise ApiError(400, str(exc)) from None

    def optional_session_id(self) -> str | None:
        value = self.get_query_argument("sessionId", None)
        if value is not None and not is_session_id(value):
            raise ApiError(400, "sessionId: not a session id")
        return value

    def _json_body(self) -> object:
        body: bytes = self.request.body or b""
        limit = self.bridge.config.max_body_bytes
        if len(body) > limit:
            raise ApiError(413, f"the request body is larger than the limit of {limit} bytes")
        if not body.strip():
            return {}
        if nests_deeper_than(body, MAX_DEPTH):
            raise ApiError(400, f"the request body nests arrays and objects deeper than {MAX_DEPTH} levels")
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise ApiError(400, "the request body is not valid JSON") from None
        if not isinstance(data, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return data

    # --- output ---------------------------------------------------------------------------------

    def reply(self, model: BaseModel, status: int = 200) -> None:
        self.set_status(status)
        self.finish(dump_json(model))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        error = kwargs.get("exc_info", (None, None, None))[1]
        status, reason = status_of(error) if error is not None else (status_code, "internal")
        message = message_of(error) if error is not None else "internal server error; see the server log"
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(dump_json(ErrorBody(message=message, reason=reason)))

    def log_exception(self, typ: Any, value: Any, tb: Any) -> None:
        if isinstance(value, PrimeError | web.HTTPError) or status_of(value)[0] < 500:
            log.info("%s %s: %s", self.request.method, self.request.path, value)
            return
        super().log_exception(typ, value, tb)


_ADAPTERS: dict[type[BaseModel], TypeAdapter[Any]] = {}


def _adapter(schema: type[M]) -> TypeAdapter[M]:
    """One adapter per request model, made once: making one took 0.3 ms (more under load) per request."""
    adapter = _ADAPTERS.get(schema)
    if adapter is None:
        adapter = _ADAPTERS[schema] = TypeAdapter(schema)
    return cast(TypeAdapter[M], adapter)


def _describe(error: ValidationError) -> str:
    """The first problem, naming its field as the wire spells it (`images.0.data: ...`)."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "body"
    cause = first.get("ctx", {}).get("error") if first["type"] == "value_error" else None
    return f"{where}: {cause if isinstance(cause, ValueError) else first['msg']}"  # ours, without "Value error, "
