"""The permission policy: each mode against each kind of tool, "allow always" rules, the server's clamp."""

from __future__ import annotations

import pytest

from prime_jupyter.errors import PermissionModeError
from prime_jupyter.runtime.permissions import (
    AllowRule,
    PermissionPolicy,
    check_mode,
    command_prefix,
    parse_permission_mode,
    tool_kind,
)

READ_ONLY = ("read", "notebook_read", "ask")
CHANGES = ("write", "edit", "notebook_edit")
EXECUTION = ("ipython", "notebook_run", "bash", "my_custom_tool")


@pytest.mark.parametrize("name", READ_ONLY)
def test_read_only_tools_are_read_only(name: str) -> None:
    assert tool_kind(name) == "read-only"


@pytest.mark.parametrize("name", CHANGES)
def test_file_and_notebook_edits_are_changes(name: str) -> None:
    assert tool_kind(name) == "change"


@pytest.mark.parametrize("name", EXECUTION)
def test_code_shell_and_unknown_tools_are_execution(name: str) -> None:
    assert tool_kind(name) == "execution"


@pytest.mark.parametrize(
    ("mode", "read", "change", "execution"),
    [
        ("ask", "allow", "ask", "ask"),
        ("accept-edits", "allow", "allow", "ask"),
        ("plan", "allow", "deny", "deny"),
        ("auto", "allow", "allow", "allow"),
    ],
)
def test_each_mode_against_each_kind_of_tool(mode: str, read: str, change: str, execution: str) -> None:
    policy = PermissionPolicy(parse_permission_mode(mode))
    assert [policy.decide(n, {}) for n in READ_ONLY] == [read] * 3
    assert [policy.decide(n, {}) for n in CHANGES] == [change] * 3
    assert [policy.decide(n, {"command": "ls"}) for n in EXECUTION] == [execution] * 4


def test_plan_mode_offers_only_read_only_tools() -> None:
    policy = PermissionPolicy("plan")
    assert [n for n in (*READ_ONLY, *CHANGES, *EXECUTION) if policy.offers(n)] == list(READ_ONLY)


def test_other_modes_offer_every_tool() -> None:
    assert all(PermissionPolicy("ask").offers(n) for n in (*READ_ONLY, *CHANGES, *EXECUTION))


def test_allow_always_of_a_tool_allows_its_later_calls_and_no_other_tool() -> None:
    policy = PermissionPolicy("ask")
    rule = policy.rule_for("ipython", {"code": "1"})
    assert rule == AllowRule("ipython")
    policy.allow_always(rule)
    assert policy.decide("ipython", {"code": "import os"}) == "allow"
    assert policy.decide("write", {"path": "a"}) == "ask"


def test_allow_always_of_a_command_allows_its_prefix_only() -> None:
    policy = PermissionPolicy("ask")
    rule = policy.rule_for("bash", {"command": "git status -s"})
    assert rule == AllowRule("bash", "git status")
    policy.allow_always(rule)
    assert policy.decide("bash", {"command": "git status"}) == "allow"
    assert policy.decide("bash", {"command": "git status --porcelain"}) == "allow"
    assert policy.decide("bash", {"command": "git push"}) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "git status && rm -rf ~",
        "git status; rm x",
        "git status | sh",
        "git status > f",
        "git status `rm x`",
        "git status $(rm x)",
        "git status\nrm x",
    ],
)
def test_a_prefix_rule_never_allows_a_chained_or_redirected_command(command: str) -> None:
    policy = PermissionPolicy("ask", [AllowRule("bash", "git status")])
    assert policy.decide("bash", {"command": command}) == "ask"


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("ls -la", "ls"),
        ("git log --oneline", "git log"),
        ("pytest tests/x.py", "pytest"),
        ("python script.py --fast", "python script.py --fast"),
        ("sudo apt-get install x", "sudo apt-get install x"),
        ("ls && rm x", None),
        ("echo 'unclosed", None),
        ("   ", None),
    ],
)
def test_command_prefix(command: str, prefix: str | None) -> None:
    assert command_prefix(command) == prefix


def test_allow_always_of_a_chained_command_has_no_rule() -> None:
    assert PermissionPolicy("ask").rule_for("bash", {"command": "make && make install"}) is None


def test_an_unknown_mode_is_refused_naming_the_modes() -> None:
    with pytest.raises(ValueError, match="ask, accept-edits, plan, auto, not 'yolo'"):
        parse_permission_mode("yolo")


def test_a_mode_the_server_forbids_is_refused_naming_the_allowed_ones() -> None:
    with pytest.raises(PermissionModeError, match="'auto' is not allowed on this server: choose from ask, plan"):
        check_mode("auto", ("ask", "plan"))
    assert check_mode("plan", ("ask", "plan")) == "plan"
    assert check_mode("auto", None) == "auto"
