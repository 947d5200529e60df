"""Dependencies point one way (design.md §1): every import of every module, checked against its layer.

Function-level imports count too: a lazy import is still a dependency. The rules are a pure function of
the sources (`problems`), so each one is shown to catch a planted violation as well as to pass on the tree.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "prime_jupyter"
BASE = {"errors", "_version", "_atomic", "_sse"}  # the exception tree and the version are everyone's

ALLOWED: dict[str, set[str]] = {
    "ai": set(),
    "protocol": {"ai"},
    "agent": {"ai", "protocol"},
    "kernel": {"ai"},
    "sessions": {"ai"},
    "notebooks": {"ai", "kernel"},
    "tools": {"ai", "protocol", "agent", "kernel", "notebooks"},
    "resources": {"ai", "protocol", "agent", "kernel"},
    "runtime": {"ai", "protocol", "agent", "tools", "kernel", "sessions", "notebooks", "resources"},
    "connection": {"ai", "protocol"},
    "server": {
        "ai",
        "protocol",
        "agent",
        "tools",
        "kernel",
        "sessions",
        "runtime",
        "connection",
        "notebooks",
        "resources",
    },
    "magics": {"ai", "protocol", "runtime", "kernel", "connection"},
    "testing": {
        "ai",
        "protocol",
        "agent",
        "tools",
        "kernel",
        "sessions",
        "runtime",
        "connection",
        "server",
        "notebooks",
        "resources",
    },
    "cli": {"protocol", "connection"},
}
# The in-process connection is the one connection module that builds sessions: it may use the runtime,
# and the kernel seam's types (a notebook passes its own kernel launcher).
IN_PROCESS = "prime_jupyter/connection/in_process.py"
IN_PROCESS_FILES = {IN_PROCESS, "prime_jupyter/connection/_replacement.py"}
IN_PROCESS_EXTRA = {"runtime", "kernel"}
# What the CLI may use of `ai`: the content types the seam's signatures use, and the JSON text helpers
# that write what the transcript holds.
CLI_AI_MODULES = {"prime_jupyter.ai.types", "prime_jupyter.ai.json_text"}
PROVIDER_SDKS = {"anthropic", "openai"}
FOREIGN_FORBIDDEN = {
    "ai": {"tornado", "jupyter_server", "IPython", "textual", "jupyter_client"},
    "agent": {"tornado", "jupyter_server", "IPython", "textual", "jupyter_client"},
    "sessions": {"tornado", "jupyter_server", "IPython", "textual", "jupyter_client"},
    "notebooks": {"tornado", "jupyter_server", "IPython", "textual"},
    "protocol": {"tornado", "jupyter_server", "IPython", "textual"},
    "connection": {"tornado", "jupyter_server", "IPython", "textual"},
    "runtime": {"tornado", "jupyter_server", "textual"},
    "resources": {"tornado", "jupyter_server", "IPython", "textual", "jupyter_client"},
    "cli": {"jupyter_server", "tornado", "IPython"},
}
HOSTS_ONLY = {"gc_policy": {"cli", "server"}, "heap_policy": {"cli", "server"}}
"""Top-level modules only the hosts may import: process-wide policy is theirs to choose."""
CYCLES_ALLOWED: set[frozenset[str]] = set()
"""Import cycles (module-level imports) tolerated for now: none."""


@dataclass(frozen=True, slots=True)
class Import:
    module: str
    module_level: bool
    """Run when the importing module is imported (not in a function, not under `if TYPE_CHECKING`)."""
    names: tuple[str, ...] = ()
    """What `from module import ...` takes (each may be a submodule)."""


def imports_of(source: str, package: str) -> list[Import]:
    """Every import of `source` (a module of `package`, for relative imports), absolute module names."""
    found: list[Import] = []

    def visit(node: ast.AST, module_level: bool) -> None:
        for child in ast.iter_child_nodes(node):
            level = module_level and not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                level = False
            if isinstance(child, ast.Import):
                found.extend(Import(alias.name, level) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                found.append(Import(_absolute(child, package), level, tuple(a.name for a in child.names)))
            visit(child, level)

    visit(ast.parse(source), True)
    return found


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if node.level == 0:
        return node.module or ""
    parts = package.split(".")
    parts = parts[: len(parts) - node.level + 1]
    return ".".join([*parts, node.module] if node.module else parts)


def module_name(rel: str) -> str:
    """`prime_jupyter/ai/types.py` → `prime_jupyter.ai.types`; `cli/x.py` → `prime_jupyter.cli.x`."""
    if rel.startswith("cli/"):
        rel = "prime_jupyter/" + rel
    name = rel.removesuffix(".py").replace("/", ".")
    return name.removesuffix(".__init__")


def layer_of(rel: str) -> str:
    parts = rel.split("/")
    return "cli" if parts[0] == "cli" else parts[1]


def _is_private(module: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in module.split(".")[2:])


def problems(files: Mapping[str, str]) -> list[str]:
    """Every rule broken by `files` (path relative to the repository → source)."""
    modules = {module_name(rel) for rel in files}
    found: list[str] = []
    graph: dict[str, set[str]] = {}
    for rel, source in files.items():
        layer = layer_of(rel)
        name = module_name(rel)
        package = name if rel.endswith("__init__.py") else name.rpartition(".")[0]
        graph[name] = set()
        for imp in imports_of(source, package):
            top = imp.module == "prime_jupyter"  # `from prime_jupyter import gc_policy`: a module, surely
            submodules = [f"{imp.module}.{n}" for n in imp.names if top or f"{imp.module}.{n}" in modules]
            for module in submodules or [imp.module]:
                found.extend(f"{rel}: {message}" for message in _check(rel, layer, module))
            # `from package import submodule` needs the submodule, not the rest of the package
            targets = submodules or ([imp.module] if imp.module in modules else [])
            if imp.module_level:
                graph[name].update(t for t in targets if t != name)
    found.extend(f"import cycle: {' -> '.join(sorted(c))}" for c in cycles(graph) if c not in CYCLES_ALLOWED)
    return sorted(set(found))


def _check(rel: str, layer: str, module: str) -> Iterator[str]:
    parts = module.split(".")
    if parts[0] in PROVIDER_SDKS and layer != "ai":
        yield f"{layer} imports the provider SDK {module} (only ai may)"
    if parts[0] in FOREIGN_FORBIDDEN.get(layer, set()):
        yield f"{layer} imports {module}"
    if parts[0] != "prime_jupyter" or len(parts) < 2:
        return
    target = parts[1]
    if target in HOSTS_ONLY:
        if layer not in HOSTS_ONLY[target]:
            yield f"{layer} imports {module}, which only {' and '.join(sorted(HOSTS_ONLY[target]))} may"
        return
    if target == layer or target in BASE or (layer == "cli" and target == "cli"):
        return
    allowed = ALLOWED[layer] | (IN_PROCESS_EXTRA if rel in IN_PROCESS_FILES else set())
    if target not in allowed and not (layer == "cli" and module in CLI_AI_MODULES):
        yield f"{layer} imports {module}"
    if _is_private(module):
        yield f"{layer} imports {module}, a private module of {target}"


def cycles(graph: Mapping[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph.get(node, ()):
            if succ not in index:
                connect(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def tree_sources() -> dict[str, str]:
    files = [p for p in PKG.rglob("*.py") if "labextension" not in p.parts and p.parent != PKG]
    files += list((ROOT / "cli").rglob("*.py"))
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in files}


def test_the_tree_keeps_every_rule() -> None:
    assert problems(tree_sources()) == []


def test_every_layer_folder_is_known() -> None:
    folders = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders <= set(ALLOWED) - {"cli"}, folders - set(ALLOWED)


PLANTED = {
    "a layer reaching up": ("prime_jupyter/sessions/x.py", "from prime_jupyter.runtime import factory\n"),
    "a lazy import reaching up": ("prime_jupyter/ai/x.py", "def f():\n    import prime_jupyter.server.app\n"),
    "the cli reaching the runtime": ("cli/x.py", "from prime_jupyter.runtime.factory import SessionOptions\n"),
    "the cli reaching the ai providers": ("cli/x.py", "from prime_jupyter.ai.registry import parse_model_ref\n"),
    "a connection module other than in_process using the runtime": (
        "prime_jupyter/connection/x.py",
        "from prime_jupyter.runtime.agent_session import AgentSession\n",
    ),
    "another layer's private module": (
        "prime_jupyter/runtime/x.py",
        "from prime_jupyter.ai.providers._client import c\n",
    ),
    "a provider SDK outside ai": ("prime_jupyter/runtime/x.py", "import anthropic\n"),
    "Textual in the runtime": ("prime_jupyter/runtime/x.py", "from textual.app import App\n"),
    "a library choosing the process's gc policy": (
        "prime_jupyter/sessions/x.py",
        "from prime_jupyter import gc_policy\n",
    ),
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_a_planted_violation_is_caught(name: str) -> None:
    path, source = PLANTED[name]
    assert problems({path: source}) != [], name


def test_what_the_rules_allow_passes() -> None:
    allowed = {
        "cli/x.py": "from prime_jupyter.ai.types import ImageContent\n"
        "from prime_jupyter.connection import open_connection\n",
        IN_PROCESS: "from prime_jupyter.runtime.factory import SessionOptions\n",
        "prime_jupyter/tools/_a.py": "X = 1\n",
        "prime_jupyter/tools/b.py": "from prime_jupyter.tools._a import X\n",  # a layer's own private module
        "prime_jupyter/server/y.py": "if TYPE_CHECKING:\n    from prime_jupyter.server.z import Z\n",
        "prime_jupyter/server/z.py": "from prime_jupyter.server.y import Y\n",  # no cycle: y's import is for types only
    }
    assert problems(allowed) == []


def test_an_import_cycle_is_caught() -> None:
    planted = {
        "prime_jupyter/server/a.py": "from prime_jupyter.server import b\n",
        "prime_jupyter/server/b.py": "from prime_jupyter.server.c import C\n",
        "prime_jupyter/server/c.py": "import prime_jupyter.server.a\n",
    }
    assert problems(planted) == [
        "import cycle: prime_jupyter.server.a -> prime_jupyter.server.b -> prime_jupyter.server.c"
    ]
