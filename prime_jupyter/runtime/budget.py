"""Cost budgets: per session, and per day for everything an agent dir's sessions spend (in a server, one
user's: JupyterHub gives each user a server and a home).

The limits come from `settings.json` (`"budget": {"sessionUsd": 5, "dailyUsd": 20}`) and, in a server,
from its administrator (`c.PrimeApp.session_budget_usd`, `daily_budget_usd`); where both set one, the
lower holds. What was spent is the models' own price list (`Model.cost`, dollars per million tokens)
applied to the usage providers report:

- a session's spend is the sum over its transcript's answers (every branch: money spent stays spent);
- the day's is kept in `<agent_dir>/usage/<YYYY-MM-DD>.jsonl`, one line per answer that cost anything
  (`{"session", "usd"}`), appended by every process on the agent dir (one `write` of a line with
  `O_APPEND`: lines of two processes do not interleave) and read back from where it was last read.

A prompt over a budget is refused (`BudgetExceededError`, a 403 in a server), and a run checks again
before each model request (a run of many tool calls stops there, without asking): each time with a
message naming the budget, what was spent and where the limit is set. An answer under way is never cut: a budget can be
overrun by the one answer that crossed it.
"""

from __future__ import annotations

import datetime
import json
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from prime_jupyter.ai.types import AssistantMessage
from prime_jupyter.errors import BudgetExceededError
from prime_jupyter.protocol.snapshot import BudgetStatus

__all__ = ["BudgetLimits", "SessionBudget", "UsageLedger"]


@dataclass(frozen=True, slots=True)
class BudgetLimits:
    session_usd: float | None = None
    daily_usd: float | None = None
    session_source: str = "settings.json budget.sessionUsd"
    daily_source: str = "settings.json budget.dailyUsd"

    def clamped(self, session_usd: float | None, daily_usd: float | None, source: str) -> BudgetLimits:
        """These limits under a host's (the server's `c.PrimeApp.*_budget_usd`, named by `source`): the
        lower of each pair holds, and says where it is set."""
        session, session_from = _lower(
            self.session_usd, self.session_source, session_usd, f"{source}.session_budget_usd"
        )
        daily, daily_from = _lower(self.daily_usd, self.daily_source, daily_usd, f"{source}.daily_budget_usd")
        return BudgetLimits(session, daily, session_from, daily_from)


def _lower(mine: float | None, mine_from: str, host: float | None, host_from: str) -> tuple[float | None, str]:
    if host is not None and (mine is None or host <= mine):
        return host, host_from
    return mine, mine_from


class UsageLedger:
    """What an agent dir's sessions spent, per day (local time), in `<agent_dir>/usage/`."""

    def __init__(self, agent_dir: Path) -> None:
        self.folder = agent_dir / "usage"
        self._lock = threading.Lock()
        self._day = ""
        self._offset = 0
        self._spent = 0.0

    def record(self, session_id: str, usd: float) -> None:
        if usd <= 0:
            return
        line = json.dumps({"session": session_id, "usd": usd}) + "\n"
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._path(_today()), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    def spent_today(self) -> float:
        """Today's spend by every session of the agent dir, this process's and others'."""
        with self._lock:
            day = _today()
            if day != self._day:
                self._day, self._offset, self._spent = day, 0, 0.0
            try:
                with open(self._path(day), "rb") as file:
                    file.seek(self._offset)
                    tail = file.read()
            except FileNotFoundError:
                return self._spent
            complete = tail[: tail.rfind(b"\n") + 1]  # a line another process is writing counts once whole
            self._offset += len(complete)
            for line in complete.splitlines():
                self._spent += _usd(line)
            return self._spent

    def _path(self, day: str) -> Path:
        return self.folder / f"{day}.jsonl"


def _today() -> str:
    return datetime.date.today().isoformat()


def _usd(line: bytes) -> float:
    try:
        value = json.loads(line).get("usd", 0)
    except (ValueError, AttributeError):
        return 0.0  # a damaged line costs nothing rather than stopping every session
    return float(value) if isinstance(value, int | float) else 0.0


class SessionBudget:
    """One session's budgets: checked before each model request, fed each answer's cost."""

    def __init__(self, limits: BudgetLimits, ledger: UsageLedger, session_id: str, history: Iterable[object]) -> None:
        self.limits = limits
        self.ledger = ledger
        self.session_id = session_id
        self.session_spent = sum(_cost(m) for m in history)

    def check(self) -> None:
        """`BudgetExceededError` when a budget is spent."""
        limits = self.limits
        if limits.session_usd is not None and self.session_spent >= limits.session_usd:
            raise BudgetExceededError(
                f"this session has spent ${self.session_spent:.2f} of its ${limits.session_usd:.2f} budget"
                f" ({limits.session_source}): start a new session, or raise the budget there"
            )
        if limits.daily_usd is not None:
            spent = self.ledger.spent_today()
            if spent >= limits.daily_usd:
                raise BudgetExceededError(
                    f"today's sessions have spent ${spent:.2f} of the ${limits.daily_usd:.2f} daily budget"
                    f" ({limits.daily_source}): it starts again at midnight, or raise the budget there"
                )

    def add(self, message: AssistantMessage) -> None:
        usd = _cost(message)
        self.session_spent += usd
        self.ledger.record(self.session_id, usd)

    def status(self) -> BudgetStatus:
        limits = self.limits
        day = self.ledger.spent_today() if limits.daily_usd is not None else None
        return BudgetStatus(
            session_spent_usd=self.session_spent,
            session_limit_usd=limits.session_usd,
            day_spent_usd=day,
            day_limit_usd=limits.daily_usd,
        )


def _cost(message: object) -> float:
    return message.usage.cost.total if isinstance(message, AssistantMessage) else 0.0
