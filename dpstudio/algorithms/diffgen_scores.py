"""Scores of candidate specializations (ALGORITHMS.md 3), vectorised with bincount. Numpy only.

- Max: sum over the children of the largest class count. Sensitivity Du = 1 (adding or removing one
  record changes one class count of one child by 1), and monotone (adding a record never lowers it).
- InfoGain: H(class | parent) - H(class | child), in bits, weighted by record shares, so it lies in
  [0, log2 |classes|]; DiffGen uses Du = log2 |classes|. Not monotone.

With ``scope="partition"`` (the default) a candidate's score sums these quantities over the partitions
that hold it (what a decision tree sees); with ``scope="pooled"`` the records generalized to the candidate
are pooled over partitions (the DiffGen paper's D_v). Both have the same sensitivity: a record lies in one
partition and one child.
"""

from __future__ import annotations

import math

import numpy as np

MAX = "max"
INFOGAIN = "infogain"
SCORES = (MAX, INFOGAIN)

#: dense bincount tables up to this many cells; beyond it, np.unique groups the keys.
DENSE_LIMIT = 1 << 23


def sensitivity(score: str, n_classes: int) -> float:
    """Du of the score: 1 for Max, log2 |classes| for InfoGain."""
    if score == MAX:
        return 1.0
    if score == INFOGAIN:
        return math.log2(max(int(n_classes), 2))
    raise ValueError(f"unknown score {score!r} (choose max or infogain)")


def is_monotone(score: str) -> bool:
    return score == MAX


def xlog2x(a) -> np.ndarray:
    a = np.asarray(a, dtype=float)
    out = np.zeros_like(a)
    pos = a > 0
    out[pos] = a[pos] * np.log2(a[pos])
    return out


def _impurity(counts: np.ndarray) -> np.ndarray:
    """N * H(class) in bits for each row of a (groups x classes) count table."""
    return xlog2x(counts.sum(axis=-1)) - xlog2x(counts).sum(axis=-1)


def count_keys(keys: np.ndarray, minlength: int, weights: np.ndarray | None = None) -> np.ndarray:
    """``np.bincount`` of record keys as whole numbers; ``weights``: records per row (None: one each)."""
    if weights is None:
        return np.bincount(keys, minlength=minlength)
    return np.bincount(keys, weights=weights, minlength=minlength).astype(np.int64)


def group_class_counts(
    child: np.ndarray,
    part: np.ndarray,
    y: np.ndarray,
    n_child: int,
    n_part: int,
    n_classes: int,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class counts of the non-empty (child, partition) groups of the given records.

    Returns (group_child, group_part, counts[groups, classes]).
    """
    key = child.astype(np.int64) * n_part + part
    size = n_child * n_part
    if size * n_classes <= DENSE_LIMIT:
        table = count_keys(key * n_classes + y, size * n_classes, weights).reshape(size, n_classes)
        nz = np.flatnonzero(table.any(axis=1))
        gkey, counts = nz, table[nz]
    else:
        gkey, inv = np.unique(key, return_inverse=True)
        counts = count_keys(inv.reshape(-1) * n_classes + y, gkey.size * n_classes, weights).reshape(-1, n_classes)
    return gkey // n_part, gkey % n_part, counts


def candidate_scores(
    score: str,
    child: np.ndarray,
    part: np.ndarray,
    y: np.ndarray,
    cand_of_child: np.ndarray,
    n_cand: int,
    n_part: int,
    n_classes: int,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """Score of every candidate from records' child codes (child >= 0 only) and partition codes.

    ``cand_of_child[c]`` is the candidate a child code belongs to; ``weights``: records per row.
    """
    n_child = cand_of_child.size
    gchild, gpart, counts = group_class_counts(child, part, y, n_child, n_part, n_classes, weights)
    gcand = cand_of_child[gchild]
    if score == MAX:
        return np.bincount(gcand, weights=counts.max(axis=1), minlength=n_cand).astype(float)
    # InfoGain: (sum_p N_pv H_pv - sum_{p,c} N_pc H_pc) / N_v
    child_term = np.bincount(gcand, weights=_impurity(counts), minlength=n_cand)
    pkey = gcand.astype(np.int64) * n_part + gpart
    ukey, inv = np.unique(pkey, return_inverse=True)
    pcounts = np.zeros((ukey.size, n_classes))
    np.add.at(pcounts, inv.reshape(-1), counts)
    parent_term = np.bincount(ukey // n_part, weights=_impurity(pcounts), minlength=n_cand)
    n_v = np.bincount(gcand, weights=counts.sum(axis=1), minlength=n_cand)
    with np.errstate(invalid="ignore", divide="ignore"):
        gain = np.where(n_v > 0, (parent_term - child_term) / np.maximum(n_v, 1), 0.0)
    return np.clip(gain, 0.0, None)


def candidate_scores_all(
    score: str,
    child: np.ndarray,
    pcy: np.ndarray,
    cand_of_child: np.ndarray,
    n_cand: int,
    n_part: int,
    n_classes: int,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """``candidate_scores`` for ALL records at once: ``child`` in 0..C, where C (= cand_of_child.size)
    marks records under no candidate; ``pcy`` = partition * n_classes + class. No boolean masking: one
    dense bincount when the table fits, else the grouped path on the records that count."""
    C = cand_of_child.size
    block = n_part * n_classes
    if (C + 1) * block > DENSE_LIMIT:
        keep = child < C
        sel = pcy[keep]
        return candidate_scores(
            score,
            child[keep],
            sel // n_classes,
            sel % n_classes,
            cand_of_child,
            n_cand,
            n_part,
            n_classes,
            None if weights is None else weights[keep],
        )
    table = count_keys(child * block + pcy, (C + 1) * block, weights)[: C * block]
    table = table.reshape(C, n_part, n_classes)
    if score == MAX:
        return np.bincount(cand_of_child, weights=table.max(axis=2).sum(axis=1), minlength=n_cand).astype(float)
    child_term = np.bincount(cand_of_child, weights=_impurity(table).sum(axis=1), minlength=n_cand)
    ptable = np.zeros((n_cand, n_part, n_classes))
    np.add.at(ptable, cand_of_child, table)
    parent_term = _impurity(ptable).sum(axis=1)
    n_v = ptable.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        gain = np.where(n_v > 0, (parent_term - child_term) / np.maximum(n_v, 1), 0.0)
    return np.clip(gain, 0.0, None)


def split_scores(score: str, value_counts: np.ndarray) -> np.ndarray:
    """Scores of the m + 1 ways to cut m sorted distinct values (rows of ``value_counts``) in two.

    Cut j sends the first j distinct values left (j = 0: all right; j = m: all left). Pooled over
    the records of the interval (DiffGen's split point is one number for all partitions).
    """
    vc = np.asarray(value_counts, dtype=float).reshape(-1, value_counts.shape[-1])
    left = np.vstack([np.zeros((1, vc.shape[1])), np.cumsum(vc, axis=0)])
    total = left[-1]
    right = total[None, :] - left
    if score == MAX:
        return left.max(axis=1) + right.max(axis=1)
    n = total.sum()
    if n == 0:
        return np.zeros(left.shape[0])
    gain = (_impurity(total[None, :])[0] - _impurity(left) - _impurity(right)) / n
    return np.clip(gain, 0.0, None)


def grid_split_terms(
    score: str, cum: np.ndarray, blo: np.ndarray, bhi: np.ndarray, cut: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Additive terms over partitions of splitting bin ranges [blo, bhi) after bin ``cut``.

    ``cum[p, b, k]`` = records of partition p, class k in bins < b. Returns (numerator, records): the
    score is numerator (Max) or numerator / records (InfoGain), so chunks of partitions can be summed.
    """
    left = cum[:, cut + 1, :] - cum[:, blo, :]
    right = cum[:, bhi, :] - cum[:, cut + 1, :]
    parent = left + right
    n_v = parent.sum(axis=(0, 2))
    if score == MAX:
        return (left.max(axis=2) + right.max(axis=2)).sum(axis=0), n_v
    return (_impurity(parent) - _impurity(left) - _impurity(right)).sum(axis=0), n_v


def grid_split_scores(score: str, cum: np.ndarray, blo: np.ndarray, bhi: np.ndarray, cut: np.ndarray) -> np.ndarray:
    """Scores of splitting bin ranges [blo, bhi) after bin ``cut`` (left = bins blo..cut), per partition."""
    num, n_v = grid_split_terms(score, cum, blo, bhi, cut)
    return finish_grid_scores(score, num, n_v)


def finish_grid_scores(score: str, num: np.ndarray, n_v: np.ndarray) -> np.ndarray:
    if score == MAX:
        return num
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(np.where(n_v > 0, num / np.maximum(n_v, 1), 0.0), 0.0, None)
