"""Utility metrics of a syntactic anonymization (SYNTACTIC.md K5). Lower is better for every one of them.

Inputs are equivalence classes: ``sizes`` (rows per class), ``suppressed`` (True where the class is removed),
``labels`` (classes x c counts of a class attribute, for the classification metrics). These are exact
functions of the data: they describe an output that carries no differential-privacy guarantee.
"""

from __future__ import annotations

import numpy as np

METRICS = ("entropy", "dm", "dm-star", "cm", "avg", "loss")


def discernibility(sizes, suppressed) -> int:
    """C_DM (Bayardo-Agrawal; ARX MetricDM): sum |E|^2 over kept classes + n |E| over suppressed ones."""
    sizes = np.asarray(sizes, dtype=np.int64)
    sup = np.asarray(suppressed, dtype=bool)
    n = int(sizes.sum())
    return int((sizes[~sup] ** 2).sum() + n * sizes[sup].sum())


def discernibility_star(sizes) -> int:
    """DM* (ARX's monotonic discernibility): sum |E|^2 over all classes, suppressed ones included."""
    sizes = np.asarray(sizes, dtype=np.int64)
    return int((sizes**2).sum())


def minority(labels, tie: str = "one-majority") -> np.ndarray:
    """Rows per class whose class label is not the majority: |E| - max count (``tie="one-majority"``), or
    all of |E| when the top two counts tie (``tie="arx"``, ARX MetricSDClassification)."""
    lab = np.asarray(labels, dtype=np.int64)
    size = lab.sum(axis=1)
    top = lab.max(axis=1) if lab.shape[1] else np.zeros(len(lab), dtype=np.int64)
    out = size - top
    if tie == "arx":
        if lab.shape[1] >= 2:
            two = -np.partition(-lab, 1, axis=1)[:, :2]
            out = np.where(two[:, 0] == two[:, 1], size, out)
    elif tie != "one-majority":
        raise ValueError(f"unknown tie rule {tie!r}: use one-majority or arx")
    return out


def classification(labels, suppressed, tie: str = "one-majority") -> int:
    """C_CM (Bayardo-Agrawal, formula 10 with |E| >= k): minority rows of kept classes + every suppressed row."""
    lab = np.asarray(labels, dtype=np.int64)
    sup = np.asarray(suppressed, dtype=bool)
    return int(minority(lab, tie)[~sup].sum() + lab[sup].sum())


def iyengar_cm(labels, suppressed) -> float:
    """Iyengar's CM: the share of rows that are suppressed or not of their class's majority label."""
    lab = np.asarray(labels, dtype=np.int64)
    n = int(lab.sum())
    return classification(lab, suppressed) / n if n else 0.0


def average_class_size(n_rows: float, n_classes: int, k: int) -> float:
    """C_AVG (Mondrian paper): (rows / classes) / k, over the released (kept) rows and classes."""
    return (n_rows / n_classes) / k if n_classes else 0.0


def entropy_terms(counts: np.ndarray, gen: np.ndarray, size: int) -> float:
    """Non-uniform entropy of one attribute at one level (ARX MetricEntropy):
    sum_v cnt(v) log2(cnt(gen(v)) / cnt(v)) over the level-0 values v, on the whole input."""
    counts = np.asarray(counts, dtype=float)
    up = np.bincount(gen, weights=counts, minlength=size)
    present = counts > 0
    return float((counts[present] * np.log2(up[gen[present]] / counts[present])).sum())


def loss(leaves_under_per_attr, domain_leaves, suppressed_rows: int, n: int) -> float:
    """Generalization loss: the mean over released QI cells of (leaves covered - 1) / (leaves - 1), a
    suppressed row's cells counting 1 each. ``leaves_under_per_attr``: per attribute, the leaves covered by
    each kept row's generalized value (arrays of equal length)."""
    if n == 0 or not len(domain_leaves):
        return 0.0
    total = float(suppressed_rows) * len(domain_leaves)
    for covered, leaves in zip(leaves_under_per_attr, domain_leaves):
        if leaves > 1:
            total += float(((np.asarray(covered, dtype=float) - 1) / (leaves - 1)).sum())
    return total / (n * len(domain_leaves))
