"""Which HTTP status and wire reason each error of the exception tree gets (`server/http/base.py`)."""

from __future__ import annotations

import pytest

from prime_jupyter.errors import (
    BudgetExceededError,
    BusyError,
    ConfigError,
    MissingApiKeyError,
    ModelNotAllowedError,
    ModelNotFoundError,
    SessionError,
    SessionNotFoundError,
    ToolError,
    TranscriptWriteError,
)
from prime_jupyter.server.http.base import ApiError, message_of, status_of


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (SessionNotFoundError("no session"), (404, "not-found")),
        (TranscriptWriteError("cannot write the session file x: No space left on device"), (500, "internal")),
        (SessionError("no entry 'x' in session y"), (400, "invalid")),
        (BusyError("a run is going"), (409, "busy")),
        (MissingApiKeyError("anthropic", "ANTHROPIC_API_KEY", "auth.json"), (400, "no-api-key")),
        (ModelNotFoundError("unknown model"), (400, "unknown-model")),
        (ModelNotAllowedError("model x/y is not allowed on this server"), (403, "invalid")),
        (BudgetExceededError("this session has spent $2.00 of its $1.50 budget"), (403, "invalid")),
        (ConfigError("settings.json: bad"), (500, "internal")),
        (ToolError("a tool failed"), (400, "invalid")),
        (ApiError(413, "too large"), (413, "invalid")),
        (RuntimeError("a bug"), (500, "internal")),
    ],
)
def test_each_error_gets_its_status(error: BaseException, expected: tuple[int, str]) -> None:
    assert status_of(error) == expected


@pytest.mark.parametrize(
    ("error", "expected", "says"),
    [
        (RecursionError("maximum recursion depth exceeded"), (400, "invalid"), "nests deeper"),
        (ValueError("path: a path cannot hold a NUL byte"), (400, "invalid"), "NUL byte"),
        (OSError(36, "File name too long", "x" * 300), (400, "invalid"), "File name too long"),
        (IsADirectoryError(21, "Is a directory", "/root/out"), (400, "invalid"), "'/root/out'"),
        (OSError(28, "No space left on device", "/root/out"), (500, "internal"), "see the server log"),
        (OSError("no path named"), (500, "internal"), "see the server log"),
    ],
)
def test_the_users_mistakes_in_pythons_own_errors_are_400s(
    error: BaseException, expected: tuple[int, str], says: str
) -> None:
    assert status_of(error) == expected and says in message_of(error)
