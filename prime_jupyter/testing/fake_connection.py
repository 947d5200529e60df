"""`FakeAgentConnection`: a connection for front-end tests that raises on any member not stubbed.

Front ends test against the seam with only the members a test cares about, so an unexpected call fails
loudly instead of quietly returning nothing:

    conn = FakeAgentConnection(get_state=async_return(state), subscribe=lambda listener: lambda: None)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["FakeAgentConnection", "UnstubbedMemberError", "async_return"]

T = TypeVar("T")


class UnstubbedMemberError(AssertionError):
    """A front end used a connection member its test did not stub."""


class _InertExtensions:
    def __getattr__(self, name: str) -> Callable[..., Any]:
        return lambda *args, **kwargs: None


class FakeAgentConnection:
    def __init__(self, **members: Any) -> None:
        self._members = members

    def __getattr__(self, name: str) -> Any:
        members = self.__dict__.get("_members", {})
        if name in members:
            return members[name]
        if name == "extensions":
            return _InertExtensions()
        if name.startswith("__") or name == "then":
            raise AttributeError(name)  # not awaitable, not a container: nothing magic

        def unstubbed(*args: object, **kwargs: object) -> None:
            raise UnstubbedMemberError(f"FakeAgentConnection: unstubbed member {name}")

        return unstubbed


def async_return(value: T) -> Callable[..., Awaitable[T]]:
    """A stub coroutine function that returns `value`."""

    async def member(*args: object, **kwargs: object) -> T:
        return value

    return member
