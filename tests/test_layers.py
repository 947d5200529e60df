"""Dependencies point one way (design.md §1): every import of every module, checked against its layer.

Function-level imports count too: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "prime_jupyter"
BASE = {"errors", "_version"}  # the exception tree and the version are everyone's

ALLOWED: dict[str, set[str]] = {
    "ai": set(),
    "protocol": {"ai"},
    "agent": {"ai", "protocol"},
    "kernel": {"ai"},
    "sessions": {"ai"},
    "tools": {"ai", "protocol", "agent", "kernel"},
    "runtime": {"ai", "protocol", "agent", "tools", "kernel", "sessions"},
    "connection": {"ai", "protocol", "runtime"},
    "server": {"ai", "protocol", "agent", "tools", "kernel", "sessions", "runtime", "connection"},
    "magics": {"ai", "protocol", "runtime", "kernel", "connection"},
    "testing": {"ai", "protocol", "agent", "tools", "kernel", "sessions", "runtime", "connection", "server"},
    "cli": {"ai", "protocol", "connection"},
}
FOREIGN_FORBIDDEN = {
    "ai": {"tornado", "jupyter_server", "IPython", "textual", "jupyter_client"},
    "agent": {"tornado", "jupyter_server", "IPython", "textual", "jupyter_client"},
    "sessions": {"tornado", "jupyter_server", "IPython", "textual", "jupyter_client"},
    "protocol": {"tornado", "jupyter_server", "IPython", "textual", "anthropic", "openai"},
    "cli": {"jupyter_server", "tornado"},
}
# The CLI builds its in-process connection in exactly one function, the only place it may touch runtime.
CLI_RUNTIME_DOOR = ("__main__.py", "_connect")


def layer_of(path: Path) -> str:
    if path.is_relative_to(ROOT / "cli"):
        return "cli"
    return path.relative_to(PKG).parts[0]


def imports(path: Path) -> list[tuple[str, str | None]]:
    """(module imported, enclosing function name or None) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, str | None]] = []

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            if isinstance(child, ast.Import):
                found.extend((alias.name, name) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                found.append((child.module, name))
            visit(child, name)

    visit(tree, None)
    return found


def sources() -> list[Path]:
    files = [p for p in PKG.rglob("*.py") if "labextension" not in p.parts]
    return [p for p in files if p.parent != PKG] + list((ROOT / "cli").rglob("*.py"))


def test_layers_only_import_downwards() -> None:
    problems: list[str] = []
    for path in sources():
        layer = layer_of(path)
        for module, function in imports(path):
            parts = module.split(".")
            if parts[0] == "prime_jupyter" and len(parts) > 1:
                target = parts[1]
                if target in BASE or target == layer:
                    continue
                if layer == "cli" and target == "runtime" and (path.name, function) == CLI_RUNTIME_DOOR:
                    continue
                if target == "cli" and layer == "cli":
                    continue
                if target not in ALLOWED[layer]:
                    problems.append(f"{path.relative_to(ROOT)}: {layer} imports {module}")
            elif parts[0] in FOREIGN_FORBIDDEN.get(layer, set()):
                problems.append(f"{path.relative_to(ROOT)}: {layer} imports {module}")
    assert problems == []


def test_the_cli_reaches_the_runtime_only_through_its_one_door() -> None:
    doors = [
        (path.name, function)
        for path in (ROOT / "cli").rglob("*.py")
        for module, function in imports(path)
        if module.startswith("prime_jupyter.runtime")
    ]
    assert doors and set(doors) == {CLI_RUNTIME_DOOR}


def test_every_layer_folder_is_known() -> None:
    folders = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= set(ALLOWED) - {"cli"}, folders - set(ALLOWED)
