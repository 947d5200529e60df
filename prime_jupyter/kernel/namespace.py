"""What a kernel holds: a compact summary of its namespace, and what changed between two summaries.

The summary is computed in the kernel by a silent execution that runs in a namespace of its own (so it
leaves no name behind in the user's), reads each value's type and, for the containers a data session
holds, its shape or length, a frame's first columns and their dtypes, never its values (a 1 GB
DataFrame costs what `shape` and `dtypes` cost). pandas and numpy are looked up in `sys.modules`, never
imported. Each name gets a fingerprint (identity, type and shape), so a rebinding or a resize shows as
a change; a change in place that keeps the shape does not.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import JsonValue

from prime_jupyter.kernel.ops import KernelOps, OutputMessage

__all__ = ["MAX_SHOWN", "Namespace", "NamespaceChange", "Variable", "changes", "describe", "read_namespace"]

MAX_SHOWN = 60
"""Names the model is shown (the newest last); the rest are counted."""
_MARK = "\x1eprime-namespace\x1e"
_LIMIT = 2_000  # names fingerprinted at most

_SUMMARY = r"""
def _summary(ns, hidden, limit):
    import sys, types
    pd, np = sys.modules.get("pandas"), sys.modules.get("numpy")
    skip = {"In", "Out", "get_ipython", "exit", "quit"}
    rows = []
    for name, value in list(ns.items()):
        if name.startswith("_") or name in skip or (name in hidden and hidden[name] is value):
            continue
        if isinstance(value, types.ModuleType):
            continue
        kind, detail = type(value).__name__, ""
        try:
            if pd is not None and isinstance(value, pd.DataFrame):
                rows_, cols = value.shape
                shown = ", ".join(f"{c}: {t}" for c, t in list(value.dtypes.items())[:12])
                detail = f"{rows_:,}x{cols:,}; {shown}{', ...' if cols > 12 else ''}"
            elif pd is not None and isinstance(value, pd.Series):
                detail = f"{len(value):,}, {value.dtype}"
            elif np is not None and isinstance(value, np.ndarray):
                detail = f"{'x'.join(f'{n:,}' for n in value.shape)} {value.dtype}"
            elif np is not None and isinstance(value, np.generic):  # before float: np.float64 is one
                detail = repr(value.item())[:40]
            elif isinstance(value, (bool, int, float, complex)):
                detail = repr(value)[:40]
            elif isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
                detail = f"len {len(value):,}"
            elif isinstance(value, type):
                kind = "class"
            elif isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
                kind = "function"
        except Exception:
            pass
        rows.append([name, kind, detail, f"{id(value)}:{kind}:{detail}"])
        if len(rows) >= limit:
            break
    return rows
"""
"""Runs in the kernel (sent as source: the kernel needs nothing of ours), or in this process for a
`%%prime` session, whose kernel is the process itself."""

_EMIT = r"""
def _emit(ip, mark, limit):
    import json
    rows = _summary(ip.user_ns, getattr(ip, "user_ns_hidden", {}), limit)
    print(mark + json.dumps(rows))


_emit(__import__("IPython").get_ipython(), MARK, LIMIT)
"""


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    kind: str
    detail: str
    fingerprint: str

    def label(self) -> str:
        return f"{self.kind} {self.detail}" if self.detail else self.kind


Namespace = dict[str, Variable]


@dataclass(frozen=True, slots=True)
class NamespaceChange:
    created: list[Variable]
    changed: list[Variable]
    deleted: list[str]

    def __bool__(self) -> bool:
        return bool(self.created or self.changed or self.deleted)

    def report(self) -> str:
        """ "created `df_clean` (DataFrame 1,203x14), changed `model`": what a person reads after a turn."""
        parts: list[str] = []
        if self.created:
            parts.append("created " + ", ".join(f"`{v.name}` ({_short(v)})" for v in self.created[:12]))
        if self.changed:
            parts.append("changed " + ", ".join(f"`{v.name}` ({_short(v)})" for v in self.changed[:12]))
        if self.deleted:
            parts.append("deleted " + ", ".join(f"`{name}`" for name in self.deleted[:12]))
        return "; ".join(parts)


def _short(variable: Variable) -> str:
    detail = variable.detail.split(";", 1)[0]
    return f"{variable.kind} {detail}" if detail else variable.kind


def summary_code() -> str:
    """The silent cell that prints the namespace as one marked JSON line, in a namespace of its own."""
    inner = _SUMMARY + _EMIT.replace("MARK", repr(_MARK)).replace("LIMIT", str(_LIMIT))
    return f"exec(compile({inner!r}, '<prime-namespace>', 'exec'), {{'__builtins__': __builtins__}})"


async def read_namespace(ops: KernelOps) -> Namespace | None:
    """The kernel's namespace; None when the kernel could not say (an error, a kernel without IPython).

    A kernel that is this process (`kernel.inprocess`: it has `user_namespace`) is read directly: code run
    there would print into the user's cell."""
    own = getattr(ops, "user_namespace", None)
    if callable(own):
        namespace, hidden = own()
        return summarize(namespace, hidden)
    chunks: list[str] = []

    def sink(message: OutputMessage) -> None:
        if message.msg_type == "stream" and message.content.get("name") == "stdout":
            chunks.append(str(message.content.get("text", "")))

    reply = await ops.execute(summary_code(), sink, silent=True)
    text = "".join(chunks)
    if reply.status != "ok" or _MARK not in text:
        return None
    try:
        rows = json.loads(text.split(_MARK, 1)[1].strip().splitlines()[0])
    except (ValueError, IndexError):
        return None
    return {str(r[0]): Variable(str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in _rows(rows)}


def summarize(namespace: dict[str, object], hidden: dict[str, object]) -> Namespace:
    """The summary of a namespace of this process (the code the kernel runs, run here)."""
    scope: dict[str, object] = {}
    exec(compile(_SUMMARY, "<prime-namespace>", "exec"), scope)
    rows = scope["_summary"](namespace, hidden, _LIMIT)  # type: ignore[operator]
    return {str(r[0]): Variable(str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows}


def _rows(value: JsonValue) -> list[list[JsonValue]]:
    if not isinstance(value, list):
        return []
    return [row for row in value if isinstance(row, list) and len(row) == 4]


def describe(namespace: Namespace) -> str:
    """The summary the model reads at the start of a turn."""
    if not namespace:
        return "The kernel's namespace is empty."
    variables: Sequence[Variable] = list(namespace.values())
    shown = variables[-MAX_SHOWN:]
    lines = [f"- {v.name}: {v.label()}" for v in shown]
    more = len(variables) - len(shown)
    head = f"The kernel holds {len(variables)} names" + (f" ({more} older ones not listed)" if more else "") + ":"
    return "\n".join([head, *lines])


def changes(before: Namespace, after: Namespace) -> NamespaceChange:
    created = [v for name, v in after.items() if name not in before]
    changed = [v for name, v in after.items() if name in before and before[name].fingerprint != v.fingerprint]
    deleted = [name for name in before if name not in after]
    return NamespaceChange(created, changed, deleted)
