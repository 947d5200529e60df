"""An administrator's policy extension of the HTTP tests (`c.PrimeApp.policy_extensions`): no downloads."""


def setup(prime):  # type: ignore[no-untyped-def]
    def no_curl(event):  # type: ignore[no-untyped-def]
        if event.tool_name == "bash" and "curl" in event.arguments["command"]:
            return {"block": True, "reason": "network downloads are not allowed on this server"}
        return None

    prime.on("tool_call", no_curl)
