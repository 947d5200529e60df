"""What `jupyter prime -p` imports: only what a headless run in this process uses (design.md D10).

Every module imported before the first request is start-up time the user waits for, so the print path
must not pull in the terminal app, the server, kernels, the HTTP connection or the chat routes' models.
The run is a whole short task (prompt, answer, exit), so this also holds after the first request.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from kit.cli import cli_env, prime_command

from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess

_PROBE = """
import json, sys
from prime_jupyter.cli.__main__ import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(sys.modules)]))
"""

NOT_ON_THE_PRINT_PATH = (
    "textual",
    "prime_jupyter.cli.tui",  # the terminal app and its launcher
    "prime_jupyter.server",
    "jupyter_server",
    "tornado",
    "prime_jupyter.magics",
    "prime_jupyter.kernel",  # no `ipython` tool here: no kernel machinery
    "prime_jupyter.tools.ipython",
    "jupyter_client",
    "zmq",
    "IPython",
    "prime_jupyter.connection.http",  # attaching to a server
    "prime_jupyter.connection._transport",
    "prime_jupyter.connection._follower",
    "prime_jupyter.connection._discovery",
    "prime_jupyter.protocol.frames",  # the chat routes' vocabulary
    "prime_jupyter.protocol.mapper",
    "prime_jupyter.protocol.requests",
    "prime_jupyter.protocol.event_decoder",
    "prime_jupyter.connection.extensions",  # slash commands and renderers: front ends with a UI
    "prime_jupyter.protocol.shell",  # `!cmd`
    "prime_jupyter.tools.user_command",
    "prime_jupyter.tools.ask",  # nobody to answer
    "openai",  # the model speaks Anthropic's API
)


def test_a_print_run_imports_none_of_the_other_surfaces(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="hello")]))
    args = ["--model", "scripted/m1", "--tools", "bash,read,write,edit", "-p", "hi"]
    command = [*prime_command()[:1], "-c", _PROBE, *args]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=120, env=cli_env(agent_dir), cwd=agent_dir.parent
    )
    answer, report = done.stdout.splitlines()
    code, modules = json.loads(report)
    assert (code, answer) == (0, "hello"), done.stderr
    imported = [m for m in modules if any(m == name or m.startswith(name + ".") for name in NOT_ON_THE_PRINT_PATH)]
    assert imported == []
