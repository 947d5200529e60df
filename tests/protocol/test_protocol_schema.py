"""The committed JSON Schema is what the models export, and its revision is the recorded one."""

from __future__ import annotations

import json

from prime_jupyter.protocol.frames import FRAME_TYPES
from prime_jupyter.protocol.schema import SCHEMA_PATH, build_schema, render, schema_fingerprint
from prime_jupyter.protocol.version import SCHEMA_FINGERPRINTS, SCHEMA_REVISION

REGENERATE = "python -m prime_jupyter.protocol.schema"


def test_committed_schema_is_fresh() -> None:
    committed = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.exists() else ""
    assert committed == render(build_schema()), f"{SCHEMA_PATH.name} is stale: run `{REGENERATE}` and commit it"


def test_schema_changes_come_with_a_schema_revision() -> None:
    fingerprint = schema_fingerprint(build_schema())
    assert SCHEMA_FINGERPRINTS.get(SCHEMA_REVISION) == fingerprint, (
        f"the wire schema changed (fingerprint {fingerprint}): classify the change (version.py), bump "
        "SCHEMA_REVISION (or PROTOCOL_VERSION), record the fingerprint in SCHEMA_FINGERPRINTS, then "
        f"run `{REGENERATE}`"
    )


def test_fingerprints_of_revisions_differ() -> None:
    assert len(set(SCHEMA_FINGERPRINTS.values())) == len(SCHEMA_FINGERPRINTS)


def test_every_frame_type_is_in_the_schema_with_a_required_discriminator() -> None:
    defs = build_schema()["$defs"]
    assert isinstance(defs, dict)
    frames = defs["ChatFrame"]
    assert isinstance(frames, dict)
    mapping = frames["discriminator"]["mapping"]  # type: ignore[call-overload,index]
    assert set(mapping) == FRAME_TYPES
    for ref in mapping.values():
        definition = defs[ref.rsplit("/", 1)[-1]]
        assert "type" in definition["required"]  # type: ignore[call-overload,index,operator]


def test_schema_is_valid_json_with_versions() -> None:
    schema = json.loads(render(build_schema()))
    assert schema["protocolVersion"] == 1 and schema["schemaRevision"] == SCHEMA_REVISION
