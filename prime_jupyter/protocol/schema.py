"""The JSON Schema of the whole wire contract, exported to `schema.json` beside this module.

The panel's TypeScript types are generated from the committed file (design.md D3); a test fails when
it differs from a fresh export, and another when the export's fingerprint is not the one recorded for
`SCHEMA_REVISION` (`version.py`). Regenerate with:

    python -m prime_jupyter.protocol.schema

Every root type is a `$defs` entry named as in Python; unions (`ChatFrame`, `Command`, ...) are
`oneOf` + `discriminator`. Literal discriminators (`type`, `command`, `kind`) are marked required even
though Python gives them defaults, so generated types can narrow on them.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any, TypeAlias

from pydantic import JsonValue, TypeAdapter
from pydantic.json_schema import JsonSchemaMode

from prime_jupyter.protocol import chat_commands, connection_routes, providers, requests, shell, snapshot
from prime_jupyter.protocol.commands import Command
from prime_jupyter.protocol.frames import ChatFrame
from prime_jupyter.protocol.hydration import LiveRun
from prime_jupyter.protocol.parts import ChatMessage
from prime_jupyter.protocol.questions import Question, QuestionAnswer
from prime_jupyter.protocol.version import PROTOCOL_VERSION, SCHEMA_REVISION

__all__ = ["ROOTS", "SCHEMA_PATH", "build_schema", "main", "render", "schema_fingerprint"]

SCHEMA_PATH = Path(__file__).with_name("schema.json")
Schema: TypeAlias = dict[str, JsonValue]


def _connection_roots() -> dict[str, Any]:
    """The snapshot's models and the events stream's messages, sorted together as they were when both
    lived in `snapshot.py` (the order of `anyOf` in the export stays the same)."""
    names = {*snapshot.__all__, "SessionEventMessage", "SessionReplacedMessage"} - {"COMMAND_RESULTS"}
    return {name: getattr(snapshot if name in snapshot.__all__ else connection_routes, name) for name in sorted(names)}


ROOTS: dict[str, Any] = {
    "ChatFrame": ChatFrame,
    "ChatMessage": ChatMessage,
    "LiveRun": LiveRun,
    "Question": Question,
    "QuestionAnswer": QuestionAnswer,
    "ChatCommandRequest": chat_commands.ChatCommandRequest,
    "ChatCommandResponse": chat_commands.ChatCommandResponse,
    "Command": Command,
    "ConnectionOutbound": connection_routes.ConnectionOutbound,
    **{name: getattr(requests, name) for name in requests.__all__},
    **{name: getattr(providers, name) for name in providers.__all__ if name != "ProviderKind"},
    **_connection_roots(),
    **{name: getattr(connection_routes, name) for name in connection_routes.__all__ if not name.isupper()},
    **{name: getattr(shell, name) for name in shell.__all__ if not name.isupper()},
}
"""Every type that crosses the wire on its own; the order is that of `anyOf` in the export."""


def build_schema() -> Schema:
    inputs: list[tuple[str, JsonSchemaMode, TypeAdapter[Any]]] = [
        (name, "validation", TypeAdapter(kind)) for name, kind in ROOTS.items()
    ]
    by_key, top = TypeAdapter.json_schemas(inputs, ref_template="#/$defs/{model}")
    defs: dict[str, JsonValue] = dict(top.get("$defs", {}))
    for (name, _mode), root in by_key.items():
        if "$ref" not in root:
            defs[name] = root
    for definition in defs.values():
        _tidy(definition)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "prime-jupyter wire protocol",
        "protocolVersion": PROTOCOL_VERSION,
        "schemaRevision": SCHEMA_REVISION,
        "anyOf": [{"$ref": f"#/$defs/{name}"} for name in ROOTS],
        "$defs": dict(sorted(defs.items())),
    }


def _tidy(schema: JsonValue) -> None:
    """Drop property titles (noise in generated types) and require constant discriminators."""
    if isinstance(schema, list):
        for item in schema:
            _tidy(item)
        return
    if not isinstance(schema, dict):
        return
    properties = schema.get("properties")
    if isinstance(properties, dict):
        required = schema.setdefault("required", [])
        for key, prop in properties.items():
            if isinstance(prop, dict):
                prop.pop("title", None)
                if "const" in prop and isinstance(required, list) and key not in required:
                    required.insert(0, key)
    for value in schema.values():
        _tidy(value)


def schema_fingerprint(schema: Schema) -> str:
    """A short hash of the shape of the schema's definitions: versions, titles and descriptions (prose)
    are left out, so only a change a peer could notice changes it."""
    text = json.dumps(_shape(schema.get("$defs"), names=True), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _shape(schema: JsonValue, names: bool = False) -> JsonValue:
    """`schema` without prose; under `properties` / `$defs` the keys are names, kept whatever they are."""
    if isinstance(schema, list):
        return [_shape(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if names:
        return {k: _shape(v) for k, v in schema.items()}
    return {k: _shape(v, k in ("properties", "$defs")) for k, v in schema.items() if k not in ("title", "description")}


def render(schema: Schema) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    SCHEMA_PATH.write_text(render(build_schema()), encoding="utf-8")
    print(f"wrote {SCHEMA_PATH} (fingerprint {schema_fingerprint(build_schema())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
