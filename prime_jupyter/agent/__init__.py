"""The agent loop: a function that streams, runs tools, and repeats. Pure asyncio, no state of its own."""
