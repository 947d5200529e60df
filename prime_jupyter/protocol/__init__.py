"""The wire contract: session events and commands, chat frames, requests and responses.

May import only `prime_jupyter.ai` types. Importing this package imports nothing else (the runtime
imports `protocol.events` on its hot path); import the modules you need:

- vocabulary (a), the language of `AgentConnection`: `events` (session events), `codec` (their JSON),
  `event_decoder` (back from JSON), `commands` (what a connection asks), `snapshot` (state, attach
  snapshot, command results), `connection_routes` (its HTTP routes and their event stream);
- vocabulary (b), the language of the panel: `frames` (chat frames), `parts` (chat messages),
  `hydration` (transcript → chat messages), `questions`, `requests` (chat routes), `chat_commands`;
  `mapper` (session events → chat frames);
- `view`: the one conversation model (design.md D12), frames and session events folded into a typed
  view state, the twin of the panel's `model.ts`;
- `common`: the few models both use (model and session references, tree nodes, compact and export
  results), so that a headless run (`events`, `codec`, `snapshot`, `questions`) imports none of the
  panel's frames, requests or hydration;
- `version` (versions, capabilities, the compatibility rule), `wire` (base model), `framing` (NDJSON,
  SSE), `schema` (the exported JSON Schema, `schema.json`).
"""
