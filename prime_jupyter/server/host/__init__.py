"""What hosts the sessions of this server, below both route families: `bridge` (`PrimeBridge`: open,
create, list, rename, delete), `live` (one running session, its event mapper and ring), `ring` (numbered
frames for replay), `dialogs` (pending questions kept on disk), `kernels` (readiness for `GET info`),
`summaries` (what a session list shows). Nothing here speaks HTTP."""
