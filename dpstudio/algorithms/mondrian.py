"""Mondrian multidimensional k-anonymity, strict and relaxed (LeFevre et al. ICDE'06; SYNTACTIC.md K8.2).

Greedy median partitioning with the spec's fixed tie-breaks, so the output is exact and reproducible:
dimensions by normalised width of the partition, descending (ties: QI order); strict cuts at the lower
median (t.a <= sv left); relaxed sorts by (value, original row index) and puts the first floor(|P|/2) rows
left. A cut is allowable when both sides have >= k rows. Not differentially private: the classes are a
deterministic function of the data (removing one record can change them), and no budget is spent.
Categorical attributes enter as ranks (the depth-first order of their hierarchy, see ``io.anonymize``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.events import Event, RunFinished
from ..core.syntactic_models import TCloseness, class_failures

STRICT, RELAXED = "strict", "relaxed"


@dataclass(frozen=True)
class PartitionCut(Event):
    """A partition of ``size`` rows was cut on dimension ``dim`` into ``left`` and ``size - left`` rows."""

    size: int
    dim: int
    left: int


@dataclass
class MondrianResult:
    """``class_of[i]``: the class of row i (classes in partition order, left before right); ``lo``/``hi``:
    classes x q ranges of each class's values; ``sizes``: rows per class."""

    mode: str
    k: int
    class_of: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    sizes: np.ndarray

    @property
    def classes(self) -> int:
        return len(self.sizes)


def allowed_cut(k: int, models, extras: dict, n: int):
    """allowed(left_rows, right_rows): both sides have >= k rows and satisfy every model."""
    q = {
        m.attribute: np.bincount(extras[m.attribute][0], minlength=extras[m.attribute][1]) / n
        for m in models
        if isinstance(m, TCloseness)
    }

    def allowed(left, right) -> bool:
        if len(left) < k or len(right) < k:
            return False
        if not models:
            return True
        hists = {
            m.attribute: np.stack(
                [np.bincount(extras[m.attribute][0][side], minlength=extras[m.attribute][1]) for side in (left, right)]
            )
            for m in models
        }
        return not class_failures(np.array([len(left), len(right)]), k, hists, models, q).any()

    return allowed


def run_mondrian(x, k: int, mode: str = STRICT, models=(), extras: dict | None = None):
    """Partition the rows of ``x`` (n x q numbers: values or ranks) into classes of >= k rows (if n >= k).
    ``models``: l-diversity / t-closeness models (core.syntactic_models) a cut must also keep on both sides
    (LeFevre et al.: a cut is allowable when both halves satisfy the model); ``extras``: attribute ->
    (codes per row, domain size) of their sensitive attributes. The whole table is one class when it fails
    a model itself. Yields PartitionCut per cut and RunFinished(MondrianResult)."""
    if mode not in (STRICT, RELAXED):
        raise ValueError(f"unknown Mondrian mode {mode!r}: use strict or relaxed")
    allowed = allowed_cut(k, models, extras or {}, len(x))
    x = np.asarray(x, dtype=float)
    n, q = x.shape
    cols = [np.ascontiguousarray(x[:, j]) for j in range(q)]
    span = x.max(axis=0) - x.min(axis=0) if n else np.zeros(q)
    scale = np.where(span > 0, span, 1.0)
    classes: list[np.ndarray] = []
    stack = [np.arange(n)]
    while stack:
        idx = stack.pop()
        vals = [c[idx] for c in cols]
        lo = np.array([v.min() for v in vals]) if len(idx) else np.zeros(q)
        hi = np.array([v.max() for v in vals]) if len(idx) else np.zeros(q)
        width = (hi - lo) / scale
        cut = None
        if len(idx) >= 2 * k:
            for d in np.argsort(-width, kind="stable"):
                if width[d] == 0:
                    break
                v = vals[d]
                if mode == STRICT:
                    sv = np.partition(v, (len(v) - 1) // 2)[(len(v) - 1) // 2]
                    left = v <= sv
                    if allowed(idx[left], idx[~left]):
                        cut = (d, idx[left], idx[~left])
                        break
                else:
                    order = np.lexsort((idx, v))
                    half = len(v) // 2
                    if allowed(idx[order[:half]], idx[order[half:]]):
                        cut = (d, idx[order[:half]], idx[order[half:]])
                        break
        if cut is None:
            classes.append(idx)
            continue
        d, lhs, rhs = cut
        yield PartitionCut(len(idx), int(d), len(lhs))
        stack.append(rhs)
        stack.append(lhs)
    class_of = np.empty(n, dtype=np.int64)
    sizes = np.empty(len(classes), dtype=np.int64)
    lo = np.empty((len(classes), q))
    hi = np.empty((len(classes), q))
    for c, idx in enumerate(classes):
        class_of[idx] = c
        sizes[c] = len(idx)
        sub = x[idx]
        lo[c] = sub.min(axis=0) if len(idx) else 0
        hi[c] = sub.max(axis=0) if len(idx) else 0
    yield RunFinished(MondrianResult(mode, k, class_of, lo, hi, sizes))
