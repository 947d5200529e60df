"""Finding extensions and importing them under names of their own.

Where they come from, in load order: the administrator's policy extensions (`c.PrimeApp.policy_extensions`:
files, package folders or importable module names), `<agent dir>/extensions/`, the project's
`<cwd>/.prime/agent/extensions/`, then settings.json `extensions` (paths; relative ones from the cwd). In an
extensions folder, each `name.py` and each `name/` with an `__init__.py` is one extension; names starting
with `_` or `.` are left alone (helpers, caches). A path found twice loads once.

A file is imported under a unique module name (`_prime_extension_<hex>_<name>`), never its own: a user's
`policy.py` cannot shadow or be shadowed by another `policy` module, and loading one twice (two sessions)
gives two independent modules. A package's submodules live under that name too, so relative imports
(`from . import helpers`) work. `sys.path` is not touched; `ExtensionModules.close` takes the names out of
`sys.modules` again.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Literal

__all__ = ["ExtensionModules", "ExtensionSource", "discover"]

_UNSAFE = re.compile(r"\W")


@dataclass(frozen=True, slots=True)
class ExtensionSource:
    """One extension to load: a file, a package folder, or (`module`) an importable module's name."""

    name: str
    path: Path | None
    origin: Literal["policy", "global", "project", "settings"]
    module: str | None = None

    @property
    def policy(self) -> bool:
        return self.origin == "policy"

    @property
    def where(self) -> str:
        return str(self.path) if self.path is not None else f"module {self.module}"


def discover(
    agent_dir: Path, cwd: Path, configured: tuple[str, ...] = (), policy: tuple[str, ...] = ()
) -> tuple[list[ExtensionSource], list[str]]:
    """The extensions to load, in order, and a message for each configured one that is not there."""
    found: list[ExtensionSource] = []
    missing: list[str] = []
    for spec in policy:
        source = _named(spec, cwd, "policy")
        if source is None:
            missing.append(f"policy extension {spec!r}: no such .py file, folder with __init__.py, or module")
        else:
            found.append(source)
    found.extend(_folder(agent_dir / "extensions", "global"))
    found.extend(_folder(cwd / ".prime" / "agent" / "extensions", "project"))
    for spec in configured:
        source = _named(spec, cwd, "settings")
        if source is None or source.path is None:
            missing.append(f"settings.json extensions: {spec!r} is not a .py file or a folder with __init__.py")
        else:
            found.append(source)
    seen: set[str] = set()
    unique = []
    for source in found:
        key = str(source.path.resolve()) if source.path is not None else f"module:{source.module}"
        if key not in seen:
            seen.add(key)
            unique.append(source)
    return unique, missing


def _folder(folder: Path, origin: Literal["global", "project"]) -> list[ExtensionSource]:
    if not folder.is_dir():
        return []
    sources = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(("_", ".")):
            continue
        if entry.is_file() and entry.suffix == ".py":
            sources.append(ExtensionSource(entry.stem, entry, origin))
        elif entry.is_dir() and (entry / "__init__.py").is_file():
            sources.append(ExtensionSource(entry.name, entry, origin))
    return sources


def _named(spec: str, cwd: Path, origin: Literal["policy", "settings"]) -> ExtensionSource | None:
    path = Path(spec).expanduser()
    path = path if path.is_absolute() else cwd / path
    if path.is_file() and path.suffix == ".py":
        return ExtensionSource(path.stem, path, origin)
    if path.is_dir() and (path / "__init__.py").is_file():
        return ExtensionSource(path.name, path, origin)
    if origin == "policy" and re.fullmatch(r"[A-Za-z_][\w.]*", spec) and importlib.util.find_spec(spec) is not None:
        return ExtensionSource(spec.rsplit(".", 1)[-1], None, origin, module=spec)
    return None


class ExtensionModules:
    """The modules one host imported; `close` forgets them."""

    def __init__(self) -> None:
        self._names: list[str] = []

    def load(self, source: ExtensionSource) -> ModuleType:
        """Import `source` (running its top level); raises whatever that raises."""
        if source.module is not None:  # an installed module of the administrator's: imported as itself
            return importlib.import_module(source.module)
        assert source.path is not None
        name = f"_prime_extension_{uuid.uuid4().hex[:8]}_{_UNSAFE.sub('_', source.name)}"
        if source.path.is_dir():
            init = source.path / "__init__.py"
            spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(source.path)])
        else:
            spec = importlib.util.spec_from_file_location(name, source.path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {source.path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # a package's relative imports look for it there
        self._names.append(name)
        spec.loader.exec_module(module)
        return module

    def close(self) -> None:
        for prefix in self._names:
            for name in [n for n in sys.modules if n == prefix or n.startswith(prefix + ".")]:
                sys.modules.pop(name, None)
        self._names.clear()
