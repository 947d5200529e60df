"""What the browser tests run on: a real `jupyter lab` with token auth, an agent dir whose only provider is
the scripted LLM server, and a node driver (playwright-core on Debian's Chromium) that plays one scenario
in the page and reports what it saw as one JSON line.

The panel's own end-to-end driver lives in `e2e/panel.mjs`, the notebook's (`%%prime` in a Lab notebook) in
`e2e/notebook.mjs`; playwright-core comes from the labextension's node_modules (never a downloaded browser).
A notebook's kernel inherits the lab's environment: the agent dir, and PYTHONPATH with this checkout first.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prime_jupyter.testing.jupyter_process import collab_state_args

ROOT = Path(__file__).resolve().parents[2]
LABEXT = ROOT / "labextension"
DRIVER = Path(__file__).resolve().parents[1] / "browser" / "e2e" / "panel.mjs"
NOTEBOOK_DRIVER = DRIVER.with_name("notebook.mjs")
SCREENSHOTS = Path(__file__).resolve().parents[1] / "browser" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
MODEL = "scripted/m1"

Json = dict[str, Any]


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing: `python3 scripts/dev.py test` installs Debian's chromium"
    if shutil.which("node") is None:
        return "node is not on PATH"
    if not (LABEXT / "node_modules" / "playwright-core").is_dir():
        return "labextension/node_modules/playwright-core is missing: run `npm ci` in labextension/"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def write_agent_dir(home: Path, llm_url: str) -> Path:
    """An agent dir whose only provider is the scripted server, with the ipython and notebook tools (ask comes
    with the panel); its default model is the scripted one, so a notebook's `%%prime` uses it too."""
    home.mkdir(parents=True, exist_ok=True)
    provider = {
        "baseUrl": llm_url,
        "api": "anthropic-messages",
        "apiKey": "k",
        "models": [{"id": "m1", "name": "Scripted model", "contextWindow": 100_000, "maxTokens": 4096}],
    }
    (home / "models.json").write_text(json.dumps({"providers": {"scripted": provider}}))
    settings = {
        "tools": ["ipython", "notebook_read", "notebook_edit", "notebook_run"],
        "retry": {"enabled": False},
        "compaction": {"enabled": False},
        "defaultModel": MODEL,
        "permissionMode": "auto",  # tools run without asking, unless a test asks for a mode
    }
    (home / "settings.json").write_text(json.dumps(settings))
    return home


def write_lab_settings(settings_dir: Path) -> Path:
    """User settings that keep the news popup out of the screenshots."""
    target = settings_dir / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    return settings_dir


@dataclass
class Lab:
    """A running `jupyter lab`; `url` ends with `/`."""

    url: str
    token: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def start_lab(
    workdir: Path,
    agent_dir: Path,
    *,
    extension: bool = True,
    port: int | None = None,
    token: str | None = None,
    default_model: str = MODEL,
    unset: tuple[str, ...] = (),
) -> Lab:
    """`jupyter lab` on a free port (or `port`) with a random token (or `token`), its state (settings,
    workspaces, runtime, hence the cookie secret) under `workdir`; returns once `/api/status` answers.
    Starting it again with the same workdir, port and token is a server restart as a browser sees it.
    `default_model` is `--PrimeApp.default_model`; the variables named in `unset` are removed from its
    environment (an API key the machine may have)."""
    token = token or secrets.token_hex(16)
    port = port or free_port()
    root = workdir / "root"
    root.mkdir(parents=True, exist_ok=True)
    env = {
        **{name: value for name, value in os.environ.items() if name not in unset},
        "JUPYTERLAB_SETTINGS_DIR": str(write_lab_settings(workdir / "settings")),
        "JUPYTERLAB_WORKSPACES_DIR": str(workdir / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(workdir / "runtime"),
        "PRIME_AGENT_DIR": str(agent_dir),
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
    }
    args = [
        str(Path(sys.executable).with_name("jupyter")),
        "lab",
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True",
        f"--PrimeApp.agent_dir={agent_dir}",
        f"--PrimeApp.default_model={default_model}",
        "--PrimeApp.default_permission_mode=auto",  # tools run without asking, unless a test asks for a mode
        *collab_state_args(workdir),
    ]
    if not extension:
        args.append("--ServerApp.jpserver_extensions=prime_jupyter=False")
    built = _this_build(workdir)
    if built is not None:
        args.append(f"--LabApp.extra_labextensions_path={built}")
    log = workdir / f"lab-{port}.log"
    with log.open("ab") as out:
        process = subprocess.Popen(args, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    lab = Lab(f"http://127.0.0.1:{port}/", token, port, process, log)
    _wait_ready(lab)
    return lab


def _this_build(workdir: Path) -> Path | None:
    """A labextensions folder holding this checkout's build of the panel, which Lab then prefers to an
    installed copy (the same one where the checkout is installed editable; another one in a worktree)."""
    build = ROOT / "prime_jupyter" / "labextension"
    if not (build / "package.json").exists():
        return None
    folder = workdir / "labextensions"
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / "prime-jupyter"
    if not link.exists():
        link.symlink_to(build, target_is_directory=True)
    return folder


def _wait_ready(lab: Lab, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lab.process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {lab.process.returncode}:\n{lab.log_tail()}")
        request = urllib.request.Request(lab.url + "api/status", headers={"Authorization": f"token {lab.token}"})
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.25)
    lab.stop()
    raise RuntimeError(f"jupyter lab did not answer within {timeout} s:\n{lab.log_tail()}")


def start_scenario(lab: Lab, scenario: str, params: Json | None = None, driver: Path = DRIVER) -> subprocess.Popen[str]:
    """Start playing `scenario` of the node `driver` in a fresh browser page (see `finish_scenario`)."""
    SCREENSHOTS.mkdir(exist_ok=True)
    args = [
        "node",
        str(driver),
        "--scenario", scenario,
        "--url", lab.url,
        "--token", lab.token,
        "--shots", str(SCREENSHOTS),
        "--chromium", str(CHROMIUM),
        "--params", json.dumps(params or {}),
    ]  # fmt: skip
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_scenario(lab: Lab, driver: subprocess.Popen[str], timeout: float = 150.0) -> Json:
    """The driver's JSON report once it ended; fails the test with what went wrong when it is not `ok`.

    On failure `error` says what went wrong and `console` holds the page's console errors.
    Screenshots go to `tests/browser/screenshots/`.
    """
    try:
        stdout, stderr = driver.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        driver.kill()
        stdout, stderr = driver.communicate()
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise AssertionError(f"driver printed no report (exit {driver.returncode}):\n{stdout}\n{stderr}")
    report: Json = json.loads(lines[-1])
    if not report.get("ok"):
        raise AssertionError(
            f"scenario {report.get('scenario')!r} failed: {report.get('error')}\n"
            f"page console: {report.get('console')}\npanel text: {report.get('panel')}\nlab log:\n{lab.log_tail()}"
        )
    return report


def run_scenario(
    lab: Lab, scenario: str, params: Json | None = None, timeout: float = 150.0, driver: Path = DRIVER
) -> Json:
    """Play `scenario` of `driver` in a fresh browser page and return its report (see `finish_scenario`)."""
    return finish_scenario(lab, start_scenario(lab, scenario, params, driver), timeout)


def wait_for_file(path: Path, driver: subprocess.Popen[str], timeout: float = 90.0) -> None:
    """Wait until the driver wrote `path` (a rendezvous), failing early if the driver ended."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        if driver.poll() is not None or time.monotonic() > deadline:
            stdout, stderr = driver.communicate()
            raise AssertionError(f"the driver never wrote {path.name}:\n{stdout}\n{stderr}")
        time.sleep(0.1)
