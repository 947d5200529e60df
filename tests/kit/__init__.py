"""The test kit: what tests share beyond fixtures, one module per thing under test.

    server    PrimeClient (the chat and connection routes over HTTP), ServerProcess, frame helpers
    remote    HttpAgentConnection helpers: attach, collect events, wait for conditions
    kernels   running the ipython tool against real kernels, reading their outputs
    sessions  messages to build transcripts from
    golden    the scripted runs behind the golden NDJSON streams (tests/golden/), and their regeneration
    browser   JupyterLab and headless Chromium for the end-to-end panel tests

Tests import it as `from kit.server import PrimeClient` (pytest puts `tests/` on the path for the
top-level conftest). Jupyter servers come from two places only: pytest-jupyter's in-process
`jp_serverapp` for the route tests, and `prime_jupyter.testing.jupyter_process.JupyterProcess` (or
`kit.server.ServerProcess` / `kit.browser.start_lab`, which add a restart and a browser) for
subprocesses.
"""
