"""Python extensions: modules with `setup(prime)` that hook tool calls, results and prompts, and add tools,
commands and shortcuts (README "Extensions"). The contract is `api.py`; `loader.py` finds and imports
them, `host.py` runs them. Nothing is imported here: a session without extensions pays for `loader` only."""
