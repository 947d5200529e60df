"""What every route of the extension shares: `base` (`PrimeHandler`: auth, body parsing, errors as
statuses), `streaming` (NDJSON and SSE responses written as frames arrive), `feeds` (what waits to be
written to one client)."""
