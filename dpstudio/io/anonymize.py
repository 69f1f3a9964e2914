"""Syntactic anonymization of a pandas table (SYNTACTIC.md): coding the table for the lattice searches and
Mondrian, building the anonymized table, and writing it with its JSON sidecar.

None of this is a differential-privacy release. Every output says so: the CSV's first column
``not_a_dp_release`` holds ``LABEL`` on every row and the sidecar carries it as ``label``. The outputs hold
exact counts (classes, suppressed rows), which is what a syntactic anonymization reports; they are not
charged to the budget store. Files are written atomically and never overwrite silently.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..algorithms.fulldomain_data import Microdata
from ..core.generalization import LevelHierarchy
from ..core.syntactic_models import HIERARCHICAL, TCloseness, tree_for_hierarchical
from ..core.taxonomy import Taxonomy, TaxonomyError
from .atomic import atomic_write_many, neutralise_cell

LABEL = "syntactic anonymization: no differential-privacy guarantee"
LABEL_COLUMN = "not_a_dp_release"


class AnonymizeError(ValueError):
    """Bad input for an anonymization; the message is one line."""


def sidecar_path(out) -> Path:
    return Path(out).with_suffix(".json")


def _extra_codes(frame: pd.DataFrame, name: str, tax: Taxonomy | None) -> tuple[np.ndarray, int, list[str]]:
    """Codes of a sensitive or class attribute: its taxonomy's leaves if one is given, else its distinct
    values in ascending order (numbers numerically): the domain ordered t-closeness uses (ARX)."""
    col = frame[name]
    if tax is not None:
        h = LevelHierarchy.from_taxonomy(tax)
        return h.leaf_codes(tax, col.to_numpy(dtype=object)), h.size(0), list(h.labels[0])
    values = col.to_numpy(dtype=object)
    num = pd.to_numeric(col, errors="coerce")
    if num.notna().all():
        uniq, codes = np.unique(num.to_numpy(dtype=float), return_inverse=True)
        labels = [str(int(u)) if float(u).is_integer() else str(u) for u in uniq]
    else:
        uniq, codes = np.unique(values.astype(str), return_inverse=True)
        labels = [str(u) for u in uniq]
    return codes.astype(np.int64), len(labels), labels


def encode(
    frame: pd.DataFrame,
    qi: list[str],
    taxonomies: dict[str, Taxonomy],
    extras: tuple[str, ...] | list[str] = (),
    hierarchical: tuple[str, ...] = (),
) -> tuple[Microdata, dict]:
    """A ``Microdata`` for the lattice searches: every QI needs a taxonomy (AnonymizeError otherwise) that
    covers its values. ``extras``: sensitive / class attributes; those in ``hierarchical`` are coded by their
    taxonomy's leaves. Returns (data, extra labels per name)."""
    hs, codes = [], []
    for name in qi:
        if name not in taxonomies:
            raise AnonymizeError(f"quasi-identifier {name!r} has no taxonomy (give --taxonomy {name}=FILE)")
        tax = taxonomies[name]
        h = LevelHierarchy.from_taxonomy(tax)
        try:
            codes.append(h.leaf_codes(tax, frame[name].to_numpy(dtype=object)))
        except TaxonomyError as exc:
            raise AnonymizeError(str(exc).replace("\n", " ")) from None
        hs.append(h)
    ex, labels = {}, {}
    for name in dict.fromkeys(extras):
        try:
            c, size, lab = _extra_codes(frame, name, taxonomies.get(name) if name in hierarchical else None)
        except TaxonomyError as exc:
            raise AnonymizeError(str(exc).replace("\n", " ")) from None
        ex[name] = (c, size)
        labels[name] = lab
    data = Microdata(hs, np.stack(codes, axis=1) if codes else np.zeros((len(frame), 0), dtype=np.int64), ex)
    return data, labels


def hierarchical_tree(tax: Taxonomy) -> tuple:
    """(parent, level, height) of a sensitive attribute's taxonomy for hierarchical t-closeness."""
    h = LevelHierarchy.from_taxonomy(tax)
    return tree_for_hierarchical(h.labels, h.gen)


def with_tree(model, taxonomies: dict[str, Taxonomy]):
    """A TCloseness model with its taxonomy tree attached when its distance is hierarchical."""
    if isinstance(model, TCloseness) and model.kind == HIERARCHICAL:
        if model.attribute not in taxonomies:
            raise AnonymizeError(
                f"hierarchical t-closeness needs a taxonomy of {model.attribute!r} "
                f"(give --taxonomy {model.attribute}=FILE)"
            )
        return TCloseness(model.kind, model.t, model.attribute, hierarchical_tree(taxonomies[model.attribute]))
    return model


def generalized_table(
    frame: pd.DataFrame, data: Microdata, qi: list[str], levels, keep: np.ndarray, others: list[str]
) -> pd.DataFrame:
    """The full-domain anonymized table: each QI at its level's label, the rows in ``keep`` only, then the
    ``others`` columns unchanged."""
    out = {LABEL_COLUMN: LABEL}
    for j, (name, lv) in enumerate(zip(qi, levels)):
        h = data.hierarchies[j]
        lab = np.asarray(h.labels[lv], dtype=object)
        out[name] = lab[h.gen[lv][data.codes[keep, j]]]
    table = pd.DataFrame(out, index=np.arange(int(keep.sum())))
    for name in others:
        table[name] = frame[name].to_numpy(dtype=object)[keep]
    return table


def kept_rows(data: Microdata, fs, bad: np.ndarray) -> np.ndarray:
    """Boolean per input row: not suppressed at ``fs.levels``, where ``bad`` marks the outlier classes of
    the frequency set ``fs`` (one entry per class, in ``fs.class_starts()`` order)."""
    if not bad.any():
        return np.ones(data.n, dtype=bool)
    starts = fs.class_starts()
    bad_keys = {tuple(int(v) for v in fs.qi[:, s]) for s in starts[bad]}
    rows = np.stack([data.hierarchies[j].gen[lv][data.codes[:, j]] for j, lv in zip(fs.attrs, fs.levels)], axis=1)
    return np.array([tuple(r) not in bad_keys for r in rows.tolist()], dtype=bool)


def mondrian_input(frame: pd.DataFrame, qi: list[str], taxonomies: dict[str, Taxonomy]) -> np.ndarray:
    """n x q numbers for Mondrian: numeric columns as values, categorical ones as the rank of their leaf in
    the taxonomy's depth-first order (siblings contiguous, K8.2). A categorical QI needs a taxonomy."""
    cols = []
    for name in qi:
        tax = taxonomies.get(name)
        if tax is not None and not tax.is_numeric:
            try:
                leaf = tax.map_values_strict(frame[name].to_numpy(dtype=object))
            except TaxonomyError as exc:
                raise AnonymizeError(str(exc).replace("\n", " ")) from None
            cols.append(tax.leaf_rank[leaf].astype(float))
            continue
        num = pd.to_numeric(frame[name], errors="coerce")
        if num.isna().any():
            raise AnonymizeError(
                f"quasi-identifier {name!r} has no taxonomy (give --taxonomy {name}=FILE); "
                f"Mondrian takes a column without one only when it is numeric"
            )
        cols.append(num.to_numpy(dtype=float))
    return np.stack(cols, axis=1) if cols else np.zeros((len(frame), 0))


def mondrian_table(
    frame: pd.DataFrame, qi: list[str], taxonomies: dict[str, Taxonomy], result, others: list[str]
) -> pd.DataFrame:
    """Each row's QI values replaced by its class's range: ``lo-hi`` (or the value), categorical ranks by
    their leaf labels ``first..last``."""
    out = {LABEL_COLUMN: LABEL}
    for j, name in enumerate(qi):
        tax = taxonomies.get(name)
        lo, hi = result.lo[:, j], result.hi[:, j]
        if tax is not None and not tax.is_numeric:
            lab = [tax.labels[int(i)] for i in tax.leaf_order]
            texts = [lab[int(a)] if a == b else f"{lab[int(a)]}..{lab[int(b)]}" for a, b in zip(lo, hi)]
        else:

            def num(v):
                return str(int(v)) if float(v).is_integer() else repr(float(v))

            texts = [num(a) if a == b else f"[{num(a)}-{num(b)}]" for a, b in zip(lo, hi)]
        out[name] = np.asarray(texts, dtype=object)[result.class_of]
    table = pd.DataFrame(out, index=np.arange(len(frame)))
    for name in others:
        table[name] = frame[name].to_numpy(dtype=object)
    return table


def write_outputs(table: pd.DataFrame, sidecar: dict, out, overwrite: bool = False) -> tuple[Path, Path]:
    """Write OUT.csv and OUT.json atomically (both paths checked before either is written)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(list(table.columns))
    for row in table.itertuples(index=False):
        w.writerow([neutralise_cell(v) for v in row])
    side = {"label": LABEL, "not_a_release": True, **sidecar}
    out = Path(out)
    atomic_write_many({out: buf.getvalue(), sidecar_path(out): json.dumps(side, indent=2) + "\n"}, overwrite)
    return out, sidecar_path(out)
