"""What a new, empty session shows before the first prompt: the keys to start with, and a warning when
the model the session would use has no API key (a prompt would come back "Not sent")."""

from __future__ import annotations

from prime_jupyter.connection.base import AgentConnection

__all__ = ["KEYS", "key_warning"]

KEYS = "Enter sends · / commands · @ attaches a file · !cmd runs a shell command · Esc aborts · /hotkeys"


async def key_warning(connection: AgentConnection) -> str | None:
    """What to say when the session's model cannot run for want of a key (or of a model), else None."""
    models = await connection.get_available_models()
    current = models.current
    if current is None:
        return "No model is configured: /model picks one."
    model = next((m for m in models.models if (m.provider, m.id) == (current.provider, current.id)), None)
    if model is None or model.available:
        return None
    return (
        f"{current.provider}/{current.id} has no API key: set one (ANTHROPIC_API_KEY or OPENAI_API_KEY where the"
        " agent runs, or auth.json or models.json in its folder), or pick another model with /model."
    )
