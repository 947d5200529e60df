"""Prompt templates and skills (`resources.prompts`, `resources.skills`, `resources.library`): where they
are found and which wins, how arguments expand, what the system prompt shows, and a session sending the
expanded prompt to the model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prime_jupyter.resources.library import PromptLibrary
from prime_jupyter.resources.prompts import expand_arguments, split_arguments
from prime_jupyter.resources.skills import find_skills, skills_prompt
from prime_jupyter.runtime.factory import SessionOptions, create_agent_session
from prime_jupyter.testing import ScriptedLLMServer, ScriptedTurn, Text


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def skill(folder: Path, name: str, description: str, body: str = "Do the thing.", extra: str = "") -> Path:
    return write(folder / name / "SKILL.md", f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}\n")


@pytest.mark.parametrize(
    ("body", "arguments", "expected"),
    [
        ("Review $1 for $2.", 'notes.py "off by one"', "Review notes.py for off by one."),
        ("All: $@ / $ARGUMENTS", "a b c", "All: a b c / a b c"),
        ("From the second: ${@:2}", "a b c d", "From the second: b c d"),
        ("Two from the second: ${@:2:2}", "a b c d", "Two from the second: b c"),
        ("Missing: [$3]", "a", "Missing: []"),
        ("Unbalanced: $1", "it's", "Unbalanced: it's"),
    ],
)
def test_each_argument_form_expands(body: str, arguments: str, expected: str) -> None:
    assert expand_arguments(body, split_arguments(arguments)) == expected


def test_templates_come_from_the_agent_dir_and_the_project_which_wins(tmp_path: Path) -> None:
    home, work = tmp_path / "agent", tmp_path / "work"
    write(home / "prompts" / "review.md", "---\ndescription: review a file\nargument-hint: <file>\n---\nUser's $1")
    write(home / "prompts" / "plain.md", "Explain $@ simply.\n")
    write(work / ".prime" / "agent" / "prompts" / "review.md", "---\ndescription: project review\n---\nTeam's $1")
    write(work / ".prime" / "agent" / "prompts" / "broken.md", "---\ndescription: [unclosed\n---\nbody")
    library = PromptLibrary.load(home, work, home=tmp_path / "nobody")
    assert library.expand("/review a.py") == "Team's a.py"
    assert library.expand("/plain the kernel").strip() == "Explain the kernel simply."
    assert library.expand("/unknown x") == "/unknown x" and library.expand("plain words") == "plain words"
    commands = {c.name: (c.description, c.arguments, c.source) for c in library.commands()}
    assert commands["review"] == ("project review", "", "template")
    assert commands["plain"] == ("Explain $@ simply.", "", "template")
    assert any("broken.md: the frontmatter is not valid YAML" in d for d in library.diagnostics)
    assert any(d.startswith("/review: ") and "the project's wins" in d for d in library.diagnostics)


def test_skills_nearest_the_working_directory_win_and_only_their_summary_is_in_the_prompt(tmp_path: Path) -> None:
    home, user = tmp_path / "agent", tmp_path / "user"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    work = repo / "analysis"
    skill(home / "skills", "plots", "the agent dir's plots")
    skill(user / ".agents" / "skills", "plots", "the user's plots")
    skill(user / ".agents" / "skills", "cleaning", "clean a frame", body="SECRET STEPS")
    skill(repo / ".agents" / "skills", "plots", "the repository's plots")
    skill(work / ".prime" / "agent" / "skills", "plots", "this folder's plots")
    skill(repo / ".prime" / "agent" / "skills", "release", "cut a release", extra="disable-model-invocation: true\n")
    write(repo / ".agents" / "skills" / "nameless" / "SKILL.md", "---\ndescription: no name\n---\nx")
    skills, diagnostics = find_skills(home, work, home=user)
    assert [(s.name, s.description) for s in skills] == [
        ("cleaning", "clean a frame"),
        ("plots", "this folder's plots"),
        ("release", "cut a release"),
    ]
    assert sum("skill plots:" in d and "nearer the working directory wins" in d for d in diagnostics) == 3
    assert any("nameless" in d and "'name'" in d for d in diagnostics)
    prompt = skills_prompt(skills)
    assert "- cleaning: clean a frame (" in prompt and "this folder's plots" in prompt
    assert "release" not in prompt and "SECRET STEPS" not in prompt  # hidden; bodies are read on demand
    library = PromptLibrary(skills=skills)
    assert library.expand("/skill:release v2.1") == "Do the thing.\n\nv2.1"  # a hidden one is still invocable
    with pytest.raises(ValueError, match="no skill named 'nope': the skills here are cleaning, plots, release"):
        library.expand("/skill:nope")


@pytest.mark.asyncio
async def test_a_session_sends_the_expanded_prompt_and_offers_its_skills(
    tmp_path: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    home, work = tmp_path / "agent", tmp_path / "work"
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}
    write(home / "models.json", json.dumps({"providers": {"scripted": provider}}))
    write(home / "prompts" / "review.md", "---\ndescription: review\n---\nReview $1 carefully.")
    skill(work / ".prime" / "agent" / "skills", "plots", "house style for plots", body="Use the house colours.")
    session = create_agent_session(SessionOptions(cwd=work, model="scripted/m1", tools=["read"], agent_dir=home))
    llm.enqueue(ScriptedTurn(blocks=[Text(text="reviewed")]), ScriptedTurn(blocks=[Text(text="styled")]))
    await session.prompt("/review notes.py")
    await session.prompt("/skill:plots the sales chart")
    first, second = (request.body for request in llm.requests)
    assert isinstance(first, dict) and isinstance(second, dict)
    assert first["messages"][0]["content"][0]["text"] == "Review notes.py carefully."
    assert second["messages"][-1]["content"][0]["text"] == "Use the house colours.\n\nthe sales chart"
    system = json.dumps(first["system"])
    assert "- plots: house style for plots (" in system and "Use the house colours" not in system
    await session.dispose()


@pytest.mark.asyncio
async def test_reload_picks_up_a_new_template_and_skill(
    tmp_path: Path, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    home, work = tmp_path / "agent", tmp_path / "work"
    work.mkdir()
    provider = {"baseUrl": llm.base_url, "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}
    write(home / "models.json", json.dumps({"providers": {"scripted": provider}}))
    session = create_agent_session(SessionOptions(cwd=work, model="scripted/m1", tools=["read"], agent_dir=home))
    write(home / "prompts" / "tidy.md", "Tidy $@ now.")
    skill(home / "skills", "maps", "drawing maps")
    assert session.prompts is not None and "tidy" not in session.prompts.templates
    assert session.reload_resources() == []
    llm.enqueue(ScriptedTurn(blocks=[Text(text="tidied")]))
    await session.prompt("/tidy a.py b.py")
    body = llm.requests[-1].body
    assert isinstance(body, dict)
    assert body["messages"][0]["content"][0]["text"] == "Tidy a.py b.py now."
    assert "- maps: drawing maps (" in json.dumps(body["system"])
    await session.dispose()
