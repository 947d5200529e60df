"""The notebook tools on a notebook open in a collaborative room, measured where they hold the server's
event loop (every room operation is synchronous pycrdt work on it).

    python benchmarks/bench_collab.py [--cells 500] [--images 50] [--image-kb 100] [--runs 7]

A notebook of `--cells` code cells, `--images` of them with a PNG output of `--image-kb` kB, the rest with
a line of stdout, in a jupyter_ydoc `YNotebook` (what a room holds). Median milliseconds of:

1. reading it (`read_document`: what every `notebook_read`, `notebook_edit` and each cell of
   `notebook_run` starts with);
2. applying one edit (`apply_to_document` of an insert: the cell-level diff of the whole notebook);
3. writing one cell's outputs (`CollabNotebookStore.write_outputs`: each of a running cell's live saves,
   a few a second, and its final one).

Needs the collab extra (`pip install 'prime-jupyter[collab]'`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

import nbformat
from jupyter_server.services.contents.filemanager import AsyncFileContentsManager
from jupyter_ydoc import YNotebook

from prime_jupyter.notebooks.cells import Edit, apply_edits, ensure_ids
from prime_jupyter.notebooks.collab import CollabNotebookStore, apply_to_document, read_document
from prime_jupyter.notebooks.contents import ContentsNotebookStore


def _room(cells: int, images: int, image_kb: int) -> YNotebook:
    png = base64.b64encode(os.urandom(image_kb * 750)).decode()  # base64 makes 4 characters of 3 bytes
    every = max(1, cells // max(1, images))
    made = []
    for i in range(cells):
        cell = nbformat.v4.new_code_cell(f"x{i} = {i}\nprint(x{i})")
        if images and i % every == 0 and i // every < images:
            cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"})]
        else:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"{i}\n")]
        made.append(cell)
    room = YNotebook()
    room.set(nbformat.from_dict(nbformat.v4.new_notebook(cells=made)))
    return room


def _median_ms(runs: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


class _Rooms:
    def __init__(self, room: YNotebook) -> None:
        self.room = room

    async def document(self, path: str) -> Any | None:
        return self.room


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=int, default=500)
    parser.add_argument("--images", type=int, default=50)
    parser.add_argument("--image-kb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    room = _room(args.cells, args.images, args.image_kb)
    first = str(read_document(room)["cells"][0]["id"])

    def edit() -> None:
        content = read_document(room)
        ensure_ids(content)
        changed, _ = apply_edits(content, [Edit("insert", after=first, source="y = 1")], {})
        apply_to_document(room, changed)

    with tempfile.TemporaryDirectory() as root:
        contents = ContentsNotebookStore(AsyncFileContentsManager(root_dir=root), root_dir=root, cwd=root)
        store = CollabNotebookStore(contents, _Rooms(room))
        stream = [{"output_type": "stream", "name": "stdout", "text": "tick\n" * 20}]

        def write() -> None:
            asyncio.run(store.write_outputs("nb.ipynb", first, stream, 1))

        figures = {
            "read_document, ms": _median_ms(args.runs, lambda: read_document(room)),
            "read + apply one insert, ms": _median_ms(args.runs, edit),
            "write_outputs of one cell (with asyncio.run), ms": _median_ms(args.runs, write),
        }
    print(f"{args.cells} cells, {args.images} with a {args.image_kb} kB image:")
    for name, value in figures.items():
        print(f"  {name}: {value:.1f}")


if __name__ == "__main__":
    main()
