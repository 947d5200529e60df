"""connection layer; see docs in the modules."""
