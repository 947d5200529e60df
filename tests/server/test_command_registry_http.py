"""The one command registry over HTTP, in a real Jupyter server: `GET chat/commands` lists a session's
built-in commands, prompt templates, skills and extension commands with their descriptions and argument
hints, and without a session those a new one in the root would offer."""

from __future__ import annotations

import textwrap
from pathlib import Path

from kit.server import PrimeClient

from prime_jupyter.protocol.version import CAP_COMMANDS, CAPABILITIES
from prime_jupyter.testing import ScriptedLLMServer


def write_resources(agent_dir: Path, root: Path) -> None:
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "review.md").write_text(
        "---\ndescription: review a file\nargument-hint: <path>\n---\nReview $1."
    )
    skill = root / ".agents" / "skills" / "plotting"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: plotting\ndescription: draw charts with matplotlib\n---\nUse plt.")
    (agent_dir / "extensions").mkdir()
    (agent_dir / "extensions" / "deploy.py").write_text(
        textwrap.dedent(
            """
            def setup(prime):
                prime.register_command("deploy", "deploy the branch", lambda args: None, arguments="<env>")
            """
        )
    )


def by_name(listed: object) -> dict[str, tuple[str, str, str]]:
    assert isinstance(listed, dict)
    commands = listed["commands"]
    assert isinstance(commands, list)
    return {c["name"]: (c["description"], c["arguments"], c["source"]) for c in commands}


async def test_a_sessions_commands_list_builtins_templates_skills_and_extension_commands(
    prime: PrimeClient, agent_dir: Path, jp_root_dir: Path
) -> None:
    write_resources(agent_dir, jp_root_dir)
    session_id = await prime.new_session()
    commands = by_name(await prime.get("chat/commands", sessionId=session_id))
    assert commands["model"] == ("pick a model, or name one", "provider/id", "builtin")
    assert commands["compact"][2] == "builtin"
    assert commands["review"] == ("review a file", "<path>", "template")
    assert commands["skill:plotting"] == ("draw charts with matplotlib", "[args]", "skill")
    assert commands["deploy"] == ("deploy the branch", "<env>", "extension")


async def test_without_a_session_the_commands_are_those_of_a_new_session_in_the_root(
    prime: PrimeClient, agent_dir: Path, jp_root_dir: Path
) -> None:
    write_resources(agent_dir, jp_root_dir)
    commands = by_name(await prime.get("chat/commands"))
    assert commands["review"][2] == "template"
    assert commands["skill:plotting"][2] == "skill"
    assert commands["new"] == ("start a new session", "", "builtin")
    assert CAP_COMMANDS in CAPABILITIES


async def test_reload_typed_in_one_session_reloads_every_live_session(
    prime: PrimeClient, agent_dir: Path, llm: ScriptedLLMServer
) -> None:
    first, second = await prime.new_session(), await prime.new_session()
    assert "tidy" not in by_name(await prime.get("chat/commands", sessionId=second))
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "tidy.md").write_text("---\ndescription: tidy the files\n---\nTidy $@.")
    frames = await prime.turn(first, "/reload")
    told = [f["message"] for f in frames if f["type"] == "notify"]
    assert told == ["Reloaded the prompt templates and skills: 1 prompt templates and 0 skills."], frames
    assert by_name(await prime.get("chat/commands", sessionId=second))["tidy"] == ("tidy the files", "", "template")
    assert llm.requests == []  # a command, not a turn: nothing asked of the model
