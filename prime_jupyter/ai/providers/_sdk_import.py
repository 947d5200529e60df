"""Importing only the part of a provider SDK that the streaming path uses: the client and its HTTP stack.

Measured (`python -X importtime`, anthropic 2.15): `import anthropic` takes about 1.1 s on a quiet
machine, two thirds of it building the pydantic models of `anthropic.types` (2,900 modules), which the
providers here never use: they post a body they encoded themselves and parse the SSE bytes
(`anthropic.py`). The client (`anthropic._client`) needs few of those types, but every package's
`__init__.py` imports all its submodules, and the client's imports pass through those packages
(`_base_client` -> `lib._tracing` -> `from ...types import TextBlockParam`), so importing the client
the ordinary way imports everything.

`import_light(root, modules)` imports `modules` with the SDK's package inits deferred:

- a package whose `__init__.py` is nothing but relative `from .x import a as b` lines (every
  `types`-like package of the SDKs) is created empty, and each of its names is imported from its own
  submodule the first time it is asked for (the table is read off the init's source);
- any other package (`anthropic/__init__.py` itself, which also sets up logging) runs its init in full
  the first time a name it defines is asked for;
- `dir()`, `__all__` and star imports run the init in full, so they see every name.

So the SDK still works fully for any later use in the process (`import anthropic; anthropic.Anthropic`,
`from anthropic.types import Message`): its package inits just run when something needs them, not
when a submodule is imported. Only `vars(package)` of a package nobody has used shows fewer names.
The finder is in `sys.meta_path` only during `import_light`, and only for `root`'s modules; if `root`
was imported already (or the deferral fails for an SDK laid out otherwise), this is a plain import.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import re
import sys
import threading
from collections.abc import Sequence
from types import ModuleType

__all__ = ["import_light"]

_lock = threading.RLock()
_FROM = re.compile(r"from\s+\.(\w*)\s+import\s+(\([^)]*\)|[^\n(]+)")
_NAME = re.compile(r"(\w+)(?:\s+as\s+(\w+))?")
_NOISE = re.compile(r"#[^\n]*|from\s+__future__\s+import\s+\w+|\A\s*(\"\"\"|''')[\s\S]*?\1")


def import_light(root: str, modules: Sequence[str]) -> list[ModuleType]:
    """`modules` (submodules of the package `root`), imported with `root`'s package inits deferred."""
    if root in sys.modules:
        return [importlib.import_module(name) for name in modules]
    finder = _Finder(root)
    sys.meta_path.insert(0, finder)
    try:
        return [importlib.import_module(name) for name in modules]
    finally:
        sys.meta_path.remove(finder)


def _import_table(source: str) -> dict[str, tuple[str, str]] | None:
    """name -> (submodule, attribute) when `source` is nothing but relative from-imports, else None."""
    table: dict[str, tuple[str, str]] = {}
    bad = False

    def read(match: re.Match[str]) -> str:
        nonlocal bad
        for item in match.group(2).strip("()").split(","):
            words = " ".join(item.split())
            name = _NAME.fullmatch(words)
            if name is None:
                bad = bad or bool(words)
                continue
            table[name.group(2) or name.group(1)] = (match.group(1), name.group(1))
        return ""

    rest = _FROM.sub(read, _NOISE.sub("", source))
    return None if bad or rest.strip() else table


class _Finder(importlib.abc.MetaPathFinder):
    """Finds `root`'s modules as the path finder does, with each package's init deferred."""

    def __init__(self, root: str) -> None:
        self._root = root

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self._root and not fullname.startswith(self._root + "."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        loader = spec.loader if spec is not None else None
        if spec is None or spec.submodule_search_locations is None or not isinstance(loader, importlib.abc.Loader):
            return spec
        get_source = getattr(loader, "get_source", None)
        source = get_source(fullname) if get_source is not None else None
        if not isinstance(source, str):
            return spec
        spec.loader = _DeferredInit(loader, _import_table(source))
        return spec


class _DeferredInit(importlib.abc.Loader):
    """Creates a package without running its init; `__getattr__` and `__dir__` do what the init would."""

    def __init__(self, loader: importlib.abc.Loader, table: dict[str, tuple[str, str]] | None) -> None:
        self._loader = loader
        self._table = table

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        loader, table = self._loader, self._table
        name = module.__name__

        def complete() -> None:
            """Run the package's own init (once), in its namespace."""
            with _lock:
                if module.__dict__.get("__getattr__") is not getattr_:
                    return
                del module.__dict__["__getattr__"], module.__dict__["__dir__"]
                module.__loader__ = loader
                if module.__spec__ is not None:
                    module.__spec__.loader = loader
                loader.exec_module(module)

        def getattr_(attribute: str) -> object:
            if table is not None and attribute in table:
                submodule, original = table[attribute]
                source = importlib.import_module(f"{name}.{submodule or original}")
                value = getattr(source, original) if submodule else source
                setattr(module, attribute, value)
                return value
            if importlib.machinery.PathFinder.find_spec(f"{name}.{attribute}", module.__path__) is not None:
                raise AttributeError(attribute)  # a submodule not imported yet: the import system imports it
            if table is None or attribute == "__all__":
                complete()
            try:
                return module.__dict__[attribute]
            except KeyError:
                raise AttributeError(f"module {name!r} has no attribute {attribute!r}") from None

        def dir_() -> list[str]:
            complete()
            return sorted(module.__dict__)

        module.__getattr__ = getattr_  # type: ignore[method-assign]
        module.__dir__ = dir_  # type: ignore[method-assign]
