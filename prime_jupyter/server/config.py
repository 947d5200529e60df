"""`BridgeConfig`: what the bridge needs from `PrimeApp`'s traitlets, as plain values.

The bridge and its parts read this instead of the traitlets so they can be built (and benchmarked)
without a Jupyter server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["BRIDGE_SETTING", "HUB_CULL_IDLE_TIMEOUT_S", "BridgeConfig", "CullPolicy", "under_jupyterhub"]

BRIDGE_SETTING = "prime_bridge"
"""Web-app setting holding a function that returns the bridge (made on first use, like the routes)."""

HUB_CULL_IDLE_TIMEOUT_S = 3600
"""`c.PrimeApp.cull_idle_timeout` under JupyterHub unless set: an hour idle frees an agent kernel's memory
(about 50 MiB each) on a machine many users share; its session stays, and says so when code runs again."""


def under_jupyterhub(environ: Mapping[str, str]) -> bool:
    """Whether this server is a JupyterHub single-user server (the hub's spawner sets these variables)."""
    return bool(environ.get("JUPYTERHUB_SERVICE_PREFIX") or environ.get("JUPYTERHUB_API_TOKEN"))


@dataclass(frozen=True)
class CullPolicy:
    """Jupyter's culling settings, for agent kernels (`c.PrimeApp.cull_*`)."""

    idle_timeout_s: int = 0
    """Seconds without activity after which an agent kernel is culled; 0 or less: never."""
    interval_s: int = 300
    """Seconds between checks for idle agent kernels."""
    connected: bool = False
    """Cull kernels that have connections (a console open on one) too."""
    busy: bool = False
    """Cull kernels whose execution state is busy too (never one the agent is running code on)."""

    @property
    def enabled(self) -> bool:
        return self.idle_timeout_s > 0


@dataclass(frozen=True)
class BridgeConfig:
    agent_dir: Path
    """`<agent_dir>/sessions` holds the transcripts, `<agent_dir>/pending-questions` the open questions."""
    root_dir: Path
    """Where new sessions start when a request names no `cwd` (the server's root directory)."""
    allow_outside_root: bool = False
    """Whether a request's `cwd` and export `path` may leave `root_dir` (else a 403)."""
    default_model: str | None = None
    """`provider/id[:thinking]` for new sessions; None lets settings.json decide."""
    kernel_name: str = "python3"
    tool_timeout_s: float = 600.0
    ring_size: int = 500
    dialog_timeout_s: float = 0.0
    """Seconds a question waits before it times out, for every session of the server; 0: settings.json's
    `questionTimeoutS`, whose default waits until answered."""
    heartbeat_interval_s: float = 15.0
    max_body_bytes: int = 32 * 1024 * 1024
    max_kernels: int = 0
    """Most agent kernels alive at once (0: no cap); a start over it is refused with what to do."""
    cull: CullPolicy = field(default_factory=CullPolicy)
    """When idle agent kernels are shut down (their sessions kept)."""
    default_permission_mode: str = "ask"
    """The permission mode of a new session that asks for none (settings.json's `permissionMode` first)."""
    allowed_permission_modes: tuple[str, ...] | None = None
    session_budget_usd: float | None = None
    daily_budget_usd: float | None = None
    allowed_models: tuple[str, ...] | None = None
    """`provider/id` patterns of the models sessions may use (None: all): others refused (403) and unlisted."""
    """The modes sessions may use; None: all. Asking for another answers 403 naming these."""
    policy_extensions: tuple[str, ...] = ()
    hidden_environment: tuple[str, ...] = ()
    """Variables the sessions' kernels and commands do not get, besides the provider keys (patterns)."""
    """The administrator's policy extensions, loaded first in every session (`resources.extensions`)."""
    tune_process_memory: bool = False
    """Whether the extension may set the server process's collector and allocator (`gc_policy`,
    `heap_policy`): the server is shared with the user's other extensions, so only an administrator
    who opts in (`c.PrimeApp.tune_process_memory`) has it changed."""
    provider_setup: bool = True
    """Whether users may save a provider's key, URL and default model from the browser (`chat/providers`)."""

    @property
    def confined_to(self) -> Path | None:
        """The directory requests' paths must stay in; None when they may go anywhere."""
        return None if self.allow_outside_root else self.root_dir

    @property
    def sessions_dir(self) -> Path:
        return self.agent_dir / "sessions"

    @property
    def questions_dir(self) -> Path:
        return self.agent_dir / "pending-questions"
