"""The wire contract: session events and commands, chat frames, requests and responses.

May import only `prime_jupyter.ai` message and content types.
"""
