"""The neighbour view (teaching mode only): one noisy count on D and on D minus one chosen record.

For a node of a finished teaching run (a DiffGen partition or an interval-tree node, ``HistogramRecords``),
pick a record of the loaded data. If the record lies in the
node's partition, removing it lowers the node's true count of the record's class by 1; otherwise nothing
changes. The noisy count is the true count plus discrete Laplace noise of the node's scale s (read back
from the variance the run recorded), so its output distribution on D and on D minus the record are the
same shape shifted by at most 1, and their ratio is at most e^(1/s) at every output: the per-count
guarantee. The whole release's guarantee is the ledger's total (the record is also in one node of every
other level, and in the selections).

Shown only in teaching mode: it needs the true counts, which a release never shows.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from dpstudio.model.watch.explain import noise_pmf, scale_from_variance

#: at most this many outputs are computed for the two curves
MAX_POINTS = 2001
_INTERVAL = re.compile(r"^\[(-?[\d.e+-]+),\s*(-?[\d.e+-]+)([)\]])$")


@dataclass(frozen=True)
class HistogramRecords:
    """What the neighbour view needs of a histogram run (an interval tree): its one attribute; a node's label
    is its interval of the public bin edges, and its count is over every record (no classes)."""

    attributes: tuple
    classes: tuple = ("all records",)
    class_name: str | None = None


def node_values(node) -> tuple:
    """The generalized values a node's partition is described by: a DiffGen partition's ``values``, or an
    interval-tree node's own interval (its label)."""
    info = node.info or {}
    if info.get("values"):
        return tuple(info["values"])
    return (node.label,) if "lo" in info else ()


class NeighbourError(ValueError):
    """The neighbour view cannot be shown (release mode, no true counts, a node without noise...)."""


@dataclass
class NeighbourCount:
    """The two output distributions of one noisy count (one class) on D and D minus ``record``."""

    node: int
    record: int  # the row number shown to the user (1-based, as in the Data panel)
    in_node: bool
    class_value: str
    class_index: int
    scale: float
    true_d: int
    true_d1: int
    support: np.ndarray  # outputs shown
    pmf_d: np.ndarray
    pmf_d1: np.ndarray

    @property
    def bound(self) -> float:
        """e^(1/scale): the largest ratio a shift of 1 can make (sensitivity 1)."""
        return math.exp(1.0 / self.scale)

    @property
    def max_ratio(self) -> float:
        """The largest ratio of the two pmfs (either way) over the outputs shown."""
        a, b = self.pmf_d, self.pmf_d1
        ok = (a > 0) & (b > 0)
        return float(np.max(np.maximum(a[ok] / b[ok], b[ok] / a[ok]))) if ok.any() else 1.0

    def words(self) -> str:
        r, b = _ratio_text(self.max_ratio), _ratio_text(self.bound)
        eps = 1.0 / self.scale
        if not self.in_node:
            return (
                f"the record in row {self.record:,} is not in this partition: removing it leaves this count at "
                f"{self.true_d}, the two distributions are the same (ratio 1); it changes one count of "
                "each level elsewhere"
            )
        return (
            f"removing the record in row {self.record:,} ({self.class_value}) lowers this count from {self.true_d} to "
            f"{self.true_d1}; the noise (discrete Laplace, scale {self.scale:.4g}) makes the two outputs "
            f"overlap: their ratio is at most {r} here, never above e^{eps:.3g} = {b} anywhere"
        )


def _ratio_text(r: float) -> str:
    """A ratio near 1 with the digits that show it is above 1 (1.000105, not 1)."""
    return f"{r:.6f}" if r < 1.01 else f"{r:.4g}"


def record_in_values(values, attributes, record: dict, taxonomies: dict) -> bool:
    """Whether ``record`` (attribute -> raw value) lies in the partition with generalized ``values``."""
    for a, v in zip(attributes, values):
        if v == "*" or a not in record:
            continue
        x = record[a]
        m = _INTERVAL.match(str(v))
        if m is not None:
            lo, hi, close = float(m.group(1)), float(m.group(2)), m.group(3)
            try:
                xf = float(x)
            except (TypeError, ValueError):
                return False
            if not (lo <= xf < hi or (close == "]" and xf == hi)):
                return False
            continue
        if str(x) == str(v):
            continue
        tax = taxonomies.get(a)
        if tax is None:
            return False
        try:
            node, leaf = tax.index(str(v)), tax.index(str(x))
        except (KeyError, ValueError):
            return False
        if node not in tax.path(leaf):
            return False
    return True


def neighbour_count(
    state,
    node_id: int,
    record: int,
    record_values: dict,
    class_value,
    classes,
    attributes,
    taxonomies: dict,
    teaching: bool,
    width: float = 4.0,
) -> NeighbourCount:
    """The neighbour view of node ``node_id``'s noisy count of ``class_value`` without ``record``.

    ``record_values``: the record's raw values by attribute; ``attributes``: the run's attribute order
    (``result.attributes``, the order of ``info["values"]``); ``width``: the outputs shown span the true
    count +- ``width`` scales. Refused (NeighbourError) outside teaching mode or without a true count."""
    if not teaching:
        raise NeighbourError("the neighbour view needs the true counts: teaching mode only, never in a release")
    nd = state.nodes.get(node_id)
    if nd is None or nd.variance is None or nd.noisy is None:
        raise NeighbourError("choose a node with a noisy count")
    if nd.true_count is None:
        raise NeighbourError("this run recorded no true counts")
    classes = [str(c) for c in classes]
    if str(class_value) not in classes:
        raise NeighbourError(f"record {record}'s class {class_value!r} is not one of the public classes")
    k = classes.index(str(class_value))
    true = np.atleast_1d(np.asarray(nd.true_count, dtype=np.int64))
    true_d = int(true[k] if true.size > 1 else true[0])
    in_node = record_in_values(node_values(nd), attributes, record_values, taxonomies)
    true_d1 = true_d - 1 if in_node else true_d
    scale = float(scale_from_variance(nd.variance))
    half = max(3, int(math.ceil(width * scale)))
    support = np.arange(true_d1 - half, true_d + half + 1)
    if support.size > MAX_POINTS:  # wide noise: every n-th output (and both true counts) is enough to draw
        support = np.unique(np.r_[np.linspace(support[0], support[-1], MAX_POINTS).round(), true_d1, true_d]).astype(
            np.int64
        )
    pmf_d = noise_pmf(scale, support - true_d)
    pmf_d1 = noise_pmf(scale, support - true_d1)
    return NeighbourCount(
        node_id, int(record), in_node, str(class_value), k, scale, true_d, true_d1, support, pmf_d, pmf_d1
    )
