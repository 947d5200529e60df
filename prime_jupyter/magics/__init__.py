"""Notebook-driven sessions: the `%prime` / `%%prime` magics and the Python API (`Session`).

Modules: `extension` (the magics and their commands), `cell_run` (a run drawn into the cell),
`render` (events folded into blocks, throttled displays), `api` (`Session`; `_waiting` helps it wait),
`connect` (the one place a connection is made), `loop_thread` (the agent's own loop), `prompt_text`
(interpolation, the last error), `questions` (the agent's questions on stdin). A session exported as an
`.ipynb` goes through the connection's `export` (`prime_jupyter.runtime.notebook_export`). The in-process
kernel and the channel that hands code to the shell's thread are in `prime_jupyter.kernel.inprocess`.
Importing this package imports none of them.
"""
