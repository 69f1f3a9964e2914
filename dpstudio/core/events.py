"""The events an algorithm run yields (DESIGN.md: runs are generators of events).

Each event is a small immutable record. The CLI drains the stream, the GUI's worker forwards it to the
window (which replays it at any speed, forwards and backwards, without drawing noise again), and tests
assert on it. Cancellation is cooperative: the consumer stops iterating.

True counts (``true_count`` fields) are filled only in teaching mode (simulation noise); in release mode
they are ``None`` so that nothing downstream can show or write them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .budget import Spend


@dataclass(frozen=True)
class Event:
    """Base class; ``kind`` names the event for serialisation and display."""

    @property
    def kind(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class Progress(Event):
    done: int
    total: int
    message: str = ""


@dataclass(frozen=True)
class NodeCreated(Event):
    """A node of the tree being grown (a DiffGen partition or an interval-tree node)."""

    node: int
    parent: int  # -1 for the root
    label: str  # generalized values ("Any | [17,90) | ...") or an interval "[lo,hi)"
    depth: int
    true_count: int | None = None  # teaching mode only
    info: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CandidatesScored(Event):
    """Candidates of one selection (a specialization or a numeric split point), their scores and
    selection probabilities. ``selection``: the run's unique number of this selection (0, 1, ...; -1 when
    the producer does not number them); its ``WinnerChosen`` carries the same number. Data-dependent
    parts (scores, probabilities; the groups of lattice points cut by data values) are empty/NaN in release mode."""

    step: int
    labels: tuple[str, ...]
    scores: tuple[float, ...]
    probabilities: tuple[float, ...]
    mechanism: str
    selection: int = -1
    # a numeric split point in teaching mode only: the interval being split (lo, hi) and, per candidate, the
    # (first, last) lattice points of its group and how many points it holds (its ends are data values;
    # (None, None, 0) for a group without a lattice point)
    interval: tuple = ()
    ranges: tuple = ()


@dataclass(frozen=True)
class WinnerChosen(Event):
    """The outcome of selection ``selection`` (see ``CandidatesScored``); ``index`` is the position among
    that selection's candidates (-1 when the candidates are not released)."""

    step: int
    index: int
    label: str
    selection: int = -1


@dataclass(frozen=True)
class BudgetSpent(Event):
    spend: Spend
    spent_total: float
    remaining: float


@dataclass(frozen=True)
class BudgetAssigned(Event):
    """A node's share of the count budget (interval trees, per-node DiffGen budgets)."""

    node: int
    epsilon: float


@dataclass(frozen=True)
class NodeNoised(Event):
    node: int
    noisy: Any  # int, or a per-class tuple of ints
    variance: float
    true_count: Any = None  # teaching mode only


@dataclass(frozen=True)
class ConsistencyDone(Event):
    method: str  # "least_squares" or "hay_generalized"
    estimates: tuple  # one estimate (or per-class tuple) per node, in node order
    passes: int = 2


@dataclass(frozen=True)
class LeavesReleased(Event):
    nodes: tuple[int, ...]
    counts: tuple  # released counts, aligned with ``nodes``


@dataclass(frozen=True)
class RunFinished(Event):
    result: Any  # the algorithm's result object


def run_result(events) -> Any:
    """The result of a run's events: the ``RunFinished``'s (the last one), or None for a run that did not finish."""
    if not isinstance(events, Sequence):
        events = list(events)
    return next((ev.result for ev in reversed(events) if isinstance(ev, RunFinished)), None)
