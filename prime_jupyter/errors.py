"""The one exception tree of prime-jupyter.

Only errors a caller can act on are classes here; failures inside a running stream are events, not
exceptions (design.md D2). Messages say what to do.

    PrimeError
    ├── ConfigError            bad or missing configuration (settings, models.json, auth.json)
    │   └── MissingApiKeyError no key for a provider; names the variable or file to set
    ├── ModelNotFoundError     an unknown provider or model that cannot be resolved
    │   └── ModelNotAllowedError a model the server's `allowed_models` forbids (a 403 naming the allowed ones)
    ├── PermissionModeError    a permission mode the server does not allow (a 403 naming the allowed ones)
    ├── OutsideRootError       a path a request names lies outside the server's root (a 403)
    ├── SessionError           a transcript that cannot be opened, found or written
    │   ├── SessionNotFoundError
    │   └── TranscriptWriteError a transcript could not be written (a full disk, a read-only folder)
    ├── ToolError              a tool failed; its message becomes the tool result the model sees
    ├── ServerUnavailableError a Jupyter server could not be reached (worth retrying)
    ├── KernelError            a kernel could not be started or used
    │   └── KernelDiedError    the kernel process went away (crash, os._exit, out of memory)
    ├── BudgetExceededError    a cost budget is spent (a 403 naming it and where it is set)
    ├── BusyError              an operation that needs an idle session was asked while a run is going
    └── RunFailedError         a notebook prompt's run ended in an error: the cell fails, so pipelines stop
"""

from __future__ import annotations

__all__ = [
    "BudgetExceededError",
    "BusyError",
    "ConfigError",
    "KernelDiedError",
    "KernelError",
    "MissingApiKeyError",
    "ModelNotAllowedError",
    "ModelNotFoundError",
    "OutsideRootError",
    "PermissionModeError",
    "PrimeError",
    "RunFailedError",
    "ServerUnavailableError",
    "SessionError",
    "SessionNotFoundError",
    "ToolError",
    "TranscriptWriteError",
]


class PrimeError(Exception):
    """Root of every error prime-jupyter raises on purpose."""


class ConfigError(PrimeError):
    """Configuration is missing or malformed; the message names the file or variable."""


class MissingApiKeyError(ConfigError):
    """No API key is configured for a provider."""

    def __init__(self, provider: str, env_var: str | None, auth_path: str) -> None:
        where = f"set {env_var} or add it to {auth_path}" if env_var else f"add it to {auth_path}"
        super().__init__(f"no API key for provider '{provider}': {where}")
        self.provider = provider
        self.env_var = env_var


class ModelNotFoundError(PrimeError):
    """A model reference names no known provider or model."""


class ModelNotAllowedError(ModelNotFoundError):
    """A model the server's `allowed_models` forbids; names the allowed ones."""


class OutsideRootError(PrimeError):
    """A working directory or export path a request names lies outside the server's root directory, where
    Jupyter's own contents API would refuse it too; the message names the path and the setting that
    allows it (`c.PrimeApp.allow_outside_root`)."""


class SessionError(PrimeError):
    """A session transcript cannot be used."""


class SessionNotFoundError(SessionError):
    """No session matches an id, prefix or path."""


class TranscriptWriteError(SessionError):
    """A transcript could not be written (a full disk, a read-only folder): the host's problem, not the
    request's."""


class ToolError(PrimeError):
    """A tool failed; the message is shown to the model as an error tool result."""


class ServerUnavailableError(PrimeError):
    """The Jupyter server did not answer or answered that it is not available; trying again may work."""


class KernelError(PrimeError):
    """A kernel could not be started or used; the message says what happened and what to do."""


class KernelDiedError(KernelError):
    """The kernel process went away (crash, `os._exit`, out of memory, shut down by another client)."""


class BudgetExceededError(PrimeError):
    """A run would go past a cost budget; the message names the budget and where it is set."""


class BusyError(PrimeError):
    """The session is running; wait for it to become idle or abort it first."""


class RunFailedError(PrimeError):
    """A `%%prime` run ended in an error (or could not start); raised in the cell after the cell showed what
    happened, so that "Run all", nbclient and papermill stop there (`--no-raise` keeps going)."""

    def _render_traceback_(self) -> list[str]:
        """What IPython shows instead of a stack trace: the failure is the news, not our call stack."""
        return [f"{type(self).__name__}: {self}"]


class PermissionModeError(PrimeError):
    """A permission mode the server's `allowed_permission_modes` forbids; names the allowed ones."""
