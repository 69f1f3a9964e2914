"""Side by side: the last anonymization and the project's last DP run on the same data (issue 13).

Figures for both outputs: number of equivalence classes, C_DM and C_AVG (``core.syntactic_metrics``).

- Anonymization: exact figures of a syntactic output (not differentially private; ``io.anonymize.LABEL``):
  its kept class sizes and its suppressed rows.
- DP release: its released partitions (one per leaf, over all class values) are the classes, and their sizes
  are the NOISY counts summed over class values, each clamped at 0 (post-processing: no budget is spent).
  True counts of the partitions are never read, in either mode. A partition whose noisy size is 0 counts as
  an empty class and is left out; nothing is suppressed. C_AVG uses the anonymization's k for both, so the
  two figures are on the same scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import syntactic_metrics as sm

DP_NOTE = "DP figures come from the release's noisy counts (clamped at 0), never from true counts."


@dataclass(frozen=True)
class OutputFigures:
    """One output's figures. ``rows``: rows the classes hold (noisy for the DP release)."""

    name: str
    classes: int
    rows: float
    c_dm: float
    c_avg: float
    from_noisy_counts: bool


def anonymization_figures(outcome) -> OutputFigures:
    """C_DM over kept classes plus n x |E| for suppressed rows (n = kept + suppressed); C_AVG over kept."""
    sizes = np.asarray(outcome.sizes, dtype=np.int64)
    sup = int(outcome.suppressed)
    all_sizes = np.append(sizes, sup) if sup else sizes
    flags = np.zeros(len(all_sizes), dtype=bool)
    if sup:
        flags[-1] = True
    c_dm = sm.discernibility(all_sizes, flags)
    c_avg = sm.average_class_size(int(sizes.sum()), len(sizes), int(outcome.settings.k))
    return OutputFigures("anonymization", len(sizes), float(sizes.sum()), float(c_dm), c_avg, False)


def dp_partition_sizes(result) -> np.ndarray:
    """Noisy size of every released partition: the release's counts (partitions x class values), each
    clamped at 0, summed over class values. Reads ``result.counts`` only (the released, noisy values)."""
    counts = np.asarray(result.counts, dtype=float).reshape(int(result.leaf_values.shape[0]), len(result.classes))
    return np.clip(counts, 0, None).sum(axis=1)


def dp_figures(result, k: int) -> OutputFigures:
    """The DP release's figures from its noisy partition sizes (see the module doc); ``k``: the
    anonymization's k, for C_AVG."""
    sizes = dp_partition_sizes(result)
    sizes = sizes[sizes > 0]
    c_dm = float((sizes ** 2).sum())
    c_avg = sm.average_class_size(float(sizes.sum()), len(sizes), int(k))
    return OutputFigures("DP release", len(sizes), float(sizes.sum()), c_dm, c_avg, True)


def side_by_side(outcome, result) -> tuple[OutputFigures, OutputFigures]:
    """(anonymization figures, DP release figures) for the two outputs."""
    return anonymization_figures(outcome), dp_figures(result, outcome.settings.k)


def dp_accuracy(result, test, class_column: str, numeric=()) -> float:
    """Accuracy on ``test`` of the tree trained on the DP release's noisy counts (as the Compare panel does,
    ``model.comparison.classification_scores`` in release mode: no training rows read)."""
    from .comparison import classification_scores

    return classification_scores(result, test, class_column, numeric).release
