"""Provider layer: unified messages, the `AssistantMessageEvent` stream, models, usage and cost.

Imports nothing else of prime_jupyter. Provider SDKs are imported only when a provider streams.
"""
