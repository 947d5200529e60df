"""Provider layer: unified messages, the `AssistantMessageEvent` stream, models, usage and cost.

Imports nothing else of prime_jupyter. Each provider is imported when it first streams; none imports a provider SDK.
"""
