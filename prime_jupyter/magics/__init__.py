"""magics layer; see docs in the modules."""
