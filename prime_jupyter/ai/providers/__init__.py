"""Provider implementations, imported lazily by `prime_jupyter.ai.stream`; they speak the APIs over httpx
(`_client`)."""
