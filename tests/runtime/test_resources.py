"""The system prompt: date, cwd, tool guidance, SYSTEM.md / APPEND_SYSTEM.md, and context files."""

from __future__ import annotations

import datetime
from pathlib import Path

from prime_jupyter.runtime.resources import PromptOptions, build_system_prompt, find_context_files


def test_context_files_from_agent_dir_then_root_down_to_cwd(tmp_path: Path) -> None:
    home, project = tmp_path / "agent", tmp_path / "repo" / "pkg"
    project.mkdir(parents=True)
    home.mkdir()
    (home / "AGENTS.md").write_text("global rules")
    (tmp_path / "repo" / "CLAUDE.md").write_text("repo rules")
    (project / "AGENTS.md").write_text("package rules")
    (project / "CLAUDE.md").write_text("ignored: AGENTS.md wins in a directory")
    found = [f.content for f in find_context_files(project, home)]
    assert found == ["global rules", "repo rules", "package rules"]


def test_prompt_carries_date_cwd_guidance_and_context(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Use polars, not pandas.")
    options = PromptOptions(cwd=tmp_path, agent_dir=tmp_path / "none", tool_names=("ipython",), tool_guidance="GUIDE")
    prompt = build_system_prompt(options, today=datetime.date(2026, 11, 29))
    assert "Current date: 2026-11-29" in prompt and f"Current working directory: {tmp_path}" in prompt
    assert "GUIDE" in prompt and "# Project Context" in prompt and "Use polars, not pandas." in prompt
    without = build_system_prompt(PromptOptions(cwd=tmp_path, agent_dir=tmp_path, tool_names=(), context_files=False))
    assert "Use polars" not in without


def test_system_md_replaces_and_append_extends(tmp_path: Path) -> None:
    home = tmp_path / "agent"
    home.mkdir()
    (home / "SYSTEM.md").write_text("You are a terse assistant.")
    (home / "APPEND_SYSTEM.md").write_text("Always cite files.")
    options = PromptOptions(cwd=tmp_path, agent_dir=home, tool_names=("read",), append_system_prompt="Be kind.")
    prompt = build_system_prompt(options)
    assert prompt.startswith("You are a terse assistant.")
    assert "Always cite files." in prompt and "Be kind." in prompt and "read:" in prompt
    replaced = build_system_prompt(PromptOptions(cwd=tmp_path, agent_dir=home, tool_names=(), system_prompt="CLI"))
    assert replaced.startswith("CLI")
