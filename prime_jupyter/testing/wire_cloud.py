"""The cloud platforms' routes of the scripted server, as the SDKs' platform clients call them.

- Amazon Bedrock: `POST /model/<id>/invoke-with-response-stream`; the answer is Anthropic's events, each
  base64 in a `chunk` message of AWS's binary event stream (`application/vnd.amazon.eventstream`: a prelude
  with lengths and a CRC32, string headers, the payload, a CRC32 of the whole), which botocore decodes.
- Google Vertex AI: `POST /projects/<p>/locations/<r>/publishers/anthropic/models/<id>:streamRawPredict`;
  Anthropic's own SSE. `POST /_scripted/oauth2/token` issues access tokens to Google's credential chain
  (an `authorized_user` credentials file whose `token_uri` points here).
- Azure OpenAI: `POST /openai/deployments/<deployment>/chat/completions?api-version=...`; chat-completion SSE.

The model is the one the path names (Bedrock and Vertex take it out of the body).
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from dataclasses import dataclass

from prime_jupyter.testing.script import ScriptedTurn, StreamError
from prime_jupyter.testing.wire_anthropic import AnthropicWire
from prime_jupyter.testing.wire_common import WireContext, WireFormat
from prime_jupyter.testing.wire_openai_chat import OpenAIChatWire

__all__ = ["BedrockWire", "CloudRoute", "cloud_route", "event_stream_message", "token_reply"]

EVENT_STREAM = "application/vnd.amazon.eventstream"
_BEDROCK = re.compile(r"/model/(?P<model>[^/]+)/invoke-with-response-stream")
_VERTEX = re.compile(r"/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/(?P<model>[^/:]+):streamRawPredict")
_AZURE = re.compile(r"/openai/deployments/(?P<model>[^/]+)/chat/completions")


def event_stream_message(payload: bytes, headers: dict[str, str]) -> bytes:
    """One message of AWS's event stream, string headers only."""
    encoded = b"".join(
        bytes([len(name.encode())]) + name.encode() + b"\x07" + len(value.encode()).to_bytes(2, "big") + value.encode()
        for name, value in headers.items()
    )
    total = 12 + len(encoded) + len(payload) + 4
    prelude = total.to_bytes(4, "big") + len(encoded).to_bytes(4, "big")
    message = prelude + zlib.crc32(prelude).to_bytes(4, "big") + encoded + payload
    return message + zlib.crc32(message).to_bytes(4, "big")


def _chunk(sse_event: bytes) -> bytes:
    """An Anthropic SSE event (`event: ...\\ndata: {...}\\n\\n`) as Bedrock's `chunk` message."""
    data = next(line[6:] for line in sse_event.split(b"\n") if line.startswith(b"data: "))
    payload = json.dumps({"bytes": base64.b64encode(data).decode("ascii")}).encode()
    headers = {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}
    return event_stream_message(payload, headers)


class BedrockWire(AnthropicWire):
    """Anthropic's events in Bedrock's event stream."""

    content_type = EVENT_STREAM

    def stream_events(self, turn: ScriptedTurn, ctx: WireContext) -> list[bytes]:
        return [_chunk(event) for event in super().stream_events(turn, ctx) if b'"type":"ping"' not in event]

    def stream_error(self, fault: StreamError, ctx: WireContext, sequence_number: int) -> bytes:
        return _chunk(super().stream_error(fault, ctx, sequence_number))


@dataclass(frozen=True)
class CloudRoute:
    wire: WireFormat
    model: str


_WIRES: tuple[tuple[re.Pattern[str], WireFormat], ...] = (
    (_BEDROCK, BedrockWire()),
    (_VERTEX, AnthropicWire()),
    (_AZURE, OpenAIChatWire()),
)


def cloud_route(path: str) -> CloudRoute | None:
    """The wire and model of a cloud platform's path (query left out), if it is one."""
    for pattern, wire in _WIRES:
        if found := pattern.fullmatch(path):
            return CloudRoute(wire, found["model"])
    return None


def token_reply(number: int) -> bytes:
    """An OAuth token endpoint's answer: the `number`-th access token this server issued."""
    return json.dumps({"access_token": f"ya29.scripted-{number}", "expires_in": 3600, "token_type": "Bearer"}).encode()
