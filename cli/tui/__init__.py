"""The interactive terminal app of `jupyter prime` (Textual), on an `AgentConnection`.

`launch` decides when the app runs and starts it; `app` wires screens and bindings; `screens/` holds one
screen per file and `widgets/` one widget per file; `feed` turns connection events into what the
widgets show. Importing this package imports nothing: Textual is imported when the app is to run.
"""
