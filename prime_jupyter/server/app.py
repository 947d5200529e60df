"""`PrimeApp`: the Jupyter server extension (`c.PrimeApp.*`, `--PrimeApp.default_model=...`).

It installs the routes under `<base_url>prime/api/` and, on first use, one `PrimeBridge` with the
server's kernel manager; it closes every session when the server stops. Loading it costs the server
almost nothing (design.md D10): no provider SDK, no textual, no kernel, not even the pydantic models;
routes and bridge are imported by the first request (`lazy.py`). `benchmarks/bench_server.py`
measures what the extension adds to `jupyter server` start-up.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from jupyter_server.extension.application import ExtensionApp
from jupyter_server.utils import url_path_join
from traitlets import Bool, Enum, Float, Int, List, Unicode, default

from prime_jupyter.runtime.permissions import PERMISSION_MODES
from prime_jupyter.server.config import (
    BRIDGE_SETTING,
    HUB_CULL_IDLE_TIMEOUT_S,
    BridgeConfig,
    CullPolicy,
    under_jupyterhub,
)
from prime_jupyter.server.lazy import API_PATH, LazyRoutes

if TYPE_CHECKING:
    from prime_jupyter.server.host.bridge import PrimeBridge

__all__ = ["PrimeApp"]


class PrimeApp(ExtensionApp):
    name = "prime"
    description = "prime-jupyter: a Jupyter-native AI agent whose hands are a real IPython kernel"

    default_model = Unicode(
        None, allow_none=True, config=True, help="Model of new sessions, 'provider/id[:thinking]' (else settings.json)."
    )
    agent_dir = Unicode(
        None,
        allow_none=True,
        config=True,
        help="The agent's home (sessions, settings, keys); else $PRIME_AGENT_DIR, else ~/.prime/agent.",
    )
    kernel_name = Unicode("python3", config=True, help="Kernel spec of the sessions' IPython kernels.")
    tool_timeout = Float(600.0, config=True, help="Seconds one tool call may run before it is interrupted.")
    ring_size = Int(500, config=True, help="Frames kept per session for SSE replay after a reconnect.")
    dialog_timeout = Float(
        0.0,
        config=True,
        help="Seconds a question of the agent to the user stays open before it times out (and the agent goes on"
        " without an answer); 0: settings.json's questionTimeoutS, whose default waits until answered.",
    )
    heartbeat_interval = Float(15.0, config=True, help="Seconds between SSE heartbeat comments on an idle stream.")
    allow_outside_root = Bool(
        False,
        config=True,
        help="Let requests start sessions in, and export to, directories outside the server's root_dir"
        " ('..', absolute paths, symlinks that leave it). Off: such a cwd or export path answers 403, as"
        " Jupyter's contents API refuses paths outside the root.",
    )
    max_kernels = Int(
        0,
        config=True,
        help="Most agent kernels alive at once in this server (0: no cap). Every session starts its own kernel;"
        " a start over the cap is refused, and the agent is told to close a session or wait for culling.",
    )
    cull_idle_timeout = Int(
        config=True,
        help="Seconds without activity after which an agent kernel is shut down (culled); its session stays"
        " open and its next ipython call starts a fresh kernel, telling the model its state is gone. 0 or"
        " less: never. As MappingKernelManager.cull_idle_timeout, for the agent's kernels only. Default:"
        f" {HUB_CULL_IDLE_TIMEOUT_S} in a JupyterHub single-user server (many users share the machine), else 0.",
    )
    cull_interval = Int(
        300, config=True, help="Seconds between checks for idle agent kernels (as MappingKernelManager.cull_interval)."
    )
    cull_connected = Bool(
        False,
        config=True,
        help="Cull idle agent kernels that have connections (a console open on one) too"
        " (as MappingKernelManager.cull_connected).",
    )
    cull_busy = Bool(
        False,
        config=True,
        help="Cull agent kernels whose execution state is busy too; never one the agent is running code on"
        " (as MappingKernelManager.cull_busy).",
    )

    @default("cull_idle_timeout")
    def _cull_under_a_hub(self) -> int:
        return HUB_CULL_IDLE_TIMEOUT_S if under_jupyterhub(os.environ) else 0

    default_permission_mode = Enum(
        PERMISSION_MODES,
        "ask",
        config=True,
        help="Permission mode of new sessions that ask for none and have none in settings.json: 'ask' (code, "
        "commands and changes ask first), 'accept-edits' (changes go through), 'plan' (read-only tools), 'auto'.",
    )
    allowed_permission_modes = List(
        Enum(PERMISSION_MODES),
        list(PERMISSION_MODES),
        config=True,
        help="Permission modes sessions may use (e.g. ['ask', 'plan'] forbids 'auto'); asking for another "
        "answers 403 naming these.",
    )
    provider_setup = Bool(
        True,
        config=True,
        help="Let users set up a provider from JupyterLab (the panel's provider form: a key stored in the agent"
        " dir's auth.json, a base URL or a local server in models.json, the default model). Off: the form is"
        " read-only and saving answers 403, for servers whose administrator supplies the providers.",
    )
    policy_extensions = List(
        Unicode(),
        [],
        config=True,
        help="The administrator's policy extensions: Python files, package folders or importable module names"
        " with setup(prime), loaded before the user's extensions in every session. Their tool_call blocks are"
        " final (no user extension can undo them) and their tool_result handlers run last. One that cannot load"
        " makes every tool call refused until it is fixed.",
    )
    session_budget_usd = Float(
        None,
        allow_none=True,
        config=True,
        help="Dollars one session may spend (at the models' prices in models.json); a run over it stops before"
        " its next request, saying so. None (the default): no limit, unless settings.json sets one.",
    )
    daily_budget_usd = Float(
        None,
        allow_none=True,
        config=True,
        help="Dollars this server's sessions (one user's, under JupyterHub) may spend in a day, local time;"
        " kept in <agent_dir>/usage/. None (the default): no limit, unless settings.json sets one.",
    )
    allowed_models = List(
        Unicode(),
        None,
        allow_none=True,
        config=True,
        help="Models sessions may use, as provider/id patterns (e.g. ['anthropic/*', 'openai/gpt-5*']); the"
        " others are not listed in the pickers, and asking for one answers 403 naming these. None (the"
        " default): every model the agent dir declares.",
    )
    hidden_environment = List(
        Unicode(),
        [],
        config=True,
        help="Environment variables the agent's kernels and its bash and ! commands do not get, besides the"
        " provider keys (ANTHROPIC_API_KEY, OPENAI_API_KEY and those models.json's apiKey names, always left"
        " out): names or shell-style patterns, e.g. ['*_TOKEN', 'DATABASE_URL'].",
    )
    max_body_bytes = Int(32 * 1024 * 1024, config=True, help="Largest request body accepted (413 above it).")
    tune_process_memory = Bool(
        False,
        config=True,
        help="Let the extension tune this server process's memory for long sessions: freeze long-lived"
        " objects out of the garbage collector after imports and transcript loads (a collection first,"
        " then a freeze) and keep large freed blocks in glibc's heap (mallopt). These are process-wide and"
        " change the server for every other extension too, so they are off unless set here.",
    )

    _bridge: PrimeBridge | None = None

    def bridge_config(self) -> BridgeConfig:
        assert self.serverapp is not None
        home = self.agent_dir or os.environ.get("PRIME_AGENT_DIR") or str(Path.home() / ".prime" / "agent")
        return BridgeConfig(
            agent_dir=Path(home).expanduser(),
            root_dir=Path(self.serverapp.root_dir).expanduser().resolve(),
            allow_outside_root=self.allow_outside_root,
            default_model=self.default_model or None,
            kernel_name=self.kernel_name,
            tool_timeout_s=self.tool_timeout,
            ring_size=self.ring_size,
            dialog_timeout_s=self.dialog_timeout,
            heartbeat_interval_s=self.heartbeat_interval,
            max_body_bytes=self.max_body_bytes,
            max_kernels=self.max_kernels,
            cull=CullPolicy(self.cull_idle_timeout, self.cull_interval, self.cull_connected, self.cull_busy),
            default_permission_mode=self.default_permission_mode,
            allowed_permission_modes=tuple(self.allowed_permission_modes),
            allowed_models=tuple(self.allowed_models) if self.allowed_models is not None else None,
            session_budget_usd=self.session_budget_usd,
            daily_budget_usd=self.daily_budget_usd,
            policy_extensions=tuple(self.policy_extensions),
            hidden_environment=tuple(self.hidden_environment),
            tune_process_memory=self.tune_process_memory,
            provider_setup=self.provider_setup,
        )

    def bridge(self) -> PrimeBridge:
        """The bridge, made on first use."""
        if self._bridge is None:
            from prime_jupyter.kernel.server import ServerKernelLauncher
            from prime_jupyter.runtime.environment import without_provider_keys
            from prime_jupyter.server.host.bridge import PrimeBridge
            from prime_jupyter.server.host.notebooks import server_notebooks

            server = self.serverapp
            assert server is not None
            specs = getattr(server, "kernel_spec_manager", None)
            kernels = getattr(server, "kernel_manager", None)
            config = self.bridge_config()
            environment = without_provider_keys(config.agent_dir, config.hidden_environment)
            launcher = (
                ServerKernelLauncher(kernels, max_kernels=config.max_kernels, environment=environment)
                if kernels is not None
                else None
            )
            self._bridge = PrimeBridge(
                config,
                kernel_launcher=launcher,
                environment=environment,
                kernel_manager=kernels,
                spec_lookup=specs.get_kernel_spec if specs is not None else None,
                kernel_capacity=launcher.refusal if launcher is not None else None,
                notebooks=server_notebooks(server, root_dir=config.root_dir, kernel_name=config.kernel_name),
            )
            if config.tune_process_memory:  # process-wide: only when the administrator asked for it
                from prime_jupyter import gc_policy, heap_policy

                gc_policy.modules_loaded()
                heap_policy.reuse_freed_blocks()  # each turn of a long session reuses the last body's pages
        return self._bridge

    def initialize_settings(self) -> None:
        self.settings.update({BRIDGE_SETTING: self.bridge})

    def initialize_handlers(self) -> None:
        assert self.serverapp is not None
        web_app = self.serverapp.web_app
        base_url = web_app.settings["base_url"]
        rule = (url_path_join(base_url, API_PATH, ".*"), LazyRoutes(web_app, base_url))
        web_app.add_handlers(".*$", [rule])  # type: ignore[no-untyped-call]

    async def stop_extension(self) -> None:
        if self._bridge is not None:
            from prime_jupyter.ai.stream import close_http_clients

            await self._bridge.shutdown()
            await close_http_clients()
