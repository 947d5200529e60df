"""Provider implementations, imported lazily by `prime_jupyter.ai.stream` (each imports its SDK)."""
