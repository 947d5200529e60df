"""The provider SDKs imported light (`providers._sdk_import`): the streaming path leaves their types
unimported, and everything else in the process still gets the whole SDK when it asks for it.

Each check runs in a fresh interpreter: which modules are imported is the point."""

from __future__ import annotations

import json
import subprocess
import sys

from prime_jupyter.ai.providers._sdk_import import _import_table
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

_LIGHT = """
import sys
from prime_jupyter.ai.providers import anthropic as a, _openai_common as o
a._sdk(); o._sdk()
"""


def _run(code: str) -> dict[str, object]:
    """Run `code` in a fresh interpreter; it prints one JSON object, returned here."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_streaming_path_leaves_most_of_the_sdks_unimported() -> None:
    out = _run(
        _LIGHT + "import json; print(json.dumps({'names': [n for n in sys.modules if n.split('.')[0] == 'anthropic'],"
        "'full': 'anthropic.resources' in sys.modules or 'anthropic.lib.vertex' in sys.modules}))"
    )
    assert out["full"] is False
    full = _run(
        "import anthropic, sys, json; print(json.dumps(len([n for n in sys.modules if n.startswith('anthropic')])))"
    )
    assert isinstance(out["names"], list) and len(out["names"]) * 2 < int(full)  # type: ignore[call-overload]


def test_after_the_light_import_the_whole_sdk_works_for_any_later_use(llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="hello there")]), ScriptedTurn(blocks=[Text(text="and you")]))
    code = (
        _LIGHT
        + f"""
import json, anthropic, openai
from anthropic.types import *
from anthropic.types.beta import BetaMessage
client = anthropic.Anthropic(api_key="k", base_url={llm.base_url!r}, max_retries=0)
with client.messages.stream(model="m", max_tokens=10, messages=[{{"role": "user", "content": "hi"}}]) as stream:
    message = stream.get_final_message()
chat = openai.OpenAI(api_key="k", base_url={llm.base_url + "/v1"!r}, max_retries=0).chat.completions.create(
    model="m", messages=[{{"role": "user", "content": "hi"}}], stream=True)
text = "".join(chunk.choices[0].delta.content or "" for chunk in chat if chunk.choices)
print(json.dumps({{
    "message": str(isinstance(message, anthropic.types.Message)) + ":" + message.content[0].text, "chat": text,
    "star": "Message" in dir() and "TextBlock" in dir(), "beta": BetaMessage.__module__,
    "names": sorted(dir(anthropic.types)), "module": anthropic.APIStatusError.__module__,
}}))
"""
    )
    out = _run(code)
    plain = _run("import anthropic, json; print(json.dumps({'names': sorted(dir(anthropic.types))}))")
    assert out["message"] == "True:hello there" and out["chat"] == "and you"
    assert out["star"] is True and out["beta"] == "anthropic.types.beta.beta_message"
    assert out["names"] == plain["names"] and out["module"] == "anthropic"


def test_only_an_init_of_plain_relative_imports_is_read_name_by_name() -> None:
    source = (
        '"""Doc."""\nfrom __future__ import annotations\n\n'
        "from .a import A as A\nfrom .b import (\n    B,  # why\n    C as D,\n)\nfrom . import sub\n"
    )
    assert _import_table(source) == {"A": ("a", "A"), "B": ("b", "B"), "D": ("b", "C"), "sub": ("", "sub")}
    assert _import_table("from .a import A\n_setup()\n") is None
    assert _import_table("from .a import A\nimport os\n") is None
    assert _import_table("from .a import *\n") is None
