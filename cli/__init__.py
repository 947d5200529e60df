"""`jupyter prime`: the command line and terminal app, importable as `prime_jupyter.cli`."""
