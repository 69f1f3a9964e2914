"""Taxonomy trees: the public generalization hierarchy of one attribute.

A taxonomy is public input (never derived silently from the private data). Categorical: the leaves are the
attribute's values and internal nodes generalize them (root usually "*" or "Any"). Numeric: every node is a
half-open interval [lo, hi); the root holds the public bounds and children partition their parent.

Nodes are stored in preorder (root = 0) in flat arrays so that mapping and tree walks vectorise.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NoReturn

import numpy as np

CATEGORICAL = "categorical"
NUMERIC = "numeric"


class TaxonomyError(ValueError):
    """A taxonomy (or a file holding one) is invalid; the message names file, line and problem."""

    def __init__(self, problem: str, source: str | None = None, line: int | None = None):
        self.problem = problem
        self.source = source
        self.line = line
        where = ""
        if source is not None:
            where = f"{source}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + problem)


@dataclass
class Node:
    """A mutable node used to build trees (parsers, generators, the GUI's editor)."""

    label: str
    children: list[Node] = field(default_factory=list)
    lo: float | None = None
    hi: float | None = None

    def add(self, child: Node) -> Node:
        self.children.append(child)
        return child


def number_text(x: float) -> str:
    """A number as text without loss: integers without a decimal point, others in Python's shortest
    round-trip form (``float(number_text(x)) == x``)."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def interval_label(lo: float, hi: float) -> str:
    """The canonical label of the interval [lo, hi): integers print without a decimal point.

    Other numbers print in Python's shortest round-trip form, so ``parse_interval`` gives back the same floats.
    """
    return f"[{number_text(lo)},{number_text(hi)})"


_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf"
_BRACKET_RE = re.compile(rf"^\[\s*({_NUM})\s*,\s*({_NUM})\s*\)$")
_DASH_RE = re.compile(rf"^({_NUM})\s*-\s*({_NUM})$")


def parse_interval(label: str, dash: bool = True) -> tuple[float, float] | None:
    """``(lo, hi)`` if ``label`` names a half-open interval, else None.

    Accepted: ``[lo,hi)`` (the canonical form, see ``interval_label``) and, when ``dash`` is true, the
    seed-002 shorthand ``lo-hi`` (also meaning [lo, hi)). ``lo`` must be below ``hi``.
    """
    text = str(label).strip()
    m = _BRACKET_RE.match(text) or (_DASH_RE.match(text) if dash else None)
    if not m:
        return None
    lo, hi = float(m.group(1)), float(m.group(2))
    if not lo < hi:
        return None
    return lo, hi


def _interval(n: Node) -> tuple[float, float]:
    """A numeric node's [lo, hi) (checked present by the validation before any use)."""
    assert n.lo is not None and n.hi is not None, n.label
    return float(n.lo), float(n.hi)


def _shared_node_problem(root: Node, node: Node) -> str:
    """Say whether ``node`` (met twice while walking from ``root``) closes a cycle or has two parents."""
    stack, on_path = [(root, False)], []  # type: tuple[list[tuple[Node, bool]], list[Node]]
    while stack:
        n, leaving = stack.pop()
        if leaving:
            on_path.pop()
            continue
        if any(n is p for p in on_path):
            names = " -> ".join(repr(p.label) for p in on_path[[id(p) for p in on_path].index(id(n)) :])
            return f"cycle: {names} -> {n.label!r}"
        on_path.append(n)
        stack.append((n, True))
        stack.extend((c, False) for c in reversed(n.children))
    return f"node {node.label!r} appears under two parents"


def check_tree(
    root: Node, source: str | None = None, line_of: dict[int, int] | None = None, kind: str | None = None
) -> None:
    """Validate a ``Node`` tree; raise TaxonomyError naming ``source``, the line and the problem.

    ``line_of`` maps ``id(node)`` to the line the node came from (parsers fill it). Checks: no cycle and no
    node under two parents; every label non-empty, without surrounding spaces or line breaks; categorical:
    no two leaves with the same label; numeric (every node has lo and hi): lo < hi, finite, and the children
    of every node partition it (no gap, no overlap; children listed in ascending order).
    """
    line_of = line_of or {}

    def fail(problem: str, node: Node | None = None) -> NoReturn:
        raise TaxonomyError(problem, source, None if node is None else line_of.get(id(node)))

    order: list[Node] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            fail(_shared_node_problem(root, n), n)
        seen.add(id(n))
        order.append(n)
        stack.extend(reversed(n.children))
    numeric_nodes = [n for n in order if n.lo is not None and n.hi is not None]
    if kind is None:
        kind = NUMERIC if len(numeric_nodes) == len(order) else CATEGORICAL
    leaf_line: dict[str, Node] = {}
    for n in order:
        label = n.label if isinstance(n.label, str) else str(n.label)
        if label.strip() == "":
            fail("empty label", n)
        if label != label.strip():
            fail(f"label {label!r} has spaces at its start or end", n)
        if len(label.splitlines()) > 1 or label.endswith(("\n", "\r")):
            fail(f"label {label!r} contains a line break", n)
        if kind == CATEGORICAL and not n.children:
            if label in leaf_line:
                first = line_of.get(id(leaf_line[label]))
                also = f" (first at line {first})" if first is not None else ""
                fail(f"duplicate leaf {label!r}{also}", n)
            leaf_line[label] = n
    if kind != NUMERIC:
        return
    for n in order:
        if n.lo is None or n.hi is None:
            fail(f"node {n.label!r} has no interval in a numeric taxonomy", n)
        lo, hi = float(n.lo), float(n.hi)
        if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
            fail(f"node {n.label!r}: interval [{lo}, {hi}) is empty or not finite", n)
    for n in order:
        if not n.children:
            continue
        here = interval_label(*_interval(n))
        for a, b in zip(n.children, n.children[1:]):
            if _interval(b)[0] < _interval(a)[0]:
                fail(
                    f"children of {here} are not in ascending order: {interval_label(*_interval(b))} comes after "
                    f"{interval_label(*_interval(a))}",
                    b,
                )
        prev_hi, prev = _interval(n)[0], None
        for c in n.children:
            c_lo, c_hi = _interval(c)
            what = interval_label(c_lo, c_hi)
            if c_lo > prev_hi:
                after = f"after {interval_label(*_interval(prev))}" if prev is not None else "at the start"
                fail(
                    f"gap between numeric child intervals under {here}: [{number_text(prev_hi)},{number_text(c_lo)}) "
                    f"is not covered ({after}, before {what}); children must partition their parent",
                    c,
                )
            if c_lo < prev_hi:
                if prev is None:
                    fail(f"child interval {what} starts before its parent {here}", c)
                fail(
                    f"overlap between numeric child intervals under {here}: {interval_label(*_interval(prev))} "
                    f"and {what} share [{number_text(c_lo)},{number_text(min(prev_hi, c_hi))}); "
                    "children must partition their parent (listed in ascending order)",
                    c,
                )
            prev_hi, prev = c_hi, c
        n_hi = _interval(n)[1]
        if prev is not None and prev_hi != n_hi:
            if prev_hi < n_hi:
                fail(
                    f"gap between numeric child intervals under {here}: [{number_text(prev_hi)},{number_text(n_hi)}) "
                    f"is not covered (after the last child {interval_label(*_interval(prev))}); "
                    "children must partition their parent",
                    prev,
                )
            fail(f"child interval {interval_label(*_interval(prev))} ends after its parent {here}", prev)


def _value_key(value: Any) -> str | None:
    """The text a value is compared by (str after strip); None for missing values (None, NaN)."""
    if value is None:
        return None
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return None
        if float(value).is_integer():
            return str(int(value))
        return repr(float(value))
    if isinstance(value, (bytes, np.bytes_)):
        value = value.decode("utf-8", "replace")
    return str(value).strip()


def _factorize(values) -> tuple[np.ndarray, list]:
    """``(codes, uniques)`` with ``uniques[codes] == values``; numpy for numbers, a dict for objects/strings."""
    arr = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    if arr.dtype.kind in "biuf":
        if arr.dtype.kind == "f":
            nan = np.isnan(arr)
            if nan.any():
                uniq, codes = np.unique(np.where(nan, 0.0, arr), return_inverse=True)
                codes = codes.astype(np.int64)
                codes[nan] = len(uniq)
                return codes, [*uniq.tolist(), float("nan")]
        uniq, codes = np.unique(arr, return_inverse=True)
        return codes.reshape(-1).astype(np.int64), uniq.tolist()
    items = arr.tolist()
    table: dict = {}

    def code(x):
        try:
            return table.setdefault(x, len(table))
        except TypeError:  # unhashable (a list in an object column): compare by its text
            return table.setdefault(str(x), len(table))

    codes = np.fromiter((code(x) for x in items), dtype=np.int64, count=len(items))
    return codes, list(table)


@dataclass(frozen=True)
class ValueMapping:
    """The result of ``Taxonomy.map_values``: one leaf per value, and what was not covered.

    ``leaf_ids[k]`` is the node id of the leaf holding value k, or -1 if the taxonomy does not cover it.
    ``uncovered`` lists every uncovered distinct value with its number of rows, most frequent first; no
    row is ever dropped. ``uncovered`` holds private data: show it to the data owner, never release it.
    """

    leaf_ids: np.ndarray
    uncovered: tuple[tuple[Any, int], ...]
    attribute: str = ""

    @property
    def n_uncovered(self) -> int:
        """Number of rows whose value is not covered."""
        return int(sum(c for _, c in self.uncovered))

    @property
    def all_covered(self) -> bool:
        return not self.uncovered

    def require_all_covered(self) -> np.ndarray:
        """``leaf_ids`` if every value is covered, else TaxonomyError naming attribute, values and rows."""
        if self.uncovered:
            raise TaxonomyError(uncovered_message(self.attribute, self.uncovered))
        return self.leaf_ids


def uncovered_message(attribute: str, uncovered: Sequence[tuple[Any, int]], show: int = 10) -> str:
    rows = sum(c for _, c in uncovered)
    listed = ", ".join(
        f"{'missing (empty/NaN)' if v is None else repr(v)} ({c} row{'s' if c != 1 else ''})"
        for v, c in uncovered[:show]
    )
    more = f" and {len(uncovered) - show} more" if len(uncovered) > show else ""
    n = len(uncovered)
    return (
        f"attribute {attribute or '(unnamed)'!r}: {n} value{'s' if n != 1 else ''} not covered by the "
        f"taxonomy, in {rows} row{'s' if rows != 1 else ''}: {listed}{more}. Extend the taxonomy or map "
        "them to an explicit 'Other' leaf (rows are never dropped silently)"
    )


def _to_float(value: Any) -> float:
    """A value as a float for numeric mapping; NaN when it is missing or not a number."""
    if value is None:
        return math.nan
    try:
        return float(str(value).strip()) if isinstance(value, (str, bytes, np.str_)) else float(value)
    except (TypeError, ValueError):
        return math.nan


class Taxonomy:
    """An immutable taxonomy tree over one attribute, flattened in preorder.

    Attributes: ``labels[i]``, ``parents[i]`` (-1 for the root), ``depth[i]``, ``children[i]`` (list of
    node ids in order), ``lo``/``hi`` (float arrays, numeric only), ``kind`` and ``attribute``.
    """

    def __init__(self, root: Node, attribute: str = "", kind: str | None = None):
        labels: list[str] = []
        parents: list[int] = []
        depth: list[int] = []
        lo: list[float] = []
        hi: list[float] = []
        children: list[list[int]] = []
        stack: list[tuple[Node, int, int]] = [(root, -1, 0)]
        seen: set[int] = set()
        while stack:
            node, parent, d = stack.pop()
            if id(node) in seen:
                raise TaxonomyError(_shared_node_problem(root, node))
            seen.add(id(node))
            idx = len(labels)
            labels.append(str(node.label))
            parents.append(parent)
            depth.append(d)
            lo.append(np.nan if node.lo is None else float(node.lo))
            hi.append(np.nan if node.hi is None else float(node.hi))
            children.append([])
            if parent >= 0:
                children[parent].append(idx)
            for child in reversed(node.children):
                stack.append((child, idx, d + 1))
        self.attribute = attribute
        self.labels = labels
        self.parents = np.asarray(parents, dtype=np.int64)
        self.depth = np.asarray(depth, dtype=np.int64)
        self.children = children
        self.lo = np.asarray(lo, dtype=float)
        self.hi = np.asarray(hi, dtype=float)
        if kind is None:
            kind = NUMERIC if not np.isnan(self.lo).any() and not np.isnan(self.hi).any() else CATEGORICAL
        self.kind = kind
        self._index: dict[str, int] | None = None

    # -- structure -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.labels)

    @property
    def is_numeric(self) -> bool:
        return self.kind == NUMERIC

    @property
    def root(self) -> int:
        return 0

    @property
    def height(self) -> int:
        return int(self.depth.max())

    def is_leaf(self, i: int) -> bool:
        return not self.children[i]

    @property
    def leaves(self) -> list[int]:
        """Leaf node ids, left to right."""
        return [i for i in range(len(self)) if not self.children[i]]

    def leaves_under(self, i: int) -> list[int]:
        out, stack = [], [i]
        while stack:
            j = stack.pop()
            if self.children[j]:
                stack.extend(reversed(self.children[j]))
            else:
                out.append(j)
        return out

    def path(self, i: int) -> list[int]:
        """Node ids from the root down to ``i``."""
        out = []
        while i >= 0:
            out.append(i)
            i = int(self.parents[i])
        return out[::-1]

    def index(self, label: str) -> int:
        """The node id of ``label``; leaf labels win over internal ones if a label repeats."""
        if self._index is None:
            idx: dict[str, int] = {}
            for i, lab in enumerate(self.labels):
                if lab not in idx or not self.children[i]:
                    idx[lab] = i
            self._index = idx
        try:
            return self._index[label]
        except KeyError:
            raise KeyError(f"{label!r} is not a node of the taxonomy of {self.attribute or 'this attribute'}") from None

    def to_node(self, i: int = 0) -> Node:
        """Back to a mutable ``Node`` tree (for editing or writing)."""
        nodes = [
            Node(
                self.labels[j],
                [],
                None if np.isnan(self.lo[j]) else float(self.lo[j]),
                None if np.isnan(self.hi[j]) else float(self.hi[j]),
            )
            for j in range(len(self))
        ]
        for j in range(len(self)):
            for c in self.children[j]:
                nodes[j].children.append(nodes[c])
        return nodes[i]

    def __eq__(self, other) -> bool:
        if not isinstance(other, Taxonomy):
            return NotImplemented
        return (
            self.labels == other.labels
            and np.array_equal(self.parents, other.parents)
            and np.array_equal(self.lo, other.lo, equal_nan=True)
            and np.array_equal(self.hi, other.hi, equal_nan=True)
        )

    def __repr__(self) -> str:
        return f"Taxonomy({self.attribute!r}, {self.kind}, {len(self)} nodes, {len(self.leaves)} leaves)"

    # -- validation ------------------------------------------------------------------------------
    def validate(self, source: str | None = None) -> Taxonomy:
        """Run ``check_tree`` on this taxonomy (returns self, so ``Taxonomy(...).validate()`` chains)."""
        check_tree(self.to_node(), source, kind=self.kind)
        return self

    # -- leaf ranges -----------------------------------------------------------------------------
    @cached_property
    def subtree_stop(self) -> np.ndarray:
        """Node ids under node i (i included) are ``range(i, subtree_stop[i])`` (preorder)."""
        n = len(self)
        stop = np.arange(1, n + 1, dtype=np.int64)
        for i in range(n - 1, 0, -1):
            p = self.parents[i]
            if stop[i] > stop[p]:
                stop[p] = stop[i]
        return stop

    @cached_property
    def leaf_order(self) -> np.ndarray:
        """Leaf node ids left to right (int64); a leaf's position here is its ``leaf_rank``."""
        return np.asarray(self.leaves, dtype=np.int64)

    @cached_property
    def leaf_rank(self) -> np.ndarray:
        """For every node: its position in ``leaf_order`` if it is a leaf, else -1."""
        rank = np.full(len(self), -1, dtype=np.int64)
        rank[self.leaf_order] = np.arange(len(self.leaf_order))
        return rank

    @cached_property
    def leaf_start(self) -> np.ndarray:
        """Leaves under node i are ``leaf_order[leaf_start[i]:leaf_stop[i]]`` (contiguous in preorder)."""
        is_leaf = self.leaf_rank >= 0
        before = np.concatenate([[0], np.cumsum(is_leaf)])  # leaves among node ids < k
        return before[np.arange(len(self))]

    @cached_property
    def leaf_stop(self) -> np.ndarray:
        is_leaf = self.leaf_rank >= 0
        before = np.concatenate([[0], np.cumsum(is_leaf)])
        return before[self.subtree_stop]

    def leaf_range(self, i: int) -> tuple[int, int]:
        """``(start, stop)``: the leaves under node i are leaf ranks start..stop-1 (O(1) after the first call)."""
        return int(self.leaf_start[i]), int(self.leaf_stop[i])

    def leaf_set(self, i: int) -> np.ndarray:
        """Leaf node ids under node i (a view into ``leaf_order``; the leaf itself for a leaf)."""
        return self.leaf_order[self.leaf_start[i] : self.leaf_stop[i]]

    def is_under(self, nodes, i: int) -> np.ndarray:
        """Vectorised: which of ``nodes`` (ids) lie in the subtree of node i (i included)."""
        nodes = np.asarray(nodes)
        return (nodes >= i) & (nodes < self.subtree_stop[i])

    @cached_property
    def ancestor_table(self) -> np.ndarray:
        """``ancestor_table[i, d]``: the ancestor of node i at depth d, or i itself when depth(i) <= d."""
        n, h = len(self), self.height
        table = np.empty((n, h + 1), dtype=np.int64)
        for i in range(n):  # preorder: a parent's row is filled before its children's
            d = self.depth[i]
            if i:
                table[i, :d] = table[self.parents[i], :d]
            table[i, d:] = i
        return table

    def ancestor_at_depth(self, nodes, depth: int) -> np.ndarray:
        """Vectorised generalization: each node's ancestor at ``depth`` (nodes shallower are kept)."""
        depth = min(max(int(depth), 0), self.height)
        return self.ancestor_table[np.asarray(nodes, dtype=np.int64), depth]

    # -- mapping values to leaves ----------------------------------------------------------------
    @cached_property
    def _leaf_lookup(self) -> dict[str, int]:
        lookup: dict[str, int] = {}
        for i in self.leaves:
            key = self.labels[i].strip()
            if key in lookup:
                raise TaxonomyError(f"duplicate leaf {key!r} in the taxonomy of {self.attribute or 'this attribute'}")
            lookup[key] = i
        return lookup

    @cached_property
    def _sorted_leaf_intervals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        leaves = self.leaf_order
        order = np.argsort(self.lo[leaves], kind="stable")
        return self.lo[leaves][order], self.hi[leaves][order], leaves[order]

    def map_values(self, values) -> ValueMapping:
        """Map every value to its leaf: a ``ValueMapping`` with leaf ids (-1 = not covered) and the uncovered
        values with their row counts. Nothing is dropped.

        Categorical: a value matches the leaf whose label equals ``str(value).strip()`` (integral floats
        compare as integers, so 39.0 matches "39"); None and NaN are never covered. Numeric: the leaf whose
        [lo, hi) holds the value (np.searchsorted over the leaves sorted by lo); NaN, text that is not a
        number, and values outside the root (including value == root's hi) are not covered.
        """
        if not isinstance(values, (np.ndarray, list, tuple)):  # pandas Series, ranges, generators ...
            values = np.asarray(
                values if hasattr(values, "__array__") or hasattr(values, "__len__") else list(values), dtype=None
            )
            if values.dtype.kind not in "biufUO":
                values = values.astype(object)
        if self.is_numeric:
            return self._map_numeric(values)
        leaf_ids = self._exact_match(values)
        if leaf_ids is None:  # no fast path for this input: factorize everything
            codes, uniques = _factorize(values)
            per_unique = self._lookup_keys(uniques)
            leaf_ids = per_unique[codes] if len(codes) else np.empty(0, dtype=np.int64)
            return ValueMapping(leaf_ids, self._uncovered(codes, uniques, per_unique), self.attribute)
        miss = np.flatnonzero(leaf_ids < 0)
        if not len(miss):
            return ValueMapping(leaf_ids, (), self.attribute)
        # values that are not exactly a leaf label: compare them by their stripped text
        rest = (
            values.reshape(-1)[miss]
            if isinstance(values, np.ndarray)
            else np.asarray(values, dtype=object).reshape(-1)[miss]
        )
        codes, uniques = _factorize(rest)
        per_unique = self._lookup_keys(uniques)
        leaf_ids[miss] = per_unique[codes]
        return ValueMapping(leaf_ids, self._uncovered(codes, uniques, per_unique), self.attribute)

    def _lookup_keys(self, uniques: list) -> np.ndarray:
        lookup = self._leaf_lookup
        keys = [_value_key(u) for u in uniques]
        return np.fromiter((lookup.get(k, -1) if k is not None else -1 for k in keys), dtype=np.int64, count=len(keys))

    def _exact_match(self, values) -> np.ndarray | None:
        """Leaf ids of values that equal a leaf label exactly (-1 otherwise), or None without a fast path.

        numpy str arrays: a 64-bit polynomial hash of the code points, searchsorted against the leaf hashes,
        every hit verified by string equality. Lists and object arrays: one dict lookup per value.
        """
        lookup = self._leaf_lookup
        if isinstance(values, np.ndarray) and values.dtype.kind == "U" and values.dtype.itemsize:
            v = np.ascontiguousarray(values.reshape(-1))
            width = v.dtype.itemsize // 4
            leaf_ids = np.fromiter(lookup.values(), dtype=np.int64, count=len(lookup))
            leaf_text = np.array(list(lookup), dtype=v.dtype)  # longer labels are truncated: verified below
            weights = np.random.default_rng(20111).integers(1, 2**63, size=width, dtype=np.uint64) | np.uint64(1)

            def text_hash(a: np.ndarray) -> np.ndarray:  # wraps modulo 2**64, as intended
                return np.einsum("ij,j->i", a.view(np.uint32).reshape(len(a), width), weights)

            leaf_hash = text_hash(leaf_text)
            order = np.argsort(leaf_hash)
            sorted_hash = leaf_hash[order]
            if len(np.unique(sorted_hash)) != len(sorted_hash) or not len(sorted_hash):
                return None
            labels_u = np.array(list(lookup))
            out = np.empty(len(v), dtype=np.int64)
            chunk = 1 << 15  # cache-sized blocks: about 3x faster than whole-array passes
            for start in range(0, len(v), chunk):
                block = v[start : start + chunk]
                h = text_hash(block)
                pos = np.minimum(np.searchsorted(sorted_hash, h), len(sorted_hash) - 1)
                cand = order[pos]
                hit = (sorted_hash[pos] == h) & (labels_u[cand] == block)  # equality rules out collisions
                out[start : start + chunk] = np.where(hit, leaf_ids[cand], -1)
            return out
        if isinstance(values, (list, tuple)) or (isinstance(values, np.ndarray) and values.dtype.kind == "O"):
            seq = values.reshape(-1).tolist() if isinstance(values, np.ndarray) else values
            try:
                return np.fromiter(map(lookup.get, seq, itertools.repeat(-1)), dtype=np.int64, count=len(seq))
            except TypeError:  # an unhashable value
                return None
        return None

    def map_values_strict(self, values) -> np.ndarray:
        """Leaf ids for all values; TaxonomyError naming the attribute, the uncovered values and the rows."""
        return self.map_values(values).require_all_covered()

    def _map_numeric(self, values) -> ValueMapping:
        arr = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
        arr = arr.reshape(-1)
        codes = uniques = None
        if arr.dtype.kind in "biuf":
            x = arr.astype(float, copy=False)
        else:
            codes, uniques = _factorize(arr)
            as_float = np.array([_to_float(u) for u in uniques], dtype=float)
            x = as_float[codes] if len(codes) else np.empty(0)
        los, his, ids = self._sorted_leaf_intervals
        leaf_ids = np.empty(len(x), dtype=np.int64)
        covered = np.empty(len(x), dtype=bool)
        chunk = 1 << 16  # cache-sized blocks
        for start in range(0, len(x), chunk):
            xs = x[start : start + chunk]
            pos = np.searchsorted(los, xs, side="right") - 1
            safe = np.maximum(pos, 0)
            ok = (pos >= 0) & (xs < his[safe])  # False for NaN and beyond the root's hi
            covered[start : start + chunk] = ok
            leaf_ids[start : start + chunk] = np.where(ok, ids[safe], -1)
        if covered.all():
            return ValueMapping(leaf_ids, (), self.attribute)
        bad = ~covered
        if codes is None:  # numbers: report them as numbers, missing (NaN) as None
            xb = x[bad]
            nan = np.isnan(xb)
            u, c = np.unique(xb[~nan], return_counts=True)
            order = np.argsort(-c, kind="stable")
            out = list(zip(u[order].tolist(), c[order].tolist()))
            if nan.any():
                out.append((None, int(nan.sum())))
                out.sort(key=lambda t: -t[1])
            return ValueMapping(leaf_ids, tuple(out), self.attribute)
        assert uniques is not None
        per_unique = np.zeros(len(uniques), dtype=np.int64)
        per_unique[np.unique(codes[bad])] = -1
        return ValueMapping(leaf_ids, self._uncovered(codes, uniques, per_unique), self.attribute)

    @staticmethod
    def _uncovered(codes, uniques, per_unique) -> tuple[tuple[Any, int], ...]:
        """Uncovered distinct values (stripped text; None for missing) with their row counts, most first."""
        bad_unique = per_unique < 0
        if not bad_unique.any():
            return ()
        counts = np.bincount(codes, minlength=len(uniques))
        merged: dict[Any, int] = {}
        for u in np.flatnonzero(bad_unique & (counts > 0)):
            k = _value_key(uniques[u])
            merged[k] = merged.get(k, 0) + int(counts[u])
        return tuple(sorted(merged.items(), key=lambda t: (-t[1], str(t[0]))))

    @classmethod
    def from_parents(
        cls,
        labels: Sequence[str],
        parents: Iterable[int],
        attribute: str = "",
        lo: Sequence[float] | None = None,
        hi: Sequence[float] | None = None,
    ) -> Taxonomy:
        """Build from parallel lists (any order; exactly one root with parent -1)."""
        parents = list(parents)
        nodes = [Node(str(lab)) for lab in labels]
        if lo is not None and hi is not None:
            for n, a, b in zip(nodes, lo, hi):
                n.lo, n.hi = float(a), float(b)
        roots = [i for i, p in enumerate(parents) if p < 0]
        if len(roots) != 1:
            raise TaxonomyError(f"a taxonomy needs exactly one root, found {len(roots)}")
        for i in range(len(parents)):
            walk, j = [], i
            while j >= 0 and j not in walk:
                walk.append(j)
                j = parents[j]
            if j >= 0:
                names = " -> ".join(repr(str(labels[k])) for k in walk[walk.index(j) :] + [j])
                raise TaxonomyError(f"cycle in the parent links: {names}")
        for i, p in enumerate(parents):
            if p >= 0:
                nodes[p].children.append(nodes[i])
        return cls(nodes[roots[0]], attribute)
