"""Where the connection routes live and the header they answer with: plain strings, standard library
only, so that a client that speaks the routes without pydantic (`connection.remote_run`) names them
from the same place as the models of `connection_routes`."""

from __future__ import annotations

__all__ = ["CONNECTION_PATH", "CURSOR_HEADER", "RUN_PATH", "SESSION_EVENT_PREFIX"]

CONNECTION_PATH = "prime/api/connection/"
"""Where the connection routes live, relative to the server's base URL."""
CURSOR_HEADER = "X-Prime-Cursor"
RUN_PATH = CONNECTION_PATH + "run"
"""`POST run` (capability `run`): one prompt, answered with the stream of its run."""
SESSION_EVENT_PREFIX = '{"type":"session_event","event":'
"""How the data of every `session_event` message of the connection streams begins: the event's own
JSON (`codec.event_to_json`) follows, then `}`. A client may take the event's text out as it is."""
