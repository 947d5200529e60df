"""Packaging: the wheel's pieces are installed and enabled, and the repo stays publishable.

These run against the environment `scripts/dev.py` prepares (an editable install in `.venv`), through the
`jupyter` next to the running interpreter, as a user of that environment would.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# Built from pieces so that this file does not itself contain what it forbids.
FORBIDDEN = [
    "registry." + "npmjs" + ".org",
    "pypi" + ".org",
    "files." + "pythonhosted" + ".org",
    "yarn" + "pkg",
    "/" + "work" + "/",
]
HEAVY_MODULES = ["anthropic", "openai", "jupyter_server", "textual"]
TS_ANY = re.compile(r":\s*any\b|\bas\s+any\b|<any\b|\bany\[\]")


def _jupyter(*args: str) -> str:
    """Combined output of the environment's `jupyter <args>` (extension lists are logged to stderr)."""
    done = subprocess.run([str(BIN / "jupyter"), *args], capture_output=True, text=True, check=True, timeout=120)
    return done.stdout + done.stderr


def _repo_files() -> list[Path]:
    """Tracked files plus untracked files that .gitignore does not exclude."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [ROOT / name for name in listing.split("\0") if name and (ROOT / name).is_file()]


def _lines_with(output: str, name: str) -> list[str]:
    return [line for line in output.splitlines() if name in line.split()]


def test_labextension_is_installed_and_enabled() -> None:
    lines = _lines_with(_jupyter("labextension", "list"), "prime-jupyter")
    assert any("enabled" in line and "OK" in line for line in lines), lines


def test_server_extension_is_enabled() -> None:
    lines = _lines_with(_jupyter("server", "extension", "list"), "prime_jupyter")
    assert any("enabled" in line for line in lines) and any("OK" in line for line in lines), lines


def test_built_labextension_is_named_like_its_folder() -> None:
    built = ROOT / "prime_jupyter" / "labextension"
    assert json.loads((built / "package.json").read_text())["name"] == "prime-jupyter"
    assert (built / "static" / "style.js").is_file()


def test_no_file_names_a_registry_host_or_machine_path() -> None:
    hits = [
        f"{path.relative_to(ROOT)}: {needle}"
        for path in _repo_files()
        for needle in FORBIDDEN
        if needle.encode() in path.read_bytes()
    ]
    assert hits == []


STRIP_FUNDING = (
    "cd labextension && node -e \"const f='package-lock.json', d=require('./'+f); "
    "for (const p of Object.values(d.packages)) delete p.funding; "
    "require('fs').writeFileSync(f, JSON.stringify(d, null, 2) + '\\\\n')\""
)


def test_lock_file_carries_no_urls() -> None:
    """`.npmrc` keeps `resolved` URLs out; funding links come back when dependencies change."""
    lock = (ROOT / "labextension" / "package-lock.json").read_text()
    assert '"resolved"' not in lock
    assert "://" not in lock, f"strip the funding links: {STRIP_FUNDING}"


def test_typescript_sources_use_no_any() -> None:
    hits = [
        f"{path.name}: {line.strip()}"
        for path in sorted((ROOT / "labextension" / "src").rglob("*.ts"))
        for line in path.read_text().splitlines()
        if TS_ANY.search(line)
    ]
    assert hits == []


def test_importing_the_package_stays_light() -> None:
    code = f"import json, sys, prime_jupyter; print(json.dumps([m for m in {HEAVY_MODULES!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def test_ci_runs_the_readme_test_command() -> None:
    command = "python3 scripts/dev.py test"
    ci = ROOT / ".ci" / "run"
    assert ci.stat().st_mode & 0o111 and f"exec {command}\n" in ci.read_text()
    readme = ROOT / "README.md"
    assert readme.is_file() and command in readme.read_text() and "python3 scripts/dev.py run" in readme.read_text()


def test_the_readme_sets_up_with_exactly_two_commands() -> None:
    setup = (ROOT / "README.md").read_text().split("## Set up", 1)[1].split("\n## ", 1)[0]
    block = setup.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    assert commands == ["python3 scripts/dev.py run", "python3 scripts/dev.py test"]
