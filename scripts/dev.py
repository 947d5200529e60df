#!/usr/bin/env python3
"""The two developer commands of prime-jupyter (the README's "run" and "test").

    python3 scripts/dev.py test [pytest args...]     ruff, ruff format --check, mypy, the panel's tests, pytest
    python3 scripts/dev.py run  [jupyter lab args...]  JupyterLab with the extension installed

Both first make sure `.venv/` holds an editable install of the project with its test extra and a fresh
build of the JupyterLab extension. Standard library only, so a fresh machine needs nothing but python3
(>= 3.11, with venv) and node/npm. A stamp file in `.venv/` records a hash of the install inputs, so a
re-run with nothing changed skips pip entirely.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

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
PROVIDER_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
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


def _run(cmd: Sequence[str], *, env: dict[str, str] | None = None) -> int:
    """Run `cmd` in the repo root with the venv first on PATH; return its exit code."""
    full_env = {**os.environ, **(env or {})}
    full_env["VIRTUAL_ENV"] = str(VENV)
    full_env["PATH"] = f"{BIN}{os.pathsep}{full_env.get('PATH', '')}"
    return subprocess.run(list(cmd), cwd=ROOT, env=full_env, check=False).returncode


def _check(cmd: Sequence[str], what: str) -> None:
    """Run a setup command and raise `DevError` naming `what` when it fails."""
    code = _run(cmd)
    if code != 0:
        raise DevError(f"{what} failed (exit code {code}); see the output above")


def _create_venv() -> None:
    """Create `.venv` with the running python3; remove a half-made one on failure."""
    print(f"==> creating {VENV.relative_to(ROOT)} with {sys.executable}", flush=True)
    code = subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=False).returncode
    if code != 0 or not (BIN / "pip").exists():
        shutil.rmtree(VENV, ignore_errors=True)
        raise DevError(
            "could not create the virtual environment. On Debian/Ubuntu install the venv module with "
            "`apt-get install python3-venv` and run this command again."
        )


def _install(stamp: dict[str, str], old: dict[str, str]) -> None:
    """Editable install with the test extra; rebuild the labextension when its sources changed."""
    if shutil.which("npm") is None:
        raise DevError("npm was not found on PATH; install Node.js (>= 18) with npm to build the panel")
    if stamp.get("frontend") != old.get("frontend") or not (LABEXT_OUT / "static" / "style.js").is_file():
        # The builder hook skips the build while this folder exists (`skip-if-exists`).
        shutil.rmtree(LABEXT_OUT, ignore_errors=True)
    import tomllib  # here, so that Python < 3.11 reaches the version check in main()

    build_requires: list[str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    print("==> installing prime-jupyter (editable, with test tools) into .venv", flush=True)
    # Without build isolation pip installs no build requirements; hatchling's editable builds need `editables`.
    tools = [*build_requires, "editables"]
    _check([PYTHON, "-m", "pip", "install", "-q", *tools], "installing the build tools")
    pip = [PYTHON, "-m", "pip", "install", "-q", "--no-build-isolation", "-e", ".[test]"]
    _check(pip, "pip install -e '.[test]' (which also builds the labextension with npm)")
    if not (LABEXT_OUT / "package.json").is_file():
        raise DevError(f"the labextension build left no {LABEXT_OUT.relative_to(ROOT)}/package.json")


def ensure_env() -> None:
    """Make `.venv` hold an up-to-date editable install, doing nothing when the stamp matches."""
    if not (BIN / "python").exists():
        _create_venv()
    stamp, old = _current_stamp(), _read_stamp()
    if stamp == old and (LABEXT_OUT / "static" / "style.js").is_file():
        return
    _install(stamp, old)
    STAMP.write_text(json.dumps(stamp, indent=2) + "\n")


def ensure_node_modules() -> None:
    """The panel's npm dependencies (its unit tests and the browser tests' playwright-core), from the lock file."""
    if not (LABEXT_SRC / "node_modules" / ".package-lock.json").is_file():
        print("==> installing the panel's npm dependencies (npm ci)", flush=True)
        _check(["npm", "ci", "--prefix", str(LABEXT_SRC)], "npm ci in labextension/")


def ensure_chromium() -> None:
    """Debian's chromium for the browser tests, installed with apt when it is missing."""
    if CHROMIUM.exists():
        return
    if shutil.which("apt-get") is None:
        raise DevError(f"{CHROMIUM} is missing and apt-get is not available: install Chromium for the browser tests")
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    print("==> installing chromium for the browser tests (apt-get)", flush=True)
    _check([*sudo, "apt-get", "update"], "apt-get update")
    _check([*sudo, "apt-get", "install", "-y", "--no-install-recommends", "chromium"], "apt-get install chromium")


def _test_steps(pytest_args: Sequence[str]) -> list[tuple[str, list[str]]]:
    return [
        ("ruff check", [str(BIN / "ruff"), "check", "."]),
        ("ruff format --check", [str(BIN / "ruff"), "format", "--check", "."]),
        ("mypy", [str(BIN / "mypy")]),
        ("panel unit tests (npm test)", ["npm", "test", "--prefix", str(LABEXT_SRC)]),
        ("pytest", [PYTHON, "-m", "pytest", *pytest_args]),
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
        "No LLM provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, "
        f"or add keys to {agent_dir / 'auth.json'} (custom models: {agent_dir / 'models.json'})."
    )


def cmd_run(lab_args: Sequence[str]) -> int:
    """Replace this process with `jupyter lab`, adding `--allow-root` when running as root."""
    ensure_env()
    hint = _provider_hint()
    if hint:
        print(hint, flush=True)
    args = [str(BIN / "jupyter"), "lab", *lab_args]
    if os.geteuid() == 0 and "--allow-root" not in lab_args:
        args.append("--allow-root")
    os.environ["VIRTUAL_ENV"] = str(VENV)
    os.environ["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    os.execv(args[0], args)


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
