"""The final table: each figure as median (min-max) for both agents, their ratio and the target."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import median
from typing import Literal

__all__ = ["Row", "Target", "render"]


@dataclass(frozen=True)
class Target:
    """`ratio_max`/`ratio_min`: ours/pi of the medians must be at most/at least `bound`;
    `abs_max`: our median must be at most `bound` (in the row's unit)."""

    kind: Literal["ratio_max", "ratio_min", "abs_max"]
    bound: float

    def text(self, unit: str) -> str:
        if self.kind == "abs_max":
            return f"<= {self.bound:g} {unit}"
        return f"{'<=' if self.kind == 'ratio_max' else '>='} {self.bound:g}x pi"

    def met(self, ours: float, ratio: float) -> bool | None:
        if self.kind == "abs_max":
            return None if math.isnan(ours) else ours <= self.bound
        if math.isnan(ratio):
            return None
        return ratio <= self.bound if self.kind == "ratio_max" else ratio >= self.bound


@dataclass
class Row:
    """One figure: every measured value of each agent."""

    metric: str
    unit: str
    decimals: int = 1
    target: Target | None = None
    ours: list[float] = field(default_factory=list)
    pi: list[float] = field(default_factory=list)

    def ratio(self) -> float:
        if not self.ours or not self.pi or median(self.pi) == 0:
            return float("nan")
        return median(self.ours) / median(self.pi)

    def cell(self, values: list[float]) -> str:
        if not values:
            return "-"
        d = self.decimals
        if len(values) == 1:
            return f"{values[0]:.{d}f}"
        return f"{median(values):.{d}f} ({min(values):.{d}f}-{max(values):.{d}f})"

    def verdict(self) -> str:
        if self.target is None:
            return ""
        ours = median(self.ours) if self.ours else float("nan")
        met = self.target.met(ours, self.ratio())
        return "n/a" if met is None else ("met" if met else "NOT MET")


def render(rows: list[Row], with_pi: bool) -> str:
    """A plain-text table, one line per figure."""
    header = ["metric", "unit", "ours", "pi", "ratio", "target", ""]
    lines = []
    for row in rows:
        ratio = row.ratio()
        target = row.target.text(row.unit) if row.target else ""
        pi_cell = row.cell(row.pi) if with_pi else "(no pi)"
        ratio_cell = "" if math.isnan(ratio) else f"{ratio:.2f}x"
        lines.append([row.metric, row.unit, row.cell(row.ours), pi_cell, ratio_cell, target, row.verdict()])
    widths = [max(len(str(line[i])) for line in [header, *lines]) for i in range(len(header))]
    out = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip() for line in [header, *lines]]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)
