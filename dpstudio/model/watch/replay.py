"""Replay a recorded event stream: the tree's state after any number of events, forwards and backwards.

Qt-free. The Watch panel records the events a run yielded (``dpstudio.core.events``) and moves through
them at any speed without drawing noise again: every noisy value shown is one the run already paid for in
its ledger. ``Replay.seek(k)`` applies or undoes events one at a time (each applied event keeps an undo
record), so stepping back costs as much as stepping forward; ``state_at(events, k)`` rebuilds the state
from scratch and is what the incremental path is tested against.

True counts (``NodeCreated.true_count``, ``NodeNoised.true_count``) are present only in teaching-mode
streams; the state keeps them so a teaching view can overlay them, and ``TreeState.has_true_counts`` says
whether there are any.

Replay moves by *steps*, not events (``step_starts``): one step is one selection (a DiffGen specialization or
a numeric split point: its candidates, the spend that paid for it, the winner and the partitions it made),
the noising or budgeting of one level of the tree, a run of ledger spends, the consistency pass, the
release of the leaves or the end of the run. A replay of any size therefore has a few dozen to a few
hundred steps, and its length at a given speed does not grow with the number of nodes.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpstudio.core.events import (
    BudgetAssigned,
    BudgetSpent,
    CandidatesScored,
    ConsistencyDone,
    Event,
    LeavesReleased,
    NodeCreated,
    NodeNoised,
    Progress,
    RunFinished,
    WinnerChosen,
)
from dpstudio.model.watch.icicle_layout import node_depths, released_totals, released_value
from dpstudio.model.watch.node_columns import Column

#: node status codes kept per node (aligned with ``TreeState.order``) so views need no per-node scan
CREATED, NOISED, CONSISTENT, RELEASED = range(4)


class _InTree:
    """A node's value kept in its tree's list ``<name>_values`` at the node's position (on the node itself
    when it has no tree)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.own, self.column = f"_{name}", f"{name}_values"

    def __get__(self, node: Any, owner: type | None = None) -> Any:
        if node is None:
            return self
        tree = node._tree
        return getattr(node, self.own) if tree is None else getattr(tree, self.column)[tree.index[node.node]]

    def __set__(self, node: Any, value: Any) -> None:
        tree = node._tree
        if tree is None:
            setattr(node, self.own, value)
        else:
            getattr(tree, self.column)[tree.index[node.node]] = value


class NodeState:
    """What is known about one node after some events (None = not known yet).

    ``consistent`` and ``released`` of a node the replay made are read from (and written to) its
    ``TreeState``'s value lists, ``consistent_values`` and ``released_values``: a consistency pass or the
    release of the leaves sets tens of thousands of them at once, and writing one list (with one undo
    record) instead of every node object keeps that pass inside a frame. A node made on its own (tests,
    benchmarks) keeps both itself."""

    __slots__ = (
        "node", "parent", "label", "depth", "info", "true_count", "noisy", "variance", "epsilon",
        "_consistent", "_released", "_tree",
    )  # fmt: skip

    def __init__(
        self,
        node: int,
        parent: int,
        label: str,
        depth: int,
        info: dict | None = None,
        true_count: Any = None,  # teaching mode only
        noisy: Any = None,
        variance: float | None = None,
        epsilon: float | None = None,
        consistent: Any = None,
        released: Any = None,
    ):
        self.node, self.parent, self.label, self.depth = node, parent, label, depth
        self.info = {} if info is None else info
        self.true_count, self.noisy, self.variance, self.epsilon = true_count, noisy, variance, epsilon
        self._consistent, self._released = consistent, released
        self._tree: TreeState | None = None  # set by the replay: the values live in its lists

    consistent = _InTree()
    released = _InTree()

    def _fields(self) -> tuple:
        return (
            self.node,
            self.parent,
            self.label,
            self.depth,
            self.info,
            self.true_count,
            self.noisy,
            self.variance,
            self.epsilon,
            self.consistent,
            self.released,
        )

    def copy(self) -> NodeState:
        """A node of its own with the same values (not linked to a tree)."""
        return NodeState(*self._fields())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NodeState):
            return NotImplemented
        return _plain(self._fields()) == _plain(other._fields())

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaced

    def __repr__(self) -> str:
        return f"NodeState({', '.join(repr(v) for v in self._fields())})"


@dataclass
class TreeState:
    """The tree and its side panels (candidates, ledger, progress) after the first ``position`` events."""

    position: int = 0
    nodes: dict[int, NodeState] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)  # node ids in creation order
    # aligned with order, as growable arrays (``node_columns.Column``: the views read each as one array)
    parent_ids: Column = field(default_factory=lambda: Column(np.int64))  # parent id of each node
    status: Column = field(default_factory=lambda: Column(np.int64))  # CREATED/NOISED/CONSISTENT/RELEASED
    # the node's best released number summed over classes (``icicle_layout.released_value``; nan: none yet),
    # kept with ``status`` so the views read it as one array instead of visiting every node
    sizes: Column = field(default_factory=lambda: Column(np.float64))
    index: dict[int, int] = field(default_factory=dict)  # node id -> position in order
    # aligned with order: each node's consistent and released counts (``NodeState`` reads them from here)
    consistent_values: list = field(default_factory=list)
    released_values: list = field(default_factory=list)
    candidates: CandidatesScored | None = None
    winner: WinnerChosen | None = None
    spends: list = field(default_factory=list)  # BudgetSpent events, in order
    progress: Progress | None = None
    consistency_method: str | None = None
    finished: bool = False
    result: Any = None
    last_event: Event | None = None
    structure_version: int = 0  # bumps whenever a node is added or removed (layout cache key)
    # (a bulk event, the totals of its values): computed ahead by ``Replay.prepare_next`` (not state itself)
    prepared: tuple | None = field(default=None, compare=False, repr=False)

    # -- derived views ------------------------------------------------------------------------------

    @property
    def n_nodes(self) -> int:
        return len(self.order)

    @property
    def spent(self) -> float:
        return float(self.spends[-1].spent_total) if self.spends else 0.0

    @property
    def has_true_counts(self) -> bool:
        return any(n.true_count is not None for n in self.nodes.values())

    def parents_array(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, parents) with parents given as *positions* in ``ids`` (-1 for the root); kept until the
        structure changes (the tree view, its focus and the icicle ask for it in turn). Read-only arrays.
        After nodes were only appended, the ids already read are kept and only the new ones are read."""
        key = (self.structure_version, len(self.order), len(self.parent_ids))
        cached = self.__dict__.get("_parents_cache")
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        old_ids = cached[1] if cached is not None and self._appended_since(cached[0]) else None
        ids, par = self._parents_array(old_ids)
        ids.flags.writeable = False
        par.flags.writeable = False
        self.__dict__["_parents_cache"] = (key, ids, par)
        return ids, par

    def depths(self) -> np.ndarray:
        """Each node's depth from the root (aligned with ``order``; -1 parents are roots), kept until the
        structure changes like ``parents_array`` (the focus and the icicle both read it). Read-only. After
        nodes were only appended (a run followed live), only the new nodes' depths are computed."""
        key = (self.structure_version, len(self.order), len(self.parent_ids))
        cached = self.__dict__.get("_depths_cache")
        if cached is not None and cached[0] == key:
            return cached[1]
        par = self.parents_array()[1]
        depth = None
        if cached is not None and self._appended_since(cached[0]):
            old_depth, old_par = cached[1], cached[2]
            if np.array_equal(par[: old_par.size], old_par):  # no reused id took another parent since
                depth = _grown_depths(old_depth, par)
        if depth is None:
            depth = node_depths(par)
        depth.flags.writeable = False
        self.__dict__["_depths_cache"] = (key, depth, par)
        return depth

    def _appended_since(self, key: tuple) -> bool:
        """Whether nodes were appended since the state had ``key`` (a cache key of ``parents_array``): the
        replay is a function of its position, and the order of creation only grows with it, so the ids read
        then are the first ones now. (A reused id keeps its place but may change its parent: ``depths``
        checks the parents read then.)"""
        grown = len(self.order) - key[1]
        return grown > 0 and len(self.parent_ids) - key[2] == grown

    def _parents_array(self, old_ids: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        if old_ids is not None:
            tail = np.asarray(self.order[old_ids.size :], dtype=np.int64)
            ids = np.concatenate([old_ids, tail])
        else:
            ids = np.asarray(self.order, dtype=np.int64)
        n = ids.size
        raw = np.asarray(self.parent_ids, dtype=np.int64)
        if n and _is_range(ids):
            par = np.where((raw >= 0) & (raw < n), raw, -1)  # the usual case: ids are creation positions
        else:
            pos = {nid: i for i, nid in enumerate(self.order)}
            par = np.fromiter((pos.get(p, -1) for p in raw.tolist()), dtype=np.int64, count=n)
        return ids, par

    def column(self, name: str) -> list:
        """One field for every node, in creation order (e.g. ``column("noisy")``)."""
        return [getattr(self.nodes[n], name) for n in self.order]

    def snapshot(self) -> dict:
        """A plain, comparable summary (used by tests to compare two ways of reaching a position)."""
        return {
            "position": self.position,
            "order": list(self.order),
            "parent_ids": list(self.parent_ids),
            "status": list(self.status),
            "sizes": [None if math.isnan(x) else x for x in self.sizes],
            "nodes": {
                n: (
                    s.parent,
                    s.label,
                    s.depth,
                    s.true_count,
                    _plain(s.noisy),
                    s.variance,
                    s.epsilon,
                    _plain(s.consistent),
                    _plain(s.released),
                )
                for n, s in self.nodes.items()
            },
            "candidates": self.candidates,
            "winner": self.winner,
            "spends": list(self.spends),
            "progress": self.progress,
            "consistency_method": self.consistency_method,
            "finished": self.finished,
            "last_event": self.last_event,
        }


def carries_true_counts(events: Iterable[Event]) -> bool:
    """Whether any event carries a true count (only a teaching run's do: release streams never hold one)."""
    return any(getattr(e, "true_count", None) is not None for e in events)


def shown_as_teaching(declared: bool | None, events: Sequence[Event]) -> bool | None:
    """Whether a run is shown as a teaching run (its true counts may be overlaid): as its record declares;
    a run of unknown mode (None) is a teaching run once its events carry true counts, and stays unknown
    (shown as a release: nothing true overlaid) until then."""
    if declared is not None:
        return bool(declared)
    return True if carries_true_counts(events) else None


def _plain(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def _sorted_ids(state: TreeState) -> list[int]:
    return sorted(state.order)


def _grown_depths(old_depth: np.ndarray, par: np.ndarray) -> np.ndarray | None:
    """The depths of a tree grown from one whose first ``old_depth.size`` nodes (and their parents) are
    unchanged: the new nodes' depths level by level from their parents'. None when a new node is a root or
    its parent chain does not reach a known node (then the whole tree is computed again)."""
    n0 = old_depth.size
    todo = np.arange(n0, par.size)
    if (par[todo] < 0).any():
        return None
    depth = np.empty(par.size, dtype=np.int64)
    depth[:n0] = old_depth
    known = np.zeros(par.size, dtype=bool)
    known[:n0] = True
    while todo.size:
        p = par[todo]
        ready = known[p]
        if not ready.any():
            return None
        done = todo[ready]
        depth[done] = depth[p[ready]] + 1
        known[done] = True
        todo = todo[~ready]
    return depth


def _is_range(a: np.ndarray) -> bool:
    """Whether ``a`` is 0, 1, ..., len(a) - 1 (node ids that are their creation positions; the positions of
    a list's head)."""
    n = a.size
    return n == 0 or (a[0] == 0 and a[-1] == n - 1 and bool(np.all(np.diff(a) == 1)))


def _ids_are_positions(state: TreeState) -> bool:
    """True when the node ids are their creation positions 0..n-1 (the usual case), read from the ids
    ``parents_array`` keeps (after a run followed live, only its new ids are read)."""
    return _is_range(state.parents_array()[0])


#: undo records freed at a time by ``Replay.discard_some`` (about a millisecond)
DISCARD_PIECE = 4000


class Replay:
    """A cursor over a recorded event list.

    ``position`` is the number of events applied (0 = nothing yet, ``len(events)`` = the end).
    ``append(event)`` adds events while a run is still going (the cursor does not move).
    """

    def __init__(self, events: Iterable[Event] = ()):
        self.events: list[Event] = list(events)
        self.state = TreeState()
        self._undo: list[list] = []
        self._steps = StepIndex()
        self._discarded: list[list] = []  # undo lists of streams reset before, freed a piece at a time
        #: keep a long stream's undo records at a reset for ``discard_some`` (the Watch), else free them there
        self.free_later = False

    # -- public API ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.events)

    @property
    def position(self) -> int:
        return self.state.position

    @property
    def at_end(self) -> bool:
        return self.position >= len(self.events)

    def append(self, event: Event) -> None:
        self.events.append(event)

    def extend(self, events: Iterable[Event]) -> None:
        self.events.extend(events)

    def step_forward(self) -> bool:
        """Apply the next event; False when already at the end."""
        if self.at_end:
            return False
        ev = self.events[self.position]
        self._undo.append(_apply(self.state, ev))
        self.state.position += 1
        return True

    def prepare_next(self) -> bool:
        """Compute ahead what the next event's application would compute first, when it is a bulk event
        (the totals of every node's consistent or released values, about half its cost on a large tree):
        the Watch does it in one tick and applies the event in the next. True when there was work to do."""
        if self.at_end:
            return False
        ev = self.events[self.position]
        if not isinstance(ev, (ConsistencyDone, LeavesReleased)) or (
            self.state.prepared is not None and self.state.prepared[0] is ev
        ):
            return False
        values = ev.estimates if isinstance(ev, ConsistencyDone) else ev.counts
        self.state.prepared = (ev, released_totals(list(values)) if len(values) else np.zeros(0))
        return True

    def step_back(self) -> bool:
        """Undo the last applied event; False when already at the start."""
        if self.position == 0:
            return False
        _undo(self.state, self._undo.pop())
        self.state.position -= 1
        return True

    def seek(self, k: int) -> TreeState:
        """Move to position ``k`` (clamped to [0, len]) and return the state."""
        k = max(0, min(int(k), len(self.events)))
        if k < self.position // 2:
            self.reset()  # cheaper to rebuild from the start than to undo most of the way
        while self.position < k:
            self.step_forward()
        while self.position > k:
            self.step_back()
        return self.state

    def seek_end(self) -> TreeState:
        return self.seek(len(self.events))

    def reset(self, events: Iterable[Event] | None = None) -> None:
        """Back to the start (of ``events`` when given). With ``free_later``, the undo records of a long
        stream are not freed here but by ``discard_some`` (freeing the 77,000 records of a million-row run
        took 20 ms of the GUI thread)."""
        if events is not None:
            self.events = list(events)
            self._steps = StepIndex()
        self.state = TreeState()
        if self.free_later and len(self._undo) > DISCARD_PIECE:
            self._discarded.append(self._undo)
        self._undo = []

    def discard_some(self, records: int | None = None) -> bool:
        """Free up to ``records`` (default ``DISCARD_PIECE``) undo records of the streams reset before;
        True while some are left."""
        records = DISCARD_PIECE if records is None else records
        while self._discarded and records > 0:
            old = self._discarded[-1]
            k = min(records, len(old))
            del old[len(old) - k :]
            records -= k
            if not old:
                self._discarded.pop()
        return bool(self._discarded)

    @property
    def discarded(self) -> int:
        """Undo records of the streams reset before, not freed yet."""
        return sum(len(old) for old in self._discarded)

    # -- steps (the unit of playback) ---------------------------------------------------------------
    def step_starts(self) -> list[int]:
        """First event index of every step of the events so far (see ``StepIndex``)."""
        return self._steps.scan(self.events)

    @property
    def n_steps(self) -> int:
        return len(self.step_starts())

    def steps_done(self, position: int | None = None) -> int:
        """How many steps are complete at ``position`` (default: the cursor): 0 at the start, ``n_steps``
        at the end."""
        pos = self.position if position is None else position
        starts = self.step_starts()
        if pos >= len(self.events):
            return len(starts)
        return max(0, bisect.bisect_right(starts, pos) - 1)

    def step_end(self, k: int) -> int:
        """The position after the first ``k`` steps (clamped to [0, len(events)])."""
        starts = self.step_starts()
        if k <= 0:
            return 0
        return starts[k] if k < len(starts) else len(self.events)

    def next_index_of(self, kinds: tuple[type, ...]) -> int | None:
        """Index (position after applying it) of the next event of one of ``kinds``, or None."""
        for i in range(self.position, len(self.events)):
            if isinstance(self.events[i], kinds):
                return i + 1
        return None


#: events that always begin a new step
_STEP_OPENERS = (CandidatesScored, ConsistencyDone, LeavesReleased, RunFinished)
_NODE_EVENTS = (NodeCreated, NodeNoised, BudgetAssigned)


class StepIndex:
    """Where each replay step begins in an event list, found incrementally as events arrive (live runs).

    ``starts`` holds the first event index of every step (``starts[0] == 0`` once there is an event);
    step ``i`` is ``events[starts[i]:starts[i + 1]]`` (the last one runs to the end)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self._scanned = 0
        self._depth: dict[int, int] = {}
        self._selection: str | None = (
            None  # "scored" / "chosen" inside a selection: its spend and partitions belong to it
        )
        self._key: Any = None  # (kind, depth) of the running group of node events, or "spend"
        self._substance = False  # the step under way has more than progress messages

    def scan(self, events: Sequence[Event]) -> list[int]:
        for i in range(self._scanned, len(events)):
            ev = events[i]
            if not self.starts:
                self.starts.append(i)
            if self._opens(ev) and self._substance:
                self.starts.append(i)
                self._substance = False
            self._substance = self._substance or not isinstance(ev, Progress)
        self._scanned = len(events)
        return self.starts

    def _opens(self, ev: Event) -> bool:
        if isinstance(ev, NodeCreated):
            self._depth[ev.node] = ev.depth
        if isinstance(ev, _STEP_OPENERS):
            self._selection = "scored" if isinstance(ev, CandidatesScored) else None
            self._key = None
            return True
        if isinstance(ev, WinnerChosen):
            if self._selection == "scored":
                self._selection = "chosen"
            return False
        if isinstance(ev, BudgetSpent):
            if self._selection == "scored":
                return False  # the spend that pays for the selection
            self._selection = None
            opened = self._key != "spend"
            self._key = "spend"
            return opened
        if isinstance(ev, _NODE_EVENTS):
            if self._selection is not None and isinstance(ev, NodeCreated):
                return False  # the partitions a selection made are part of its step
            self._selection = None
            kind, depth = type(ev), self._depth.get(ev.node, -1)
            # levels are made, budgeted and noised top down: a new kind or a deeper level opens a step
            opened = not (isinstance(self._key, tuple) and self._key[0] is kind and depth <= self._key[1])
            self._key = (kind, depth if opened else max(depth, self._key[1]))
            return opened
        return False


def step_starts(events: Sequence[Event]) -> list[int]:
    """The first event index of every replay step of ``events`` (see ``StepIndex``)."""
    return StepIndex().scan(events)


def state_at(events: Sequence[Event], k: int) -> TreeState:
    """The state after the first ``k`` events, rebuilt from scratch (the reference for ``Replay``)."""
    state = TreeState()
    for ev in events[:k]:
        _apply(state, ev)
        state.position += 1
    return state


# -- applying and undoing one event ----------------------------------------------------------------
# Each _apply returns a list of undo operations, executed in reverse by _undo. An operation is a tuple:
#   ("attr", obj, name, old)       restore an attribute
#   ("node_del", node_id)          remove a node that the event created
#   ("node_restore", node_id, NodeState, parent, status, size, consistent, released)  restore a node
#                                  replaced by a duplicate NodeCreated, and its entries in the columns
#   ("column", name, old_list)     restore one of the value lists a bulk event replaced
#   ("spend_pop",)                 drop the last BudgetSpent


def _status(state: TreeState, node: NodeState) -> None:
    i = state.index.get(node.node)
    if i is None:
        return
    state.status[i] = (
        RELEASED
        if node.released is not None
        else CONSISTENT
        if node.consistent is not None
        else NOISED
        if node.noisy is not None
        else CREATED
    )
    size = released_value(node)
    state.sizes[i] = math.nan if size is None else size


def _set_bulk(state: TreeState, where: np.ndarray, values, status: int, totals=None) -> None:
    """Status and sizes of the nodes at positions ``where`` after a bulk event gave them ``values``: a
    node with a value rises to ``status`` (never falls: a released leaf stays released when consistency
    comes after), and a node whose status is now ``status`` takes its value's total as its size.
    Vectorised: a consistency or release event touches every node at once. ``totals``: the values'
    totals (``released_totals``) if computed ahead."""
    if where.size == 0:
        return
    if None in values:
        has = np.fromiter((v is not None for v in values), dtype=bool, count=where.size)
    else:  # the usual case, found by one scan in C
        has = np.ones(where.size, dtype=bool)
    current = np.asarray(state.status)[where]
    state.status.put(where[has & (current < status)], status)
    keep = np.asarray(state.status)[where] == status
    state.sizes.put(where[keep], (released_totals(values) if totals is None else totals)[keep])


def _set(undo: list, obj, name: str, value) -> None:
    undo.append(("attr", obj, name, getattr(obj, name)))
    setattr(obj, name, value)


def _apply(state: TreeState, ev: Event) -> list:
    undo: list = []
    _set(undo, state, "last_event", ev)
    if isinstance(ev, NodeCreated):
        old = state.nodes.get(ev.node)
        if old is not None:
            # A node id reused: replace it in place (keeps creation order), restorable.
            i = state.index[ev.node]
            undo.append(
                (
                    "node_restore",
                    ev.node,
                    old,
                    state.parent_ids[i],
                    state.status[i],
                    state.sizes[i],
                    state.consistent_values[i],
                    state.released_values[i],
                )
            )
            state.parent_ids[i] = ev.parent
            state.status[i] = CREATED
            state.sizes[i] = math.nan
            state.consistent_values[i] = state.released_values[i] = None
        else:
            undo.append(("node_del", ev.node))
            state.index[ev.node] = len(state.order)
            state.order.append(ev.node)
            state.parent_ids.append(ev.parent)
            state.status.append(CREATED)
            state.sizes.append(math.nan)
            state.consistent_values.append(None)
            state.released_values.append(None)
        made = NodeState(ev.node, ev.parent, ev.label, ev.depth, dict(ev.info), ev.true_count)
        made._tree = state
        state.nodes[ev.node] = made
        _set(undo, state, "structure_version", state.structure_version + 1)
    elif isinstance(ev, NodeNoised):
        node = state.nodes.get(ev.node)
        if node is not None:
            undo.append(("status", node))  # undone last: after the values are restored
            _set(undo, node, "noisy", ev.noisy)
            _set(undo, node, "variance", ev.variance)
            if ev.true_count is not None:
                _set(undo, node, "true_count", ev.true_count)
            _status(state, node)
    elif isinstance(ev, BudgetAssigned):
        node = state.nodes.get(ev.node)
        if node is not None:
            _set(undo, node, "epsilon", ev.epsilon)
    elif isinstance(ev, ConsistencyDone):
        _apply_consistency(state, ev, undo)
    elif isinstance(ev, LeavesReleased):
        _apply_leaves(state, ev, undo)
    elif isinstance(ev, CandidatesScored):
        _set(undo, state, "candidates", ev)
        _set(undo, state, "winner", None)
    elif isinstance(ev, WinnerChosen):
        # a winner belongs to the candidates of its own selection (numbered streams); an unnumbered
        # winner of another step does not pair with the candidates shown
        cand = state.candidates
        if cand is not None and (
            cand.selection == ev.selection if (cand.selection >= 0 or ev.selection >= 0) else cand.step == ev.step
        ):
            _set(undo, state, "winner", ev)
        else:
            _set(undo, state, "winner", None)
    elif isinstance(ev, BudgetSpent):
        state.spends.append(ev)
        undo.append(("spend_pop",))
    elif isinstance(ev, Progress):
        _set(undo, state, "progress", ev)
    elif isinstance(ev, RunFinished):
        _set(undo, state, "finished", True)
        _set(undo, state, "result", ev.result)
    return undo


def _apply_consistency(state: TreeState, ev: ConsistencyDone, undo: list) -> None:
    """A consistency pass: every node's consistent count at once (estimates in node id order)."""
    _set(undo, state, "consistency_method", ev.method)
    order = state.order
    sorted_ids = _ids_are_positions(state)
    ids = order if sorted_ids else sorted(order)
    k = min(len(ids), len(ev.estimates))
    estimates = list(ev.estimates[:k])
    where = np.arange(k) if sorted_ids else np.fromiter((state.index[nid] for nid in ids[:k]), np.int64, k)
    totals = _prepared_totals(state, ev)
    _write_bulk(state, "consistent_values", where, estimates, CONSISTENT, undo, None if totals is None else totals[:k])


def _apply_leaves(state: TreeState, ev: LeavesReleased, undo: list) -> None:
    """The release of the leaves: the released count of every leaf named at once."""
    order = state.order
    if _ids_are_positions(state):  # no lookup per node
        where = np.asarray(ev.nodes, dtype=np.int64).reshape(-1)
        inside = (where >= 0) & (where < len(order))
        counts = list(ev.counts) if inside.all() else [c for c, ok in zip(ev.counts, inside.tolist()) if ok]
        where = where[inside]
    else:
        index = state.index
        inside = np.fromiter((nid in index for nid in ev.nodes), dtype=bool, count=len(ev.nodes))
        counts = [c for c, ok in zip(ev.counts, inside.tolist()) if ok]
        where = np.fromiter((index[nid] for nid, ok in zip(ev.nodes, inside.tolist()) if ok), np.int64, len(counts))
    totals = _prepared_totals(state, ev)
    _write_bulk(state, "released_values", where, counts, RELEASED, undo, None if totals is None else totals[inside])


def _prepared_totals(state: TreeState, ev: Event) -> np.ndarray | None:
    """The totals of ``ev``'s values if ``Replay.prepare_next`` computed them (then they are used once)."""
    prepared, state.prepared = state.prepared, None
    return prepared[1] if prepared is not None and prepared[0] is ev else None


def _write_bulk(
    state: TreeState, name: str, where: np.ndarray, values: list, status: int, undo: list, totals=None
) -> None:
    """A bulk event's values written into the state's list ``name`` at positions ``where``, and the status
    and sizes they give (``_set_bulk``; ``totals``: their totals if computed ahead): one new list and one
    copy of the status and sizes as the undo record (tens of thousands of nodes; the node objects read
    their values from the list)."""
    undo.append(("status_list", state.status.copy(), state.sizes.copy()))
    old = getattr(state, name)
    undo.append(("column", name, old))
    k = len(values)  # aligned with ``where``
    if _is_range(where):
        new = values + old[k:]  # the list's head, in order (a consistency pass when ids are creation positions)
    else:
        new = list(old)
        for i, v in zip(where.tolist(), values):
            new[i] = v
    setattr(state, name, new)
    _set_bulk(state, where, values, status, totals)


def _undo(state: TreeState, ops: list) -> None:
    for op in reversed(ops):
        tag = op[0]
        if tag == "attr":
            setattr(op[1], op[2], op[3])
        elif tag == "node_del":
            del state.nodes[op[1]]
            # The node created last is the one to remove: it sits at the end of the order.
            i = state.index.pop(op[1])
            if i == len(state.order) - 1:
                state.order.pop()
                state.parent_ids.pop()
                state.status.pop()
                state.sizes.pop()
                state.consistent_values.pop()
                state.released_values.pop()
            else:  # not expected for streams that only append
                del state.order[i]
                for column in (state.parent_ids, state.status, state.sizes):
                    column.delete(i)
                del state.consistent_values[i]
                del state.released_values[i]
                state.index = {nid: k for k, nid in enumerate(state.order)}
        elif tag == "node_restore":
            state.nodes[op[1]] = op[2]
            i = state.index[op[1]]
            state.parent_ids[i] = op[3]
            state.status[i] = op[4]
            state.sizes[i] = op[5]
            state.consistent_values[i] = op[6]
            state.released_values[i] = op[7]
        elif tag == "status":
            _status(state, op[1])
        elif tag == "column":
            setattr(state, op[1], op[2])
        elif tag == "status_list":
            state.status[:] = op[1]
            state.sizes[:] = op[2]
        elif tag == "spend_pop":
            state.spends.pop()
