"""The connection routes of `HttpAgentConnection`, under `connection/` (vocabulary (a), design.md D9):
`handlers` (attach, command, wait, events), `commands` (one `Command` against a live session),
`event_log` (session events numbered for replay), `stream` (the SSE stream of `connection/events`).

Named for what a client does with them (`jupyter prime attach`), so as not to read as
`prime_jupyter.connection`, the seam these routes serve."""
