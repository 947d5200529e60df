from __future__ import annotations

import time
import uuid

from prime_jupyter.sessions.ids import new_entry_id, uuid7


def test_uuid7_has_version_7_and_rfc_variant() -> None:
    value = uuid.UUID(uuid7())
    assert (value.version, value.variant) == (7, uuid.RFC_4122)


def test_uuid7_carries_the_current_millisecond() -> None:
    before = time.time_ns() // 1_000_000
    stamp = uuid.UUID(uuid7()).int >> 80
    assert before <= stamp <= time.time_ns() // 1_000_000 + 1


def test_uuid7_is_strictly_increasing_within_a_process() -> None:
    ids = [uuid7() for _ in range(5000)]
    assert ids == sorted(set(ids))


def test_entry_id_is_eight_hex_characters() -> None:
    entry_id = new_entry_id(set())
    assert len(entry_id) == 8 and int(entry_id, 16) >= 0


def test_entry_id_falls_back_to_a_full_uuid_when_every_short_id_is_taken() -> None:
    class Everything:
        def __contains__(self, item: object) -> bool:
            return len(str(item)) == 8

    assert uuid.UUID(new_entry_id(Everything())).version == 4
