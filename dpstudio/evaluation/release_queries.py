"""Range-count queries over a written DiffGen-family release (CSV + JSON sidecar). Post-processing only.

``release_cells(frame, cut, taxonomies)`` turns the release's rows (one per leaf partition x class: the
released label of every attribute, the class, the count) into the geometry of ``core.range_queries``:
a ``Domain``, the partitions' cell extents and a partitions x classes count matrix. Categorical labels are
taxonomy nodes (from the given taxonomies, or, without them, a two-level tree built from the release's
own cut: root -> released labels -> raw values); numeric labels are the cut's intervals.

``parse_box("age=[20,40);sex=Female", domain)`` reads a query: per attribute a node label or an interval
``[lo,hi)``; attributes not named span their whole domain. Answers pro-rate partly covered cells under the
uniformity assumption (see ``core.range_queries``). Everything here reads released values only: no budget.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..core.range_queries import CategoricalAxis, Domain, NumericAxis
from ..core.taxonomy import Node, Taxonomy


class ReleaseQueryError(ValueError):
    """The release or the query cannot be read (one line)."""


def cut_taxonomy(name: str, leaf_to_label: Mapping[str, str]) -> Taxonomy:
    """root -> released labels -> raw values (a label that is itself its only raw value stays a leaf)."""
    groups: dict[str, list[str]] = {}
    for leaf, label in leaf_to_label.items():
        groups.setdefault(str(label), []).append(str(leaf))
    root = Node("*")
    for label, leaves in groups.items():
        if leaves == [label]:
            root.add(Node(label))
        else:
            root.add(Node(label, [Node(v) for v in leaves]))
    return Taxonomy(root, name, kind="categorical")


def release_cells(
    frame: pd.DataFrame,
    cut: Mapping[str, Mapping],
    taxonomies: Mapping[str, Taxonomy] | None = None,
    class_column: str | None = None,
    count_column: str = "count",
):
    """(domain, cells, counts partitions x classes, classes) from a release table and its cut."""
    taxonomies = dict(taxonomies or {})
    attrs = list(cut)
    missing = [a for a in attrs + [count_column] if a not in frame.columns]
    if missing:
        raise ReleaseQueryError(f"the release has no column(s) {missing}")
    if class_column is None:
        others = [c for c in frame.columns if c not in attrs and c != count_column]
        if len(others) != 1:
            raise ReleaseQueryError(f"cannot tell the class column among {others}: name it")
        class_column = others[0]
    axes: list[CategoricalAxis | NumericAxis] = []
    per_attr: list[list] = []
    for a in attrs:
        spec = cut[a]
        labels = frame[a].astype(str)
        if "intervals" in spec:
            iv = {str(lab): (float(lo), float(hi)) for lo, hi, lab in spec["intervals"]}
            lo = min(v[0] for v in iv.values())
            hi = max(v[1] for v in iv.values())
            unknown = sorted(set(labels) - set(iv))
            if unknown:
                raise ReleaseQueryError(f"{a}: label {unknown[0]!r} is not an interval of the cut")
            axes.append(NumericAxis(lo, hi, name=a))
            per_attr.append([iv[x] for x in labels])
        else:
            tax = taxonomies.get(a) or cut_taxonomy(a, spec["leaf_to_label"])
            ax = CategoricalAxis(tax, a)
            try:
                per_attr.append([ax.resolve(x) for x in labels])
            except KeyError as exc:
                raise ReleaseQueryError(str(exc).strip("\"'")) from None
            axes.append(ax)
    domain = Domain(axes)
    classes = sorted(frame[class_column].astype(str).unique())
    if attrs:
        codes, uniques = pd.factorize(pd.MultiIndex.from_arrays([frame[a].astype(str) for a in attrs]))
    else:
        codes, uniques = pd.factorize(pd.Index([0] * len(frame)))
    counts = np.zeros((len(uniques), len(classes)))
    k = pd.Categorical(frame[class_column].astype(str), categories=classes).codes
    np.add.at(counts, (codes, k), pd.to_numeric(frame[count_column]).to_numpy(dtype=float))
    first = np.zeros(len(uniques), dtype=np.int64)
    first[codes[::-1]] = np.arange(len(codes))[::-1]
    cells = domain.cells([[vals[i] for i in first] for vals in per_attr])
    return domain, cells, counts, classes


_INTERVAL = re.compile(r"^\s*\[\s*([^,\]]+)\s*,\s*([^)\]]+)\s*\)\s*$")


def parse_box(text: str, domain: Domain) -> dict:
    """'age=[20,40);sex=Female' -> {attribute: interval or node label}. Separators ';' between terms."""
    box: dict[str, tuple[float, float] | str] = {}
    for term in filter(None, (t.strip() for t in str(text).split(";"))):
        if "=" not in term:
            raise ReleaseQueryError(f"query term {term!r} must look like attribute=value")
        name, value = (x.strip() for x in term.split("=", 1))
        if name not in domain.names:
            raise ReleaseQueryError(f"unknown attribute {name!r} (attributes: {', '.join(domain.names)})")
        ax = domain.axis(name)
        if ax.is_numeric:
            m = _INTERVAL.match(value)
            if not m:
                raise ReleaseQueryError(f"{name}: give an interval like [20,40), got {value!r}")
            try:
                lo, hi = float(m.group(1)), float(m.group(2))
            except ValueError:
                raise ReleaseQueryError(f"{name}: interval ends must be numbers, got {value!r}") from None
            if not hi > lo:
                raise ReleaseQueryError(f"{name}: empty interval {value!r}")
            box[name] = (lo, hi)
        else:
            try:
                ax.resolve(value)
            except KeyError:
                raise ReleaseQueryError(f"{name}: {value!r} is not a node of its taxonomy") from None
            box[name] = value
    return box
