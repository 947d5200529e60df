"""`settings.json`: global (`<agent dir>/settings.json`) and project (`<cwd>/.prime/agent/settings.json`).

Project values override global ones; nested objects merge. Unknown keys are ignored so newer files keep
working with older versions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from prime_jupyter.ai.config_file import read_json_object
from prime_jupyter.errors import ConfigError
from prime_jupyter.runtime.permissions import PermissionMode

__all__ = ["CompactionSettings", "KernelSettings", "RetrySettings", "Settings", "load_settings"]


class _S(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", defer_build=True)


class CompactionSettings(_S):
    enabled: bool = True
    reserve_tokens: int = 16_384
    """Compact once the context passes `contextWindow - reserveTokens`."""
    keep_recent_tokens: int = 20_000
    """What compaction keeps as it is (the newest messages); the rest becomes the summary."""

    def for_window(self, context_window: int) -> tuple[int, int]:
        """`(reserve, keep)` for a model with this context window. The defaults suit a large window; for a
        smaller one each is at most a quarter of it (a 32k model: 8,192 and 8,192), else the threshold
        (32,768 - 16,384) came before there was more than the 20,000 kept to compact, and every turn ended
        in "Compaction failed: nothing to compact yet". Values set in settings.json are used as written."""
        share = max(context_window // 4, 1)
        reserve = self.reserve_tokens if "reserve_tokens" in self.model_fields_set else min(self.reserve_tokens, share)
        keep = self.keep_recent_tokens
        if "keep_recent_tokens" not in self.model_fields_set:
            keep = min(keep, share)
        return reserve, keep


class RetrySettings(_S):
    enabled: bool = True
    max_retries: int = 3
    base_delay_ms: int = 2_000
    max_delay_ms: int = 60_000


class KernelSettings(_S):
    name: str = "python3"
    timeout_s: float = 600.0


class BudgetSettings(_S):
    session_usd: float | None = Field(default=None, gt=0)
    """Dollars one session may spend (None: no limit)."""
    daily_usd: float | None = Field(default=None, gt=0)
    """Dollars the agent dir's sessions may spend in a day, local time (None: no limit)."""


class Settings(_S):
    default_provider: str | None = None
    default_model: str | None = None
    default_thinking_level: str | None = None
    steering_mode: Literal["one-at-a-time", "all"] = "one-at-a-time"
    follow_up_mode: Literal["one-at-a-time", "all"] = "one-at-a-time"
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    kernel: KernelSettings = Field(default_factory=KernelSettings)
    tools: list[str] | None = None
    question_timeout_s: float = 0.0
    """How long a question of the `ask` tool waits for an answer before the agent goes on without one; 0
    waits until it is answered (a question asked while you were away is still there when you come back)."""
    permission_mode: PermissionMode | None = None
    """The permission mode of new sessions (`ask`, `accept-edits`, `plan`, `auto`); None: `ask` where a
    person can answer, `auto` in `jupyter prime -p` (`runtime.permissions`)."""
    approval_timeout_s: float = 0.0
    """How long an approval waits before it refuses the call; 0 waits until answered (never a "yes")."""
    theme: str | None = None
    """The terminal app's theme (a Textual theme name), chosen with `/theme`; the runtime does not use it
    (`connection.preferences` reads and writes it)."""
    extensions: list[str] | None = None
    """Python extensions to load besides those in the extensions folders (paths; relative ones from the
    session's folder): `resources.extensions`."""
    budget: BudgetSettings = Field(default_factory=BudgetSettings)
    """Cost budgets (`runtime.budget`); a server's administrator may set lower ones."""
    headless_server: Literal["auto", "never"] = "never"
    """`jupyter prime -p`: in a Jupyter server found for the folder ("auto") or here (`cli/server_choice.py`)."""


def load_settings(agent_dir: Path, cwd: Path) -> Settings:
    merged: dict[str, object] = {}
    for path in (agent_dir / "settings.json", cwd / ".prime" / "agent" / "settings.json"):
        _merge(merged, read_json_object(path))
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise ConfigError(f"settings.json: {where}: {err['msg']}") from exc


def _merge(into: dict[str, object], new: dict[str, object]) -> None:
    for key, value in new.items():
        current = into.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            _merge(current, value)
        else:
            into[key] = value
