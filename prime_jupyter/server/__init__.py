"""server layer; see docs in the modules."""
