#!/usr/bin/env python3
"""The two developer commands of prime-jupyter (the README's "run" and "test").

    python3 scripts/dev.py test [pytest args...]     ruff, ruff format --check, mypy, the panel's tests, pytest
    python3 scripts/dev.py run  [jupyter lab args...]  JupyterLab with the extension, serving ~/prime-workspace

Both first make sure `.venv/` holds an editable install of the project with its test, science and collab
extras (the agent's kernel gets pandas and matplotlib; Lab gets real-time collaboration, which the notebook
tools work through) and a fresh build of the JupyterLab extension, showing
each step and pip's and npm's own output (and a line now and then while they are quiet). Standard
library only, so a fresh machine needs nothing but python3 (>= 3.11, with venv) and node/npm. A stamp file
in `.venv/` records a hash of the install inputs, so a re-run with nothing changed skips pip entirely.

`run` serves a workspace folder outside the checkout (`$PRIME_WORKSPACE`, else `~/prime-workspace`,
created when missing; a `--ServerApp.root_dir` or `--notebook-dir` argument wins), so the files the agent
and JupyterLab write never land in the repository.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, TextIO

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / "bin"
STAMP = VENV / ".prime-dev-stamp.json"
LABEXT_SRC = ROOT / "labextension"
LABEXT_OUT = ROOT / "prime_jupyter" / "labextension"
# Everything the frontend build reads; a change here forces a rebuild despite `skip-if-exists`.
FRONTEND_INPUTS = ("package.json", "package-lock.json", ".npmrc", "tsconfig.json", "src", "style")
# Everything else an editable install copies or reads at install time.
INSTALL_INPUTS = (
    "pyproject.toml",
    "install.json",
    "prime_jupyter/_version.py",
    "prime_jupyter/server/jupyter-config.json",
)
EXTRAS = "test,science,collab"
PROVIDER_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
WORKSPACE_ENV = "PRIME_WORKSPACE"
DEFAULT_WORKSPACE = "~/prime-workspace"
ROOT_DIR_OPTIONS = ("--ServerApp.root_dir", "--notebook-dir", "--ServerApp.notebook_dir")
QUIET_STEP_SECONDS = 20.0  # a setup step silent this long gets a "still ..." line
QUIET_SERVER_SECONDS = 1.0  # the server's startup log ends with its URLs: silence this long after one ends it
URL_LINE = re.compile(r"^\s*https?://\S+\s*$")
CHROMIUM = Path("/usr/bin/chromium")  # Debian's; the browser tests never download one
PYTHON = str(BIN / "python")


class DevError(Exception):
    """A setup step failed; the message tells the user what to do."""


def _files(paths: Iterable[Path]) -> list[Path]:
    """Files under `paths` (files or folders), sorted, missing ones skipped."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(p for p in path.rglob("*") if p.is_file())
        elif path.is_file():
            found.append(path)
    return sorted(found)


def _digest(paths: Iterable[Path]) -> str:
    """Hash of the names and contents of the files under `paths`."""
    sha = hashlib.sha256()
    for path in _files(paths):
        sha.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return sha.hexdigest()


def _current_stamp() -> dict[str, str]:
    """The stamp the environment would have if it were up to date."""
    frontend = _digest(LABEXT_SRC / name for name in FRONTEND_INPUTS)
    install = _digest(ROOT / name for name in INSTALL_INPUTS)
    return {"frontend": frontend, "install": install}


def _read_stamp() -> dict[str, str]:
    try:
        data = json.loads(STAMP.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of the commands run here: the venv first on PATH."""
    env = {**os.environ, **(extra or {})}
    env["VIRTUAL_ENV"] = str(VENV)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(cmd: Sequence[str], *, env: dict[str, str] | None = None) -> int:
    """Run `cmd` in the repo root with the venv first on PATH; return its exit code."""
    return subprocess.run(list(cmd), cwd=ROOT, env=_env(env), check=False).returncode


def relay(stream: IO[str], write: Callable[[str], object], on_quiet: Callable[[], object], quiet_after: float) -> None:
    """Copy `stream`'s lines to `write` until it closes, calling `on_quiet` after each `quiet_after` seconds
    in which no line came."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    while True:
        try:
            line = lines.get(timeout=quiet_after)
        except queue.Empty:
            on_quiet()
            continue
        if line is None:
            return
        write(line)


def _elapsed(start: float) -> str:
    seconds = int(time.monotonic() - start)
    return f"{seconds // 60}m{seconds % 60:02d}s"


def _check(
    cmd: Sequence[str],
    what: str,
    *,
    env: dict[str, str] | None = None,
    out: TextIO | None = None,
    quiet_after: float = QUIET_STEP_SECONDS,
) -> None:
    """Run a setup command, showing its output and a line whenever it is quiet for `quiet_after` seconds;
    raise `DevError` naming `what` when it fails."""
    sink = out or sys.stdout
    start = time.monotonic()

    def write(line: str) -> None:
        sink.write(line)
        sink.flush()

    def still() -> None:
        write(f"    ... still {what} ({_elapsed(start)} so far)\n")

    proc = subprocess.Popen(
        list(cmd),
        cwd=ROOT,
        env=_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    )
    assert proc.stdout is not None
    with proc:
        relay(proc.stdout, write, still, quiet_after)
    if proc.returncode != 0:
        raise DevError(f"{what} failed (exit code {proc.returncode}); see the output above")


def _step(text: str) -> None:
    print(f"\n==> {text}", flush=True)


def _create_venv() -> None:
    """Create `.venv` with the running python3; remove a half-made one on failure."""
    _step(f"creating {VENV.relative_to(ROOT)} with {sys.executable} (the first run takes a few minutes)")
    code = subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=False).returncode
    if code != 0 or not (BIN / "pip").exists():
        shutil.rmtree(VENV, ignore_errors=True)
        raise DevError(
            "could not create the virtual environment. On Debian/Ubuntu install the venv module with "
            "`apt-get install python3-venv` and run this command again."
        )


def _build_frontend() -> None:
    """The JupyterLab extension, built as the editable install's hook would, with npm's output shown."""
    if shutil.which("npm") is None:
        raise DevError("npm was not found on PATH; install Node.js (>= 18) with npm to build the panel")
    shutil.rmtree(LABEXT_OUT, ignore_errors=True)
    ensure_node_modules()
    _step("building the JupyterLab extension (npm run build)")
    _check(["npm", "run", "build", "--prefix", str(LABEXT_SRC)], "building the JupyterLab extension")
    if not (LABEXT_OUT / "package.json").is_file():
        raise DevError(f"the labextension build left no {LABEXT_OUT.relative_to(ROOT)}/package.json")


def _install(stamp: dict[str, str], old: dict[str, str]) -> None:
    """Editable install with the `EXTRAS`; rebuild the labextension when its sources changed."""
    import tomllib  # here, so that Python < 3.11 reaches the version check in main()

    build_requires: list[str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    _step("installing the build tools into .venv (pip)")
    # Without build isolation pip installs no build requirements; hatchling's editable builds need `editables`.
    _check([PYTHON, "-m", "pip", "install", *build_requires, "editables"], "installing the build tools")
    if stamp.get("frontend") != old.get("frontend") or not (LABEXT_OUT / "static" / "style.js").is_file():
        _build_frontend()
    _step(f"installing prime-jupyter[{EXTRAS}] (editable) into .venv (pip)")
    # Built above: the builder hook skips its own npm run (`skip-if-exists`, and told so).
    pip = [PYTHON, "-m", "pip", "install", "--no-build-isolation", "-e", f".[{EXTRAS}]"]
    _check(pip, f"pip install -e '.[{EXTRAS}]'", env={"HATCH_JUPYTER_BUILDER_SKIP_NPM": "1"})


def ensure_env() -> None:
    """Make `.venv` hold an up-to-date editable install, doing nothing when the stamp matches."""
    if not (BIN / "python").exists():
        _create_venv()
    stamp, old = _current_stamp(), _read_stamp()
    if stamp == old and (LABEXT_OUT / "static" / "style.js").is_file():
        return
    _install(stamp, old)
    STAMP.write_text(json.dumps(stamp, indent=2) + "\n")
    _step("the environment in .venv is ready")


def ensure_node_modules() -> None:
    """The panel's npm dependencies (its unit tests and the browser tests' playwright-core), from the lock file."""
    if not (LABEXT_SRC / "node_modules" / ".package-lock.json").is_file():
        _step("installing the panel's npm dependencies (npm ci)")
        _check(["npm", "ci", "--prefix", str(LABEXT_SRC)], "npm ci in labextension/")


def ensure_chromium() -> None:
    """Debian's chromium for the browser tests, installed with apt when it is missing."""
    if CHROMIUM.exists():
        return
    if shutil.which("apt-get") is None:
        raise DevError(f"{CHROMIUM} is missing and apt-get is not available: install Chromium for the browser tests")
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    _step("installing chromium for the browser tests (apt-get)")
    _check([*sudo, "apt-get", "update"], "apt-get update")
    _check([*sudo, "apt-get", "install", "-y", "--no-install-recommends", "chromium"], "apt-get install chromium")


def _test_steps(pytest_args: Sequence[str]) -> list[tuple[str, list[str]]]:
    return [
        ("ruff check", [str(BIN / "ruff"), "check", "."]),
        ("ruff format --check", [str(BIN / "ruff"), "format", "--check", "."]),
        ("mypy", [str(BIN / "mypy")]),
        ("panel unit tests (npm test)", ["npm", "test", "--prefix", str(LABEXT_SRC)]),
        ("pytest", [PYTHON, "-m", "pytest", "--durations=25", *pytest_args]),  # the 25 slowest tests, at the end
    ]


def cmd_test(pytest_args: Sequence[str]) -> int:
    """Run every check in order and stop at the first failure (pytest's 5, no tests, is one too)."""
    ensure_env()
    ensure_node_modules()
    ensure_chromium()
    for name, cmd in _test_steps(pytest_args):
        print(f"\n==> {name}", flush=True)
        code = _run(cmd)
        if code != 0:
            print(f"\nFAILED: {name} (exit code {code})", file=sys.stderr)
            return code
    print("\nAll checks passed.")
    return 0


def _provider_hint() -> str | None:
    """One line on configuring a provider, or None when one looks configured."""
    if any(os.environ.get(key) for key in PROVIDER_KEYS):
        return None
    agent_dir = Path(os.environ.get("PRIME_AGENT_DIR") or Path.home() / ".prime" / "agent").expanduser()
    if (agent_dir / "auth.json").exists() or (agent_dir / "models.json").exists():
        return None
    return (
        "No LLM provider configured: open the Prime panel (the star in the left sidebar) and press "
        "'Set up a provider', or set ANTHROPIC_API_KEY or OPENAI_API_KEY before starting, "
        f"or add keys to {agent_dir / 'auth.json'} (custom models: {agent_dir / 'models.json'})."
    )


def workspace(lab_args: Sequence[str], environ: Mapping[str, str]) -> Path | None:
    """The folder `run` serves, or None when `lab_args` choose one themselves."""
    if any(arg.split("=", 1)[0] in ROOT_DIR_OPTIONS for arg in lab_args):
        return None
    return Path(environ.get(WORKSPACE_ENV) or DEFAULT_WORKSPACE).expanduser().resolve()


def serve(args: Sequence[str], cwd: Path, hint: str | None, *, err: TextIO | None = None) -> int:
    """Run the server `args` in `cwd` until it exits, relaying its log (stderr) to `err` and repeating
    `hint` below each block of URLs it logs (at startup: where a user looks), once the log goes quiet.

    Ctrl+C reaches the server itself (it asks whether to shut down); this process waits for it to end.
    """
    sink = err or sys.stderr
    proc = subprocess.Popen(list(args), cwd=cwd, env=_env(), stderr=subprocess.PIPE, text=True, errors="replace")
    assert proc.stderr is not None
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: proc.terminate())
    urls_shown = False

    def write(line: str) -> None:
        nonlocal urls_shown
        sink.write(line)
        sink.flush()
        urls_shown = urls_shown or bool(URL_LINE.match(line))

    def after_urls() -> None:
        nonlocal urls_shown
        if urls_shown and hint:
            sink.write(f"\n{hint}\n\n")
            sink.flush()
        urls_shown = False

    with proc:
        relay(proc.stderr, write, after_urls, QUIET_SERVER_SECONDS)
    return proc.returncode


def cmd_run(lab_args: Sequence[str]) -> int:
    """`jupyter lab` on the workspace folder, with `--allow-root` when running as root."""
    ensure_env()
    args = [str(BIN / "jupyter"), "lab", *lab_args]
    folder = workspace(lab_args, os.environ)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        args.append(f"--ServerApp.root_dir={folder}")
        print(
            f"==> serving {folder} (the agent's files go there; set {WORKSPACE_ENV}=DIR or pass "
            "--ServerApp.root_dir=DIR for another folder)",
            flush=True,
        )
        if folder.is_relative_to(ROOT):
            print(f"    note: {folder} is inside the checkout, so the agent's files will show in `git status`")
    if os.geteuid() == 0 and "--allow-root" not in lab_args:
        args.append("--allow-root")
    print(f"==> for `jupyter prime` in another terminal, first: source {BIN / 'activate'}", flush=True)
    hint = _provider_hint()
    if hint:
        print(hint, flush=True)
    return serve(args, folder or Path.cwd(), hint)


USAGE = __doc__.split("\n\n")[1] if __doc__ else ""


def main(argv: Sequence[str]) -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 -- this runs on the machine's python3, not the venv's
        print("scripts/dev.py needs Python >= 3.11", file=sys.stderr)
        return 2
    commands = {"test": cmd_test, "run": cmd_run}
    if not argv or argv[0] not in commands:
        print(f"usage:\n{USAGE}", file=sys.stderr)
        return 2
    try:
        return commands[argv[0]](argv[1:])
    except DevError as error:
        print(f"\nERROR: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
