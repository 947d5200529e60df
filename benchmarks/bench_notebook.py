"""The notebook tools, measured as the user waits for them.

    python benchmarks/bench_notebook.py [--runs 5] [--cells 50] [--gb 1.0]

1. `notebook_run` of a notebook of `--cells` small code cells (each saved into the file as it finishes),
   against `jupyter nbconvert --execute --to notebook --inplace` of the same notebook, and against
   nbclient in this process (what nbconvert runs, without its process start-up). Kernel start is
   included on every side: ours starts a fresh kernel for each run, as a first `notebook_run` does.
   Target: ours / nbconvert <= 1.0.
2. `notebook_read` of a 500-cell notebook: the characters the model gets, against the read budget.
3. The namespace summary of a kernel holding 1,000 names and a DataFrame of `--gb` GB: median time, and
   the kernel's peak RSS before and after (a copy of the data would raise it by the frame's size).
   Target: <= 50 ms, no copy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from prime_jupyter.ai.abort import AbortController
from prime_jupyter.kernel.launchers import shared_local_launcher
from prime_jupyter.kernel.namespace import read_namespace
from prime_jupyter.kernel.outputs import OutputAccumulator
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
from prime_jupyter.notebooks.kernels import LocalNotebookKernels
from prime_jupyter.notebooks.render import MAX_READ_CHARS
from prime_jupyter.notebooks.store import DiskNotebookStore
from prime_jupyter.notebooks.workspace import NotebookWorkspace
from prime_jupyter.tools.notebook_read import NotebookReadParams, make_notebook_read_tool
from prime_jupyter.tools.notebook_run import NotebookRunParams, make_notebook_run_tool


def _notebook(path: Path, cells: int) -> None:
    sources = ["import math\ntotal = 0"] + [
        f"total += math.sqrt({i})\nprint({i}, round(total, 3))" for i in range(cells - 1)
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def _workspace(folder: Path) -> NotebookWorkspace:
    return NotebookWorkspace(DiskNotebookStore(str(folder)), LocalNotebookKernels(shared_local_launcher()))


async def _ours(folder: Path, cells: int) -> float:
    _notebook(folder / "run.ipynb", cells)
    workspace = _workspace(folder)
    tool = make_notebook_run_tool(workspace, accepts_images=True)
    started = time.perf_counter()
    result = await tool.execute("b", NotebookRunParams(path="run.ipynb"), AbortController().signal, lambda _: None)
    took = time.perf_counter() - started
    await workspace.dispose()
    assert not result.is_error, result.content
    saved = nbformat.read(folder / "run.ipynb", as_version=4)
    assert all(cell.outputs or i == 0 for i, cell in enumerate(saved.cells)), "outputs missing"
    return took


def _nbconvert(folder: Path, cells: int) -> float:
    _notebook(folder / "convert.ipynb", cells)
    jupyter = shutil.which("jupyter", path=str(Path(sys.executable).parent)) or "jupyter"
    command = [jupyter, "nbconvert", "--execute", "--to", "notebook", "--inplace", str(folder / "convert.ipynb")]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def _nbclient(folder: Path, cells: int) -> float:
    from nbclient import NotebookClient

    _notebook(folder / "client.ipynb", cells)
    started = time.perf_counter()
    nb = nbformat.read(folder / "client.ipynb", as_version=4)
    NotebookClient(nb, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    nbformat.write(nb, folder / "client.ipynb")
    return time.perf_counter() - started


async def _read_budget(folder: Path) -> tuple[int, int]:
    sources = [f"value_{i} = {i} * 2  # " + "x" * 200 for i in range(500)]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nbformat.write(nb, folder / "big.ipynb")
    workspace = _workspace(folder)
    tool = make_notebook_read_tool(workspace, accepts_images=True)
    result = await tool.execute("b", NotebookReadParams(path="big.ipynb"), AbortController().signal, lambda _: None)
    details = result.details
    shown = len(details["cells"]) if isinstance(details, dict) and isinstance(details["cells"], list) else 0
    text = "".join(getattr(block, "text", "") for block in result.content)
    return len(text), shown


async def _kernel_run(provisioner: IpythonKernelProvisioner, code: str) -> str:
    outputs = OutputAccumulator()
    reply = await (await provisioner.ensure()).execute(code, outputs.add)
    assert reply.status == "ok", outputs.outputs()
    return "".join(str(o.get("text", "")) for o in outputs.outputs() if o.get("output_type") == "stream")


async def _namespace(folder: Path, gb: float, runs: int) -> tuple[float, int, int, int]:
    provisioner = IpythonKernelProvisioner(shared_local_launcher(), folder, bootstrap="")
    try:
        rows = int(gb * 1024**3 / 8 / 16)
        await _kernel_run(
            provisioner,
            "import numpy as np, pandas as pd\n"
            f"big = pd.DataFrame(np.ones(({rows}, 16)), columns=[f'c{{i}}' for i in range(16)])\n"
            "for i in range(999):\n    globals()[f'v{i}'] = i\n",
        )
        peak = "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
        before = int(await _kernel_run(provisioner, peak))
        times: list[float] = []
        names = 0
        for _ in range(runs):
            ops = await provisioner.ensure()
            started = time.perf_counter()
            namespace = await read_namespace(ops)
            times.append(time.perf_counter() - started)
            names = len(namespace or {})
        after = int(await _kernel_run(provisioner, peak))
        return statistics.median(times), names, before, after
    finally:
        await provisioner.dispose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cells", type=int, default=50)
    parser.add_argument("--gb", type=float, default=1.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ours, convert, client = [], [], []
        for run in range(args.runs):  # interleaved, so the machine's load falls on every side alike
            ours.append(await _ours(folder, args.cells))
            convert.append(_nbconvert(folder, args.cells))
            client.append(await asyncio.to_thread(_nbclient, folder, args.cells))
            print(
                f"run {run + 1}: ours {ours[-1]:.3f} s, nbconvert {convert[-1]:.3f} s, nbclient {client[-1]:.3f} s",
                file=sys.stderr,
            )
        mine, theirs, nbc = statistics.median(ours), statistics.median(convert), statistics.median(client)
        chars, shown = await _read_budget(folder)
        took, names, before, after = await _namespace(folder, args.gb, max(args.runs, 20))
    figures = {
        f"notebook_run of {args.cells} cells, median s": round(mine, 3),
        "jupyter nbconvert --execute, median s": round(theirs, 3),
        "nbclient in process, median s": round(nbc, 3),
        "ours / nbconvert (target <= 1.0)": round(mine / theirs, 2),
        "ours / nbclient": round(mine / nbc, 2),
        "notebook_read of 500 cells: characters (budget)": f"{chars:,} ({MAX_READ_CHARS:,})",
        "notebook_read of 500 cells: cells shown in full": shown,
        f"namespace summary, {names} names + {args.gb:g} GB DataFrame, median ms (target <= 50)": round(took * 1000, 1),
        "kernel peak RSS before / after the summaries, MB": f"{before / 1024:,.0f} / {after / 1024:,.0f}",
    }
    width = max(len(k) for k in figures)
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")
    print(json.dumps(figures))


if __name__ == "__main__":
    asyncio.run(main())
