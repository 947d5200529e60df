"""Append-only JSONL session transcripts: records, tree, context building, compaction, listing.

The modules are imported one by one (`prime_jupyter.sessions.manager`, `.listing`, ...): this package
re-exports nothing, so that a launch imports only what it uses.
"""
