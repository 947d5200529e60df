"""The footer's git branch: read from `.git/HEAD` (a checkout, a detached HEAD, a worktree), shown next to
the working directory."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from prime_jupyter.cli.tui.git_branch import git_branch
from prime_jupyter.cli.tui.widgets.status_footer import StatusFooter
from tui_kit import SIZE, app_on, local_connection, until


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def repository(path: Path, branch: str = "main") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    (path / "a.txt").write_text("a\n")
    git(path, "add", "a.txt")
    git(path, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "one")
    return path


def test_the_branch_of_a_checkout_and_of_a_folder_inside_it(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo", "analysis")
    (repo / "data" / "raw").mkdir(parents=True)
    assert git_branch(repo) == "analysis" and git_branch(repo / "data" / "raw") == "analysis"
    git(repo, "checkout", "-q", "-b", "feature/plots")
    assert git_branch(repo / "data") == "feature/plots"


def test_a_detached_head_shows_its_commit(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    commit = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "--detach")
    assert git_branch(repo) == f"detached {commit[:7]}"


def test_a_worktree_reads_its_own_head_through_its_git_file(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    assert (tmp_path / "side" / ".git").is_file()
    assert git_branch(tmp_path / "side") == "side" and git_branch(repo) == "main"


def test_outside_a_checkout_there_is_no_branch(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "odd" / ".git").mkdir(parents=True)  # a .git without a HEAD
    assert git_branch(tmp_path / "plain") is None and git_branch(tmp_path / "odd") is None


@pytest.mark.asyncio
async def test_the_footer_shows_the_branch_next_to_the_directory(home: Path) -> None:
    repository(home.parent / "work", "cleaning")
    connection = local_connection(home)
    try:
        app = app_on(connection)
        async with app.run_test(size=SIZE) as pilot:
            footer = app.screen.query_one(StatusFooter)
            await until(pilot, lambda: footer.info.branch == "cleaning")
            await pilot.press(*"!git checkout -q -b plots", "enter")
            await until(pilot, lambda: footer.info.branch == "plots")
    finally:
        await connection.dispose()
