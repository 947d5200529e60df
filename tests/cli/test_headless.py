"""`jupyter prime` print and JSON modes, end to end in a subprocess against the scripted server."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from kit.cli import ROOT, left_in_group, prime

from prime_jupyter.sessions.entries import MessageEntry
from prime_jupyter.sessions.manager import SessionManager
from prime_jupyter.testing import HttpError, ScriptedLLMServer, ScriptedTurn, Text, ToolCall
from prime_jupyter.testing.jsonl import json_lines, lines

pytestmark = pytest.mark.e2e  # `jupyter prime` runs as a subprocess


def test_print_mode_prints_the_final_answer(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="The answer is 42.", chunks=5)]))
    done = prime(agent_dir, "--model", "scripted/m1", "-p", "what is the answer?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The answer is 42.\n"
    body = llm.requests[0].body
    assert isinstance(body, dict) and "what is the answer?" in json.dumps(body["messages"])


def test_json_mode_streams_events_and_tool_updates(agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path) -> None:
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "echo one; sleep 0.3; echo two"})]),
        ScriptedTurn(blocks=[Text(text="printed one and two", chunks=3)]),
    )
    done = prime(agent_dir, "--model", "scripted/m1", "--tools", "bash,read", "--mode", "json", "-p", "run it")
    assert done.returncode == 0, done.stderr
    lines = json_lines(done.stdout)
    assert lines[0]["type"] == "session" and lines[0]["id"]
    types = [line["type"] for line in lines[1:]]
    assert types[0] == "agent_start" and types[-1] == "agent_end"
    updates = [line for line in lines if line["type"] == "tool_execution_update"]
    assert updates and "one" in updates[0]["partialResult"]["content"][0]["text"]
    deltas = [
        line["assistantMessageEvent"]["delta"]
        for line in lines
        if line["type"] == "message_update" and line["assistantMessageEvent"]["type"] == "text_delta"
    ]
    assert "".join(deltas) == "printed one and two"
    end = next(line for line in lines if line["type"] == "tool_execution_end")
    assert "two" in end["result"]["content"][0]["text"] and end["isError"] is False


def test_a_failed_run_exits_non_zero_with_one_line(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="x")], fault=HttpError(status=400, message="invalid thing")))
    done = prime(agent_dir, "--model", "scripted/m1", "-p", "hi")
    assert done.returncode == 1
    error, session = lines(done.stderr)
    assert error.startswith("error:") and "invalid thing" in error and session.startswith("prime: session ")
    json_run = prime(agent_dir, "--model", "scripted/m1", "--mode", "json", "-p", "hi")
    assert json_run.returncode == 1  # the scripted queue is empty: the server answers 500, retried, then fails


def test_missing_key_names_the_variable_and_file(agent_dir: Path) -> None:
    done = prime(agent_dir, "--model", "anthropic/claude-sonnet-5-5", "-p", "hi")
    assert done.returncode == 1
    assert "ANTHROPIC_API_KEY" in done.stderr and "auth.json" in done.stderr


def test_unknown_model_of_a_known_provider_runs_with_a_warning(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="fine")]))
    done = prime(agent_dir, "--model", "scripted/brand-new-model", "-p", "hi")
    assert done.returncode == 0 and done.stdout == "fine\n"
    assert "brand-new-model" in done.stderr and "conservative defaults" in done.stderr
    assert llm.requests[0].body["model"] == "brand-new-model"  # type: ignore[index]
    unknown = prime(agent_dir, "--model", "nowhere/x", "-p", "hi")
    assert unknown.returncode == 1 and "unknown provider 'nowhere'" in unknown.stderr


def test_stdin_and_at_files_are_merged_into_the_prompt(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    (agent_dir.parent / "notes.txt").write_text("NOTE-CONTENT")
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    done = prime(agent_dir, "--model", "scripted-openai/m2", "-p", "summarise", "@notes.txt", stdin="PIPED-INPUT")
    assert done.returncode == 0, done.stderr
    sent = json.dumps(llm.requests[0].body)
    assert "summarise" in sent and "NOTE-CONTENT" in sent and "PIPED-INPUT" in sent
    missing = prime(agent_dir, "-p", "x", "@nope.txt")
    assert missing.returncode == 2 and "nope.txt" in missing.stderr


def test_an_at_file_that_is_no_regular_file_is_refused_at_once(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    """Regression (issue 27, item 4): `@fifo` never returned, `@/dev/zero` ended in a MemoryError."""
    os.mkfifo(agent_dir.parent / "pipe")
    for word in ("@pipe", "@/dev/zero"):
        done = prime(agent_dir, "-p", "x", word)
        assert done.returncode == 2 and "not a regular file" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert llm.requests == []


def test_continue_and_resume_carry_the_conversation(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="first answer")]), ScriptedTurn(blocks=[Text(text="second")]))
    assert prime(agent_dir, "--model", "scripted/m1", "-p", "first question").returncode == 0
    done = prime(agent_dir, "-c", "-p", "follow on")
    assert done.returncode == 0, done.stderr
    sent = json.dumps(llm.requests[1].body["messages"])  # type: ignore[index]
    assert "first question" in sent and "first answer" in sent and "follow on" in sent
    files = list((agent_dir / "sessions").glob("*.jsonl"))
    assert len(files) == 1
    llm.enqueue(ScriptedTurn(blocks=[Text(text="third")]))
    prefix = files[0].stem.replace("-", "")[:10]
    resumed = prime(agent_dir, "-r", prefix, "-p", "third question")
    assert resumed.returncode == 0, resumed.stderr
    assert "follow on" in json.dumps(llm.requests[2].body["messages"])  # type: ignore[index]
    bad = prime(agent_dir, "-r", "ffffffffffff", "-p", "x")
    assert bad.returncode == 1 and "ffffffffffff" in bad.stderr


def test_json_mode_starts_with_the_header_of_the_session_it_continues(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="one")]), ScriptedTurn(blocks=[Text(text="two")]))
    first = prime(agent_dir, "--model", "scripted/m1", "--mode", "json", "-p", "first")
    second = prime(agent_dir, "-c", "--mode", "json", "-p", "second")
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    headers = [json_lines(done.stdout)[0] for done in (first, second)]
    (path,) = (agent_dir / "sessions").glob("*.jsonl")
    assert headers[0] == headers[1] == json_lines(path.read_text())[0]


def test_no_session_writes_nothing(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    assert prime(agent_dir, "--model", "scripted/m1", "--no-session", "-p", "hi").returncode == 0
    assert not list((agent_dir / "sessions").glob("*.jsonl")) if (agent_dir / "sessions").exists() else True


def test_without_a_prompt_it_prints_usage(agent_dir: Path) -> None:
    done = prime(agent_dir)
    assert done.returncode == 2 and "usage: jupyter prime" in done.stderr


def test_the_cli_imports_no_server_and_no_provider_sdk(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    code = (
        "import sys; from prime_jupyter.cli.__main__ import main; sys.argv=['x'];"
        "rc = main(['--model','scripted-openai/m2','--tools','read','-p','hi']);"
        "heavy = ('jupyter_server','anthropic','openai','aiohttp','textual','jupyter_client');"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    environment = {**os.environ, "PRIME_AGENT_DIR": str(agent_dir), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=60)
    assert done.returncode == 0, done.stderr
    assert lines(done.stdout)[-1] == "[]"  # the providers speak the APIs over httpx (`ai.providers._client`)


def test_a_headless_run_leaves_the_chat_routes_vocabulary_unimported(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    """The panel's frames, requests and hydration cost a launch more than they are worth to it."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text="ok")]))
    code = (
        "import sys; from prime_jupyter.cli.__main__ import main;"
        "rc = main(['--model','scripted/m1','--tools','read,bash','--mode','json','-p','hi']);"
        "print(sorted(m.rpartition('.')[2] for m in sys.modules if m.startswith('prime_jupyter.protocol.')))"
    )
    environment = {**os.environ, "PRIME_AGENT_DIR": str(agent_dir), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(lines(done.stdout)[-1].replace("'", '"')))
    assert loaded.isdisjoint({"frames", "requests", "hydration", "parts", "chat_commands", "schema"}), loaded


def test_help_answers_without_importing_the_runtime(agent_dir: Path) -> None:
    code = (
        "import sys; from prime_jupyter.cli.__main__ import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('pydantic' in sys.modules, 'prime_jupyter.runtime' in sys.modules)"
    )
    environment = {**os.environ, "PRIME_AGENT_DIR": str(agent_dir), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "usage: jupyter prime" in done.stdout and lines(done.stdout)[-1] == "False False"


def test_default_ipython_tool_runs_code_in_a_kernel(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    code = "import time\nfor i in range(3):\n    print('tick', i, flush=True)\n    time.sleep(0.3)\n6 * 7"
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": code})]),
        ScriptedTurn(blocks=[Text(text="The kernel says 42.")]),
    )
    done = prime(agent_dir, "--model", "scripted/m1", "--mode", "json", "-p", "compute 6*7")
    assert done.returncode == 0, done.stderr
    lines = json_lines(done.stdout)
    updates = [line for line in lines if line["type"] == "tool_execution_update"]
    streamed = [u["partialResult"]["content"][0]["text"] for u in updates if u["partialResult"]["content"]]
    assert any("tick 0" in text and "tick 2" not in text for text in streamed)  # output arrived while running
    result = json.dumps(llm.requests[1].body["messages"][-1])  # type: ignore[index]
    assert "tick 2" in result and "42" in result
    assert lines[-1]["type"] == "agent_end"
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": "answer = 6 * 7\nprint(answer)"})]),
        ScriptedTurn(blocks=[Text(text="It printed 42.")]),
    )
    printed = prime(agent_dir, "--model", "scripted/m1", "-p", "print it")  # print mode, default tools
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == "It printed 42.\n"
    assert "42" in json.dumps(llm.requests[3].body["messages"][-1])  # type: ignore[index]


def test_a_reader_that_stops_reading_ends_the_run_quietly(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    """`jupyter prime --mode json ... | head -n 3`: no traceback per event, the shell's pipe exit code,
    and the transcript stays loadable."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text="x" * 4000, chunks=2000)], chunk_delay_s=0.001))
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environment.update({"PRIME_AGENT_DIR": str(agent_dir), "PYTHONPATH": str(ROOT)})
    command = [sys.executable, "-m", "prime_jupyter.cli", "--model", "scripted/m1", "--tools", "read"]
    command += ["--mode", "json", "-p", "go"]
    child = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment, cwd=agent_dir.parent
    )
    assert child.stdout is not None and child.stderr is not None
    first = [child.stdout.readline() for _ in range(3)]
    child.stdout.close()  # what `head` does once it has its lines
    try:
        code = child.wait(30)
    except subprocess.TimeoutExpired:
        child.kill()
        raise AssertionError("the run went on after its reader left: " + child.stderr.read().decode()) from None
    stderr = child.stderr.read().decode()
    assert json.loads(first[0])["type"] == "session"
    assert code == 141 and "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
    llm.enqueue(ScriptedTurn(blocks=[Text(text="resumed")]))
    resumed = prime(agent_dir, "--model", "scripted/m1", "--tools", "read", "-c", "-p", "again")
    assert resumed.returncode == 0, resumed.stderr
    sent = json.dumps(llm.requests[-1].body)
    assert '"go"' in sent and '"again"' in sent  # the cut-short transcript loaded, first prompt and all


def test_an_undecodable_byte_in_the_prompt_is_kept_as_a_replacement_character(
    agent_dir: Path, llm: ScriptedLLMServer
) -> None:
    """argv bytes that are not UTF-8 reach Python as lone surrogates, which UTF-8 cannot write back."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text="got it")]), ScriptedTurn(blocks=[Text(text="still here")]))
    done = prime(agent_dir, "--model", "scripted/m1", "--mode", "json", "-p", "latin-1 caf\udce9")
    assert done.returncode == 0, done.stderr
    user = next(line for line in json_lines(done.stdout) if line["type"] == "message_end")
    assert "latin-1 caf\ufffd" in json.dumps(user["message"]["content"], ensure_ascii=False)
    again = prime(agent_dir, "--model", "scripted/m1", "-c", "-p", "and now?")
    assert again.returncode == 0 and again.stdout == "still here\n", again.stderr
    sent = json.dumps(llm.requests[1].body)
    assert "latin-1 caf\\ufffd" in sent and "got it" in sent


def answer_then_pwd(llm: ScriptedLLMServer, answer: str) -> None:
    """A first run that answers `answer`, then a second that runs `pwd` in bash and says "done"."""
    llm.enqueue(
        ScriptedTurn(blocks=[Text(text=answer)]),
        ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": "pwd"})]),
        ScriptedTurn(blocks=[Text(text="done")]),
    )


def test_a_folder_whose_name_is_not_utf8_keeps_its_sessions(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    """Its name reaches Python with lone surrogates; the header records U+FFFD, `-c` still finds it there,
    and tools still run in it."""
    folder = Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9"))
    folder.mkdir()
    answer_then_pwd(llm, "answer-one-7f3")
    first = prime(agent_dir, "--model", "scripted/m1", "--mode", "json", "-p", "one", cwd=folder)
    assert first.returncode == 0, first.stderr
    assert json_lines(first.stdout)[0]["cwd"].endswith("/caf\ufffd")  # and stdout is UTF-8
    again = prime(agent_dir, "--model", "scripted/m1", "--tools", "bash", "-c", "-p", "two", cwd=folder)
    assert again.returncode == 0 and again.stdout == "done\n", again.stderr
    assert "answer-one-7f3" in json.dumps(llm.requests[1].body)
    result = json.dumps(llm.requests[2].body)
    assert "caf" in result and "No such file" not in result and "does not exist" not in result


def test_a_transcript_that_cannot_be_written_stops_the_run_and_says_why(
    agent_dir: Path, llm: ScriptedLLMServer
) -> None:
    llm.enqueue(ScriptedTurn(blocks=[Text(text="room again")]))
    done = prime(agent_dir, "--model", "scripted/m1", "-p", "hello", max_file_bytes=300)
    assert done.returncode == 1
    assert done.stderr.startswith("error: the run stopped: cannot write the session file "), done.stderr
    assert done.stderr.rstrip().endswith(": File too large") and "Traceback" not in done.stderr
    assert list((agent_dir / "sessions").glob("*.jsonl")) == []  # nothing half-made is left to load
    assert llm.requests == []  # the prompt could not be saved, so the model was never asked
    again = prime(agent_dir, "--model", "scripted/m1", "-c", "-p", "hello")
    assert again.returncode == 0 and again.stdout == "room again\n", again.stderr


def test_a_session_whose_folder_is_gone_resumes_here_with_a_warning(
    agent_dir: Path, llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    old, here = tmp_path / "old-project", tmp_path / "new-project"
    old.mkdir()
    here.mkdir()
    answer_then_pwd(llm, "noted")
    first = prime(agent_dir, "--model", "scripted/m1", "--mode", "json", "-p", "one", cwd=old)
    session_id = json_lines(first.stdout)[0]["id"]
    old.rmdir()
    again = prime(agent_dir, "--model", "scripted/m1", "--tools", "bash", "-r", session_id[:8], "-p", "two", cwd=here)
    assert again.returncode == 0 and again.stdout == "done\n", again.stderr
    assert f"was started in {old}, which is gone; working in {here}" in again.stderr
    assert str(here) in json.dumps(llm.requests[2].body)  # pwd ran here


def test_the_agents_kernel_gets_the_users_environment_untouched(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    """The command line keeps its process tweaks to itself: it used to export PYDANTIC_DISABLE_PLUGINS,
    which every kernel it started inherited, silently turning off the user's own pydantic plugins."""
    code = "import os, gc; print(sorted(k for k in os.environ if k.startswith('PYDANTIC')), gc.isenabled())"
    llm.enqueue(
        ScriptedTurn(blocks=[ToolCall(name="ipython", arguments={"code": code})]),
        ScriptedTurn(blocks=[Text(text="checked")]),
    )
    done = prime(agent_dir, "--model", "scripted/m1", "--tools", "ipython", "-p", "look", env={"PYDANTIC_USER": "1"})
    assert done.returncode == 0, done.stderr
    result = json.dumps(llm.requests[1].body)
    assert "['PYDANTIC_USER'] True" in result


def test_an_acknowledged_prompt_survives_a_kill_before_the_answer(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    """Issue 15: `message_end` printed an `entryId` for the prompt before any transcript file existed, so a
    SIGKILL while the answer streamed lost what the client had been told was saved."""
    llm.enqueue(ScriptedTurn(blocks=[Text(text="never finished")], first_event_delay_s=120))
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environment.update({"PRIME_AGENT_DIR": str(agent_dir), "PYTHONPATH": str(ROOT)})
    command = [sys.executable, "-m", "prime_jupyter.cli", "--model", "scripted/m1", "--mode", "json", "-p", "keep me"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, env=environment, cwd=agent_dir.parent) as run:
        assert run.stdout is not None
        acknowledged = next(
            event for event in map(json.loads, iter(run.stdout.readline, b"")) if event["type"] == "message_end"
        )
        run.kill()
    assert run.wait() == -signal.SIGKILL and acknowledged["message"]["role"] == "user"
    (path,) = (agent_dir / "sessions").glob("*.jsonl")
    entry = SessionManager.open(path).get_entry(acknowledged["entryId"])
    assert isinstance(entry, MessageEntry) and "keep me" in json.dumps(entry.message.model_dump(mode="json"))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process groups from /proc")
def test_the_bash_tools_processes_die_with_the_app(agent_dir: Path, llm: ScriptedLLMServer) -> None:
    """Regression (issue 27, item 7): the app killed with SIGKILL left the bash tool's children running."""
    command = "sleep 1001 >/dev/null 2>&1 & echo group $$; sleep 1002"
    llm.enqueue(ScriptedTurn(blocks=[ToolCall(name="bash", arguments={"command": command})]))
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environment.update({"PRIME_AGENT_DIR": str(agent_dir), "PYTHONPATH": str(ROOT)})
    run_it = [sys.executable, "-m", "prime_jupyter.cli", "--model", "scripted/m1", "--tools", "bash"]
    with subprocess.Popen(
        [*run_it, "--mode", "json", "-p", "go"], stdout=subprocess.PIPE, env=environment, cwd=agent_dir.parent
    ) as run:
        assert run.stdout is not None
        started = next(found for line in iter(run.stdout.readline, b"") if (found := re.search(rb"group (\d+)", line)))
        pgid = int(started[1])
        run.kill()
    assert left_in_group(pgid) == []
