"""One `%%prime` run drawn into the cell being executed (IPython's display machinery, wrapped)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prime_jupyter.magics.api import Answer, Session
from prime_jupyter.magics.render import Bundle, CellDisplay, CellFold, Handle, Throttle
from prime_jupyter.protocol.events import SessionEvent

__all__ = ["INTERRUPTED", "run_in_cell", "show"]

INTERRUPTED = "Interrupted: the run was aborted."


class _Handle:
    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def update(self, bundle: Bundle) -> None:
        self._handle.update(bundle, raw=True)


class _IPythonPublisher:
    def display(self, bundle: Bundle) -> Handle:
        return _Handle(show(bundle, display_id=True))


def show(bundle: Bundle, *, display_id: bool = False) -> Any:
    """IPython's `display` of a raw MIME bundle (untyped, hence this wrapper); returns the handle."""
    from IPython import display

    publish: Callable[..., Any] = display.display
    return publish(bundle, raw=True, display_id=display_id or None)


def run_in_cell(session: Session, text: str) -> Answer:
    """Prompt and stream the answer into this cell; a KeyboardInterrupt (the run aborted) propagates, shown as
    one line (`_interrupted`)."""
    fold = CellFold()
    display = CellDisplay(fold, _IPythonPublisher(), in_kernel=session.kernel == "notebook")
    post = session.channel.post
    throttle = Throttle(lambda: post(display.refresh))

    def listener(event: SessionEvent) -> None:  # on the agent's loop
        throttle.changed(fold.apply(event))

    try:
        return session.run_pumped(session.run(text, listener))
    except KeyboardInterrupt:
        raise _interrupted() from None
    finally:
        display.refresh()


def _interrupted() -> KeyboardInterrupt:
    """The stop button's KeyboardInterrupt, which IPython shows as one line: `_render_traceback_` is its hook
    for an exception that draws itself. The frames of this package it printed before were of no use to
    anyone. Still a KeyboardInterrupt, so the cell fails and "Run all" stops."""
    error = KeyboardInterrupt(INTERRUPTED)
    error._render_traceback_ = lambda: [INTERRUPTED]  # type: ignore[attr-defined]
    return error
