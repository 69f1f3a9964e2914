"""Coded input and frequency sets of the full-domain (lattice) searches (SYNTACTIC.md K1, K7 rollup).

A ``Microdata`` holds the quasi-identifiers as level-0 codes of their ``LevelHierarchy`` and the extra
attributes (sensitive attributes, the class attribute) as plain codes. A ``FrequencySet`` groups rows by
(QI codes at some levels, extra codes) with counts; rolling it up to a more general node only regroups its
rows (the rollup property), so evaluating a node costs the size of its specialization's frequency set, not n.
Not differentially private: everything here is an exact function of the data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.generalization import LevelHierarchy


@dataclass
class Microdata:
    """``codes``: n x q level-0 codes of the QIs; ``extras``: name -> (codes (n,), domain size)."""

    hierarchies: list[LevelHierarchy]
    codes: np.ndarray
    extras: dict[str, tuple[np.ndarray, int]] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.codes.shape[0])

    @property
    def heights(self) -> tuple[int, ...]:
        return tuple(h.height for h in self.hierarchies)

    @property
    def names(self) -> list[str]:
        return [h.attribute for h in self.hierarchies]

    def level_map(self, j: int, a: int, b: int) -> np.ndarray:
        """Level-a codes of attribute j -> its level-b codes (a <= b)."""
        cache = self.__dict__.setdefault("_maps", {})
        key = (j, a, b)
        if key not in cache:
            h = self.hierarchies[j]
            m = np.zeros(h.size(a), dtype=np.int32)
            m[h.gen[a]] = h.gen[b]
            cache[key] = m
        return cache[key]


@dataclass
class FrequencySet:
    """Rows grouped by QI codes (``qi``: len(attrs) x m, at ``levels``) and extra codes (``extra``: e x m),
    sorted so that the rows of one equivalence class are contiguous. ``attrs``: QI indices held; ``qkey``:
    a number per row equal for rows of one class (None when the key would not fit in 64 bits)."""

    attrs: tuple[int, ...]
    levels: tuple[int, ...]
    qi: np.ndarray
    extra: np.ndarray
    counts: np.ndarray
    qkey: np.ndarray | None
    extra_sizes: tuple[int, ...] = ()

    def class_starts(self) -> np.ndarray:
        """Index of the first row of every equivalence class."""
        m = len(self.counts)
        if m == 0:
            return np.zeros(0, dtype=np.int64)
        if self.qkey is not None:
            change = self.qkey[1:] != self.qkey[:-1]
        elif self.qi.shape[0] == 0:
            return np.zeros(1, dtype=np.int64)
        else:
            change = np.any(self.qi[:, 1:] != self.qi[:, :-1], axis=0)
        return np.concatenate([[0], np.flatnonzero(change) + 1])


def _group(
    qi: np.ndarray, extra: np.ndarray, counts: np.ndarray, qsizes: list[int], esizes
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Regroup rows (columns ``qi``, ``extra``, each attribute a row of the 2-d arrays) by all their codes,
    sorted by the QI codes first. Returns (qi, extra, counts, qkey)."""
    cols = list(qi) + list(extra)
    if not cols:
        return qi[:, :1], extra[:, :1], np.array([counts.sum()], dtype=np.int64), None
    sizes = [max(int(s), 1) for s in list(qsizes) + list(esizes)]
    erad = 1
    for s in esizes:
        erad *= max(int(s), 1)
    total = 1
    for s in sizes:
        total *= s
    if total < 2**62:
        key = cols[0].astype(np.int64, copy=True)
        for c, s in zip(cols[1:], sizes[1:]):
            key *= s
            key += c
        order = np.argsort(key, kind="stable")  # timsort: rolled-up keys are mostly sorted runs
        sk = key[order]
        starts = np.flatnonzero(np.concatenate([[True], sk[1:] != sk[:-1]]))
        first = order[starts]
        new_counts = np.add.reduceat(counts[order], starts)
        qkey = sk[starts] // erad if erad > 1 else sk[starts]
    else:
        stacked = np.stack(cols, axis=1)
        uniq, first, inv = np.unique(stacked, axis=0, return_index=True, return_inverse=True)
        new_counts = np.bincount(inv.reshape(-1), weights=counts, minlength=len(uniq)).astype(np.int64)
        qkey = None
    return qi[:, first], extra[:, first], new_counts, qkey


def bottom(data: Microdata, attrs=None, extras=()) -> FrequencySet:
    """The frequency set of the QI attributes ``attrs`` (default all) at level 0, with ``extras`` columns."""
    attrs = tuple(range(len(data.hierarchies))) if attrs is None else tuple(attrs)
    qi = np.ascontiguousarray(data.codes[:, list(attrs)].T.astype(np.int32))
    ex = (
        np.stack([data.extras[e][0] for e in extras], axis=0).astype(np.int32)
        if extras
        else np.zeros((0, data.n), dtype=np.int32)
    )
    esizes = tuple(data.extras[e][1] for e in extras)
    g = _group(qi, ex, np.ones(data.n, dtype=np.int64), [data.hierarchies[j].size(0) for j in attrs], esizes)
    return FrequencySet(attrs, (0,) * len(attrs), *g, esizes)


def rollup(data: Microdata, fs: FrequencySet, levels) -> FrequencySet:
    """``fs`` generalized to ``levels`` (each >= fs's level of the same attribute): the rollup property."""
    levels = tuple(int(x) for x in levels)
    qi = fs.qi.copy()
    for pos, (j, a, b) in enumerate(zip(fs.attrs, fs.levels, levels)):
        if b < a:
            raise ValueError("rollup goes up the lattice only")
        if b != a:
            qi[pos] = data.level_map(j, a, b)[qi[pos]]
    g = _group(qi, fs.extra, fs.counts, [data.hierarchies[j].size(b) for j, b in zip(fs.attrs, levels)], fs.extra_sizes)
    return FrequencySet(fs.attrs, levels, *g, fs.extra_sizes)


def project(data: Microdata, fs: FrequencySet, attrs) -> FrequencySet:
    """``fs`` restricted to the QI attributes ``attrs`` (a subset of ``fs.attrs``, in that order)."""
    pos = [fs.attrs.index(j) for j in attrs]
    g = _group(
        fs.qi[pos],
        fs.extra,
        fs.counts,
        [data.hierarchies[j].size(fs.levels[p]) for j, p in zip(attrs, pos)],
        fs.extra_sizes,
    )
    return FrequencySet(tuple(attrs), tuple(fs.levels[p] for p in pos), *g, fs.extra_sizes)
