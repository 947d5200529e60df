"""The chat routes of the JupyterLab panel (vocabulary (b), design.md D9): `handlers` (new, chat, events,
session, question, abort), `sessions` (list, rename, delete, models, commands), `commands` (the slash
commands), `turn` (the NDJSON stream of one run), `views` (hydration for `chat/session`)."""
