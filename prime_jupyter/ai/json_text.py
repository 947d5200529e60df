"""JSON text that UTF-8 can always carry, even when a string holds half a character.

A Python string may hold a lone surrogate: a provider's `\\ud83d` escape whose other half came in the
next delta, or an undecodable byte of argv or a file name (Python decodes those with
`surrogateescape`). UTF-8 cannot encode it, so pydantic-core refuses to serialize it, and JSON
parsers (pydantic-core's included) refuse its `\\udXXX` escape. A transcript line, a frame or a
request body holding one would be lost or rejected. These helpers keep the fast path and, only when it
fails, repair the text: a surrogate pair split into two code points is joined back into its
character, and a lone surrogate becomes U+FFFD.
"""

from __future__ import annotations

import json

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

__all__ = ["json_text", "model_json", "well_formed"]


def well_formed(text: str) -> str:
    """`text` with surrogate pairs joined and lone surrogates replaced by U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def json_text(data: object) -> str:
    """Compact JSON of JSON-ready data, non-ASCII kept as is, always encodable as UTF-8."""
    return well_formed(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def model_json(model: BaseModel) -> str:
    """`model.model_dump_json(by_alias=True, exclude_none=True)`, repaired when a string is not well formed."""
    try:
        return model.model_dump_json(by_alias=True, exclude_none=True)
    except PydanticSerializationError:
        return json_text(model.model_dump(mode="json", by_alias=True, exclude_none=True))
