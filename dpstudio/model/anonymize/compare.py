"""Side by side: the last anonymization and the project's last DP run on the same data (issue 13).

Figures for both outputs, with one definition each (the same words Compare and Export use):

- cells: every combination of generalized values, empty ones included (the DP release's leaf partitions,
  as Compare and Export count them; for a full-domain anonymization the product of the number of labels at
  each quasi-identifier's level; Mondrian has no single recoding, so its cells are its partitions);
- classes: the non-empty cells (the DP release's: noisy size above 0);
- C_DM and C_AVG (``core.syntactic_metrics``).

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

from dpstudio.core import syntactic_metrics as sm

DP_NOTE = "DP figures come from the release's noisy counts (clamped at 0), never from true counts."


@dataclass(frozen=True)
class OutputFigures:
    """One output's figures. ``rows``: rows the classes hold (noisy for the DP release)."""

    name: str
    cells: int
    classes: int
    rows: float
    c_dm: float
    c_avg: float
    from_noisy_counts: bool


def anonymization_cells(outcome, taxonomies) -> int:
    """Cells of the anonymization's generalized domain: the product over quasi-identifiers of the labels at
    the run's level (public: the taxonomies and the levels); a Mondrian run's partitions."""
    if outcome.levels is None:
        return len(outcome.sizes)
    from dpstudio.core.generalization import LevelHierarchy

    cells = 1
    for name, lv in zip(outcome.settings.qi, outcome.levels):
        cells *= LevelHierarchy.from_taxonomy(taxonomies[name]).size(lv)
    return cells


def anonymization_figures(outcome, taxonomies=None) -> OutputFigures:
    """C_DM over kept classes plus n x |E| for suppressed rows (n = kept + suppressed); C_AVG over kept.
    ``taxonomies`` (the run's) give the cells; without them the cells are the classes."""
    sizes = np.asarray(outcome.sizes, dtype=np.int64)
    sup = int(outcome.suppressed)
    all_sizes = np.append(sizes, sup) if sup else sizes
    flags = np.zeros(len(all_sizes), dtype=bool)
    if sup:
        flags[-1] = True
    c_dm = sm.discernibility(all_sizes, flags)
    c_avg = sm.average_class_size(int(sizes.sum()), len(sizes), int(outcome.settings.k))
    cells = len(sizes) if taxonomies is None else anonymization_cells(outcome, taxonomies)
    return OutputFigures("anonymization", cells, len(sizes), float(sizes.sum()), float(c_dm), c_avg, False)


def dp_partition_sizes(result) -> np.ndarray:
    """Noisy size of every released partition: the release's counts (partitions x class values), each
    clamped at 0, summed over class values. Reads ``result.counts`` only (the released, noisy values)."""
    counts = np.asarray(result.counts, dtype=float).reshape(int(result.leaf_values.shape[0]), len(result.classes))
    return np.clip(counts, 0, None).sum(axis=1)


def dp_figures(result, k: int) -> OutputFigures:
    """The DP release's figures from its noisy partition sizes (see the module doc); ``k``: the
    anonymization's k, for C_AVG."""
    sizes = dp_partition_sizes(result)
    cells = len(sizes)
    sizes = sizes[sizes > 0]
    c_dm = float((sizes**2).sum())
    c_avg = sm.average_class_size(float(sizes.sum()), len(sizes), int(k))
    return OutputFigures("DP release", cells, len(sizes), float(sizes.sum()), c_dm, c_avg, True)


def side_by_side(outcome, result, taxonomies=None) -> tuple[OutputFigures, OutputFigures]:
    """(anonymization figures, DP release figures) for the two outputs."""
    return anonymization_figures(outcome, taxonomies), dp_figures(result, outcome.settings.k)


def dp_accuracy(result, test, class_column: str, numeric=()) -> float:
    """Accuracy on ``test`` of the tree trained on the DP release's noisy counts (as the Compare panel does,
    ``model.comparison.classification_scores`` in release mode: no training rows read)."""
    from dpstudio.model.compare.comparison import classification_scores

    return classification_scores(result, test, class_column, numeric).release


def anonymization_accuracy(outcome, taxonomies, test, class_column: str, train_labels=None) -> float:
    """Accuracy on ``test`` of the same entropy tree trained on the anonymized table (one row each): the
    quasi-identifiers at the run's levels (one-hot over the level's labels), the test records generalized to
    the same levels by the same taxonomies. Full-domain runs only (Mondrian recodes each class on its own);
    the class labels are the anonymized table's ``class_column`` or, when the run did not keep it,
    ``train_labels`` (one per released row, in the table's order: ``kept_class_labels``). Evaluation of a
    syntactic output: no budget, no DP guarantee."""
    import pandas as pd

    from dpstudio.evaluation.classification import Encoder, entropy_tree
    from dpstudio.io.anonymize import AnonymizeError, encode

    if outcome.levels is None:
        raise AnonymizeError("classification accuracy needs a full-domain run (Mondrian has no single recoding)")
    if train_labels is None:
        if class_column not in outcome.table.columns:
            raise AnonymizeError(f"the anonymized table has no column {class_column!r}")
        train_labels = outcome.table[class_column]
    train_labels = np.asarray(train_labels, dtype=str)
    if len(train_labels) != len(outcome.table):
        raise AnonymizeError("one class label per released row is needed")
    qi = list(outcome.settings.qi)
    data, _ = encode(test, qi, taxonomies)
    gen = {}
    cats = {}
    for j, (name, lv) in enumerate(zip(qi, outcome.levels)):
        h = data.hierarchies[j]
        labels = np.asarray(h.labels[lv], dtype=object)
        gen[name] = labels[h.gen[lv][data.codes[:, j]]]
        cats[name] = [str(v) for v in labels]
    enc = Encoder(qi, set(), cats)
    train = outcome.table
    if not len(train):
        raise AnonymizeError("every row was suppressed: nothing to train on")
    tree = entropy_tree().fit(enc.transform(train), train_labels)
    pred = tree.predict(enc.transform(pd.DataFrame(gen)))
    return float((pred == test[class_column].astype(str).to_numpy()).mean())


def kept_class_labels(frame, outcome, class_column: str, missing: str = "drop") -> np.ndarray:
    """The class label of every released row of ``outcome`` (its input prepared as the run prepared it, then
    its kept rows): the training labels for ``anonymization_accuracy`` when the run did not keep the class."""
    used = frame[outcome.settings.used()]
    rows = ~used.isna().any(axis=1).to_numpy() if missing == "drop" else np.ones(len(frame), dtype=bool)
    labels = frame[class_column].astype(str).to_numpy()[rows]
    return labels if outcome.kept is None else labels[np.asarray(outcome.kept, dtype=bool)]
