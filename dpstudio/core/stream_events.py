"""Events of a stream run (STREAMING.md), beside those of ``core.events`` (``BudgetSpent``, ``Progress``,
``RunFinished`` are shared).

``true_count`` is filled only with simulation noise (teaching mode); in release mode it is ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .events import Event


@dataclass(frozen=True)
class StreamValueReleased(Event):
    """The value released at timestamp ``t`` (1-based). ``source``: "noisy" (a fresh noisy count),
    "sample" (ASM/FAST: a sampled noisy count), "prediction" (computed from earlier outputs only),
    "repeat" (BD/BA: the last release again). ``variance``: the public noise variance the grouping uses."""

    t: int
    value: float
    source: str
    variance: float
    true_count: int | None = None  # teaching mode only


@dataclass(frozen=True)
class WindowReleased(Event):
    """The published window ending at timestamp ``window`` (1-based): its values after grouping and the
    1-based end positions of its groups (computed from released values only)."""

    window: int
    values: Any  # numpy array of the w published values, oldest first
    group_ends: tuple[int, ...]
