"""`scripts/dev.py`, the README's two commands, in pieces: a fresh clone's whole `run` takes minutes (it is
checked by hand). Which folder `run` serves, the progress a quiet setup step shows, and the provider hint
repeated after the server's URLs, with a real `jupyter lab`."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from prime_jupyter.testing.jupyter_process import free_port

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "dev.py"
HINT = "No LLM provider configured: (the hint under test)"


def _load_dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


dev = _load_dev()


def test_run_serves_a_workspace_outside_the_checkout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    folder = dev.workspace([], {})
    assert folder == tmp_path / "prime-workspace" and not folder.is_relative_to(ROOT)


def test_the_workspace_can_be_chosen(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert dev.workspace([], {"PRIME_WORKSPACE": "~/elsewhere"}) == tmp_path / "elsewhere"
    assert dev.workspace(["--no-browser"], {"PRIME_WORKSPACE": str(tmp_path)}) == tmp_path


@pytest.mark.parametrize("option", ["--ServerApp.root_dir=/srv/data", "--notebook-dir=/srv/data"])
def test_a_root_dir_given_to_jupyter_wins(option: str) -> None:
    assert dev.workspace(["--no-browser", option], {"PRIME_WORKSPACE": "/ignored"}) is None


class _Watcher:
    """A text sink that creates `go` when the step runner says the step is still going after it began."""

    def __init__(self, go: Path) -> None:
        self.go, self.text = go, ""

    def write(self, text: str) -> int:
        self.text += text
        if "... still" in text and "begun" in self.text:
            self.go.touch()
        return len(text)

    def flush(self) -> None:
        pass


def test_a_quiet_setup_step_shows_it_is_still_going(tmp_path: Path) -> None:
    go = tmp_path / "go"
    child = f"import os, time\nprint('begun', flush=True)\nwhile not os.path.exists({str(go)!r}): time.sleep(0.01)\n"
    child += "print('done')"
    out = _Watcher(go)
    dev._check([sys.executable, "-c", child], "resolving the moon", out=out, quiet_after=0.05)
    lines = out.text.splitlines()
    assert [line for line in lines if not line.startswith("    ... still")] == ["begun", "done"]
    after_begun = lines[lines.index("begun") + 1]
    assert re.fullmatch(r"    \.\.\. still resolving the moon \(\d+m\d\ds so far\)", after_begun)


def test_a_failed_setup_step_names_itself(tmp_path: Path) -> None:
    out = _Watcher(tmp_path / "go")
    with pytest.raises(dev.DevError, match=r"counting sheep failed \(exit code 3\)"):
        dev._check([sys.executable, "-c", "print('baa'); raise SystemExit(3)"], "counting sheep", out=out)
    assert out.text == "baa\n"


@pytest.mark.e2e
def test_the_provider_hint_comes_again_after_the_servers_urls(tmp_path: Path) -> None:
    """The hint printed before the server starts scrolls away under its log: it comes again where users look."""
    jupyter = Path(sys.executable).parent / "jupyter"
    args = [str(jupyter), "lab", "--no-browser", f"--port={free_port()}", f"--ServerApp.root_dir={tmp_path}"]
    if os.geteuid() == 0:
        args.append("--allow-root")
    code = f"import sys\nsys.path.insert(0, {str(SCRIPT.parent)!r})\nimport dev\n"
    code += f"sys.exit(dev.serve({args!r}, dev.Path({str(tmp_path)!r}), {HINT!r}, err=sys.stdout))"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"), PRIME_AGENT_DIR=str(tmp_path / "agent"))
    wrapper = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    assert wrapper.stdout is not None
    lines: list[str] = []
    try:
        for line in wrapper.stdout:  # up to the hint below the last block of URLs, the one with the token
            lines.append(line.rstrip("\n"))
            if line.startswith(HINT) and any("Or copy and paste one of these URLs" in seen for seen in lines):
                break
    finally:
        wrapper.send_signal(signal.SIGTERM)  # passed on to the server, which shuts down
        rest, _ = wrapper.communicate(timeout=60)
    urls = [i for i, line in enumerate(lines) if dev.URL_LINE.match(line)]
    assert lines[-1] == HINT and urls, "\n".join(lines)
    assert not any(dev.URL_LINE.match(line) for line in rest.splitlines())  # nothing scrolls it away
    assert HINT not in rest and wrapper.returncode == 0


def test_without_a_provider_the_hint_points_to_the_panels_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in dev.PROVIDER_KEYS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PRIME_AGENT_DIR", str(tmp_path))
    hint = dev._provider_hint()
    assert hint is not None and "'Set up a provider'" in hint and str(tmp_path / "auth.json") in hint
    (tmp_path / "auth.json").write_text("{}")
    assert dev._provider_hint() is None
