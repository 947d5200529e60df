"""What the kernel holds: its namespace summarised for the model, and what a run changed, with real kernels."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from prime_jupyter.kernel.launchers import shared_local_launcher
from prime_jupyter.kernel.namespace import changes, describe, read_namespace
from prime_jupyter.kernel.outputs import OutputAccumulator
from prime_jupyter.kernel.provisioner import IpythonKernelProvisioner
from prime_jupyter.protocol.events import Notify
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text, ToolCall


@pytest_asyncio.fixture
async def kernel(tmp_path: Path) -> AsyncIterator[IpythonKernelProvisioner]:
    provisioner = IpythonKernelProvisioner(shared_local_launcher(), tmp_path, bootstrap="")
    yield provisioner
    await provisioner.dispose()


async def run(provisioner: IpythonKernelProvisioner, code: str) -> str:
    ops = await provisioner.ensure()
    outputs = OutputAccumulator()
    reply = await ops.execute(code, outputs.add)
    assert reply.status == "ok", outputs.outputs()
    return "".join(str(o.get("text", "")) for o in outputs.outputs() if o.get("output_type") == "stream")


@pytest.mark.asyncio
async def test_the_summary_names_types_and_shapes_and_leaves_nothing_behind(kernel: IpythonKernelProvisioner) -> None:
    await run(
        kernel,
        "import pandas as pd, numpy as np\n"
        "df = pd.DataFrame({'visits': [1, 2, 3], 'spend': [1.5, 2.0, 3.25]})\n"
        "arr = np.zeros((4, 5))\nrows = [1, 2, 3]\nthreshold = 0.75\ndef score(x): return x\n",
    )
    names_before = await run(kernel, "print(sorted(k for k in globals() if not k.startswith('_')))")
    namespace = await read_namespace(await kernel.ensure())
    assert namespace is not None
    assert namespace["df"].label() == "DataFrame 3x2; visits: int64, spend: float64"
    assert namespace["arr"].label() == "ndarray 4x5 float64"
    assert namespace["rows"].label() == "list len 3"
    assert namespace["threshold"].label() == "float 0.75"
    assert namespace["score"].kind == "function"
    assert "pd" not in namespace  # modules are not listed
    assert await run(kernel, "print(sorted(k for k in globals() if not k.startswith('_')))") == names_before
    text = describe(namespace)
    assert "- df: DataFrame 3x2" in text and "The kernel holds 5 names" in text


@pytest.mark.asyncio
async def test_changes_tell_created_changed_and_deleted(kernel: IpythonKernelProvisioner) -> None:
    await run(kernel, "import pandas as pd\ndf = pd.DataFrame({'a': range(10)})\nmodel = 1\ngone = 2")
    before = await read_namespace(await kernel.ensure())
    await run(kernel, "df_clean = df[df.a > 3]\nmodel = 'fitted'\ndel gone")
    after = await read_namespace(await kernel.ensure())
    assert before is not None and after is not None
    found = changes(before, after)
    assert found.report() == "created `df_clean` (DataFrame 6x1); changed `model` (str len 6); deleted `gone`"


@pytest.mark.asyncio
async def test_a_run_tells_the_model_the_namespace_and_the_user_what_changed(
    tmp_path: Path, llm: ScriptedLLMServer
) -> None:
    home = tmp_path / "agent"
    home.mkdir()
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    (home / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 10}}))
    options = SessionOptions(cwd=tmp_path, model="scripted/m1", tools=["ipython"], agent_dir=home)
    session = create_agent_session(options)
    notes: list[str] = []
    session.subscribe(lambda e: notes.append(e.message) if isinstance(e, Notify) else None)
    try:
        code = "import pandas as pd\nsales = pd.DataFrame({'x': range(1203), 'y': 0})"
        llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": code})]))
        llm.enqueue(ScriptedTurn(blocks=[Text(text="loaded")]))
        await session.prompt("load the sales")
        assert notes == ["Kernel: created `sales` (DataFrame 1,203x2)"]
        llm.enqueue(ScriptedTurn(blocks=[Text(text="it has 1,203 rows")]))
        await session.prompt("how big is it?")
        request = json.dumps(llm.requests[-1].body)
        assert "sales: DataFrame 1,203x2; x: int64, y: int64" in request
        llm.enqueue(ScriptedTurn(blocks=[Text(text="same")]))
        await session.prompt("and now?")
        # unchanged since the model was told: not told again
        assert json.dumps(llm.requests[-1].body).count("The kernel holds") == 1
        assert notes == ["Kernel: created `sales` (DataFrame 1,203x2)"]
    finally:
        await session.dispose()
