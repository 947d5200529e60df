"""Model-facing tools, one file each."""
