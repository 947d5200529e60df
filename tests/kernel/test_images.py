from __future__ import annotations

import base64

from kit.images import png

from prime_jupyter.kernel.helpers import PREVIEW_KEY, jpeg_size
from prime_jupyter.kernel.images import image_size, model_image


def _png_b64(width: int, height: int) -> str:
    return base64.b64encode(png(width, height)).decode()


def _jpeg_header(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = b"\xff\xc0\x00\x11\x08" + height.to_bytes(2, "big") + width.to_bytes(2, "big") + b"\x03" + b"\x00" * 9
    return b"\xff\xd8" + app0 + sof0


def test_jpeg_size_is_read_from_the_frame_header() -> None:
    assert jpeg_size(_jpeg_header(3000, 2000)) == (3000, 2000)


def test_image_size_needs_only_the_start_of_the_data() -> None:
    assert image_size(_png_b64(1600, 2), "image/png") == (1600, 2)


def test_a_small_image_is_sent_as_is() -> None:
    data = _png_b64(10, 10)
    image = model_image({"image/png": data}, {}, number=1, accepts_images=True)
    assert image is not None and image.block is not None and image.block.data == data


def test_the_kernel_made_preview_is_sent_instead_of_the_original() -> None:
    preview = {"mimeType": "image/png", "data": "SMALL", "width": 1568, "height": 2}
    image = model_image({"image/png": _png_b64(2000, 2)}, {PREVIEW_KEY: preview}, number=1, accepts_images=True)
    assert image is not None and image.block is not None and image.block.data == "SMALL"
    assert "downscaled to 1568x2" in image.note


def test_an_oversized_image_without_preview_is_sent_with_a_note() -> None:
    metadata = {PREVIEW_KEY: {"unavailable": "Pillow is not installed in the kernel"}}
    jpeg = base64.b64encode(_jpeg_header(3000, 2000)).decode()
    image = model_image({"image/jpeg": jpeg}, metadata, number=1, accepts_images=True)
    assert image is not None and image.block is not None
    assert "could not be downscaled (Pillow is not installed in the kernel)" in image.note


def test_an_image_beyond_provider_limits_is_left_out() -> None:
    jpeg = base64.b64encode(_jpeg_header(9000, 100)).decode()
    image = model_image({"image/jpeg": jpeg}, {}, number=2, accepts_images=True)
    assert image is not None and image.block is None and "left out" in image.note


def test_bundles_without_images_are_not_images() -> None:
    assert model_image({"text/plain": "x"}, {}, number=1, accepts_images=True) is None


def test_the_kernels_preview_is_made_with_pillow_and_a_broken_image_says_why() -> None:
    from prime_jupyter.kernel import helpers

    preview = helpers._preview({"image/png": base64.b64encode(png(3200, 100)).decode()})
    assert preview is not None and (preview["width"], preview["height"], preview["original"]) == (1568, 49, [3200, 100])
    assert helpers.png_size(base64.b64decode(preview["data"])) == (1568, 49)
    broken = png(3200, 100)[:40]  # the header says 3200x100; the pixels are missing
    made = helpers._preview({"image/png": base64.b64encode(broken).decode()})
    assert made is not None
    assert made["unavailable"].startswith("cannot downscale 3200x100 image/png: Pillow cannot read it")
