"""runtime layer; see docs in the modules."""
