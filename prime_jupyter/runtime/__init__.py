"""Composition root: `AgentSession`, settings, resource loading (context files, system prompt), tool sets."""
