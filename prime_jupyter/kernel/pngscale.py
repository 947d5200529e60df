"""Pure-Python PNG downscaling (zlib only), the fallback for kernels without Pillow.

KERNEL-SIDE: this file is sent to the kernel as source by the bootstrap cell and must use the standard
library only. It also imports fine on the host, which is how it is tested.

Decodes non-interlaced PNGs of any colour type (bit depths 1-16), shrinks them with an area average
(separable box filter over prefix sums, so the per-pixel work runs in C through `map`/`itertools`) and
encodes 8-bit PNGs. Row unfiltering is the slow part (the Average and Paeth filters are sequential
per byte), so callers pass a time budget and get `None` back when it runs out.
"""

from __future__ import annotations

import functools
import itertools
import operator
import struct
import time
import zlib
from collections.abc import Callable

__all__ = ["downscale_png", "encode_png", "png_size"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


class _Budget(Exception):
    """The time budget ran out."""


def png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the IHDR chunk, or None when `data` is not a PNG."""
    if len(data) < 24 or not data.startswith(_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def downscale_png(data: bytes, max_side: int, budget_s: float = 5.0) -> tuple[bytes, int, int] | None:
    """Shrink so the longer side is at most `max_side`: (png, width, height), or None if not possible."""
    try:
        width, height, channels, rows = _decode(data, time.monotonic() + budget_s)
    except (_Budget, ValueError, zlib.error, struct.error, KeyError, IndexError):
        return None
    scale = max_side / max(width, height)
    if scale >= 1:
        return None
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    small = _resize(rows, width, height, channels, new_w, new_h)
    return encode_png(small, new_w, new_h, channels), new_w, new_h


def encode_png(rows: list[bytes], width: int, height: int, channels: int) -> bytes:
    """An 8-bit PNG of `rows` (filter type None on every row)."""
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    raw = b"".join(b"\x00" + row for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6)) + _chunk(b"IEND", b"")


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _decode(data: bytes, deadline: float) -> tuple[int, int, int, list[bytes]]:
    chunks = _chunks(data)
    width, height, depth, color_type, _c, _f, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"][0])
    if interlace:
        raise ValueError("interlaced PNG")
    channels = _CHANNELS[color_type]
    bits = channels * depth
    stride, bpp = (width * bits + 7) // 8, max(1, bits // 8)
    raw = zlib.decompress(b"".join(chunks.get(b"IDAT", [])))
    rows = _unfilter(raw, height, stride, bpp, deadline)
    to8 = _to_8bit(depth, color_type, width, chunks)
    out_channels = channels if color_type != 3 else (4 if b"tRNS" in chunks else 3)
    return width, height, out_channels, [to8(row) for row in rows]


def _chunks(data: bytes) -> dict[bytes, list[bytes]]:
    if not data.startswith(_SIGNATURE):
        raise ValueError("not a PNG")
    chunks: dict[bytes, list[bytes]] = {}
    pos = len(_SIGNATURE)
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        chunks.setdefault(kind, []).append(data[pos + 8 : pos + 8 + length])
        pos += 12 + length
        if kind == b"IEND":
            break
    return chunks


def _unfilter(raw: bytes, height: int, stride: int, bpp: int, deadline: float) -> list[bytes]:
    prior = bytes(stride)
    rows: list[bytes] = []
    for y in range(height):
        start = y * (stride + 1)
        kind, row = raw[start], raw[start + 1 : start + 1 + stride]
        if len(row) != stride:
            raise ValueError("truncated image data")
        prior = _UNFILTERS[kind](row, prior, bpp) if kind else row
        rows.append(prior)
        if y % 32 == 0 and time.monotonic() > deadline:
            raise _Budget
    return rows


@functools.lru_cache(maxsize=8)
def _masks(size: int) -> tuple[int, int]:
    return int.from_bytes(b"\x7f" * size, "little"), int.from_bytes(b"\x80" * size, "little")


def _swar_add(a: int, b: int, size: int) -> int:
    """Bytewise (a + b) mod 256 of two little-endian byte strings held as ints (no carry across bytes)."""
    low, high = _masks(size)
    return ((a & low) + (b & low)) ^ ((a ^ b) & high)


def _sub(row: bytes, _prior: bytes, bpp: int) -> bytes:
    size = len(row)
    value, mask, shift = int.from_bytes(row, "little"), (1 << 8 * size) - 1, bpp
    while shift < size:  # prefix sum by doubling: log2(size / bpp) wide additions
        value = _swar_add(value, (value << 8 * shift) & mask, size)
        shift *= 2
    return value.to_bytes(size, "little")


def _up(row: bytes, prior: bytes, _bpp: int) -> bytes:
    size = len(row)
    return _swar_add(int.from_bytes(row, "little"), int.from_bytes(prior, "little"), size).to_bytes(size, "little")


def _average(row: bytes, prior: bytes, bpp: int) -> bytes:
    out = bytearray(row)
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        out[i] = (out[i] + ((left + prior[i]) >> 1)) & 255
    return bytes(out)


def _paeth(row: bytes, prior: bytes, bpp: int) -> bytes:
    out = bytearray(row)
    for i in range(bpp):
        out[i] = (out[i] + prior[i]) & 255
    for i in range(bpp, len(out)):
        a, b, c = out[i - bpp], prior[i], prior[i - bpp]
        pa, pb = abs(b - c), abs(a - c)
        pc = abs(a + b - c - c)
        out[i] = (out[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    return bytes(out)


_UNFILTERS = {1: _sub, 2: _up, 3: _average, 4: _paeth}


def _to_8bit(depth: int, color_type: int, width: int, chunks: dict[bytes, list[bytes]]) -> Callable[[bytes], bytes]:
    """A function turning one unfiltered row into 8-bit samples (palette expanded to RGB or RGBA)."""
    if depth == 16:
        return lambda row: row[0::2]
    unpack = _bit_unpacker(depth, width, scale=color_type != 3)
    if color_type != 3:
        return unpack
    palette = chunks[b"PLTE"][0]
    alpha = chunks[b"tRNS"][0] if b"tRNS" in chunks else None
    tables = [bytes(palette[i * 3 + c] if i * 3 + c < len(palette) else 0 for i in range(256)) for c in range(3)]
    if alpha is not None:
        tables.append(bytes(alpha[i] if i < len(alpha) else 255 for i in range(256)))

    def expand(row: bytes) -> bytes:
        indices = unpack(row)
        out = bytearray(len(indices) * len(tables))
        for c, table in enumerate(tables):
            out[c :: len(tables)] = indices.translate(table)
        return bytes(out)

    return expand


def _bit_unpacker(depth: int, width: int, *, scale: bool) -> Callable[[bytes], bytes]:
    if depth == 8:
        return lambda row: row
    per_byte, top = 8 // depth, (1 << depth) - 1
    factor = 255 // top if scale else 1
    table = [bytes(((byte >> (8 - depth * (k + 1))) & top) * factor for k in range(per_byte)) for byte in range(256)]
    return lambda row: b"".join([table[byte] for byte in row])[:width]


def _spans(source: int, target: int) -> list[tuple[int, int]]:
    return [(i * source // target, max((i + 1) * source // target, i * source // target + 1)) for i in range(target)]


def _resize(rows: list[bytes], width: int, height: int, channels: int, new_w: int, new_h: int) -> list[bytes]:
    columns = _spans(width, new_w)
    starts = operator.itemgetter(*[start for start, _ in columns])
    ends = operator.itemgetter(*[end for _, end in columns])
    out: list[bytes] = []
    for top, bottom in _spans(height, new_h):
        summed: list[int] = list(rows[top])
        for row in rows[top + 1 : bottom]:
            summed = list(map(operator.add, summed, row))
        counts = [(end - start) * (bottom - top) for start, end in columns]
        line = bytearray(new_w * channels)
        for c in range(channels):
            prefix = list(itertools.accumulate(summed[c::channels], initial=0))
            sums = map(operator.sub, _as_tuple(ends(prefix)), _as_tuple(starts(prefix)))
            line[c::channels] = bytes(map(operator.floordiv, sums, counts))
        out.append(bytes(line))
    return out


def _as_tuple(value: object) -> tuple[int, ...]:
    return value if isinstance(value, tuple) else (value,)
