"""What shapes the agent without changing its code: Python extensions (and, beside them, skills, prompt
templates and MCP tool sources); `runtime/` composes them into sessions."""
