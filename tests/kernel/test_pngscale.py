from __future__ import annotations

import struct
import zlib

import pytest

from prime_jupyter.kernel import pngscale
from prime_jupyter.kernel.pngscale import downscale_png, encode_png, png_size


def _reference_filter(rows: list[bytes], bpp: int, kinds: list[int]) -> bytes:
    """Filter rows the way the PNG spec defines it (slow, obviously correct)."""
    out, prior = [], bytes(len(rows[0]))
    for y, row in enumerate(rows):
        kind = kinds[y % len(kinds)]
        filtered = bytearray()
        for i, value in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b, c = prior[i], prior[i - bpp] if i >= bpp else 0
            p = a + b - c
            paeth = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c
            predictor = [0, a, b, (a + b) >> 1, paeth][kind]
            filtered.append((value - predictor) & 255)
        out.append(bytes([kind]) + bytes(filtered))
        prior = row
    return b"".join(out)


def _png(raw: bytes, width: int, height: int, depth: int, color_type: int, extra: bytes = b"") -> bytes:
    header = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + pngscale._chunk(b"IHDR", header)
        + extra
        + pngscale._chunk(b"IDAT", zlib.compress(raw))
        + pngscale._chunk(b"IEND", b"")
    )


def _pixels(width: int, height: int, channels: int) -> list[bytes]:
    return [
        bytes((x * 7 + y * 13 + c * 101) % 256 for x in range(width) for c in range(channels)) for y in range(height)
    ]


def _decode(data: bytes) -> tuple[int, int, int, list[bytes]]:
    return pngscale._decode(data, float("inf"))


@pytest.mark.parametrize("color_type,channels", [(0, 1), (2, 3), (4, 2), (6, 4)])
def test_every_filter_type_decodes_to_the_original_pixels(color_type: int, channels: int) -> None:
    rows = _pixels(33, 10, channels)
    data = _png(_reference_filter(rows, channels, [0, 1, 2, 3, 4]), 33, 10, 8, color_type)
    assert _decode(data) == (33, 10, channels, rows)


def test_sixteen_bit_samples_keep_their_high_byte() -> None:
    rows = [bytes([200, 1, 100, 2, 50, 3]), bytes([10, 9, 20, 8, 30, 7])]
    data = _png(_reference_filter(rows, 6, [0, 2]), 1, 2, 16, 2)
    assert _decode(data)[3] == [bytes([200, 100, 50]), bytes([10, 20, 30])]


def test_palette_images_expand_to_rgba_with_their_transparency() -> None:
    palette = bytes([255, 0, 0, 0, 255, 0])
    extra = pngscale._chunk(b"PLTE", palette) + pngscale._chunk(b"tRNS", bytes([128]))
    data = _png(b"\x00" + bytes([0b01000000]), 2, 1, 1, 3, extra)  # 1-bit indices: 0, 1
    assert _decode(data)[2:] == (4, [bytes([255, 0, 0, 128, 0, 255, 0, 255])])


def test_low_bit_depth_gray_scales_to_full_range() -> None:
    data = _png(b"\x00" + bytes([0b00011011]), 4, 1, 2, 0)
    assert _decode(data)[3] == [bytes([0, 85, 170, 255])]


def test_downscale_keeps_the_aspect_and_averages_pixels() -> None:
    rows = [bytes([0, 0, 0, 255, 255, 255] * 2000)] * 10  # 4000 px wide, black/white columns
    small, width, height = downscale_png(encode_png(rows, 4000, 10, 3), 1000)  # type: ignore[misc]
    assert (width, height) == (1000, 2)
    assert set(_decode(small)[3][0]) == {127}  # each output pixel covers 2 black and 2 white ones


def test_a_small_image_is_not_touched() -> None:
    assert downscale_png(encode_png([b"\x00\x00\x00"], 1, 1, 3), 100) is None


def test_an_exhausted_time_budget_gives_up() -> None:
    rows = _pixels(2000, 50, 3)
    data = _png(_reference_filter(rows, 3, [4]), 2000, 50, 8, 2)
    assert downscale_png(data, 100, budget_s=0.0) is None


def test_interlaced_images_are_not_decoded() -> None:
    header = struct.pack(">IIBBBBB", 2000, 1, 8, 2, 0, 0, 1)
    data = b"\x89PNG\r\n\x1a\n" + pngscale._chunk(b"IHDR", header) + pngscale._chunk(b"IEND", b"")
    assert downscale_png(data, 100) is None


def test_png_size_reads_the_header_only() -> None:
    assert png_size(encode_png([b"\x00"] * 3, 1, 3, 1)[:24]) == (1, 3)
    assert png_size(b"GIF89a") is None
