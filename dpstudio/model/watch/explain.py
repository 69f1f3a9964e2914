"""Why a noisy count is what it is: mechanism, sensitivity, noise scale, the ledger line that paid for it.

Qt-free. ``explain_count(state, node_id, teaching, show_true)`` reads a replayed ``TreeState`` (the
events the run recorded, nothing recomputed from the data) and returns a ``CountExplanation``. Everything
in it is public or already paid for (the ledger, the tree's released shape, the noisy count, the noise
distribution, which is a function of the scale alone); the true count and the realised noise are filled only
in teaching mode and only when asked (``show_true``); release-mode events carry no true counts anyway.

The scale is read back from the variance the engine recorded for the node (discrete Laplace with
P(X = k) proportional to p^|k|, p = exp(-1/scale), variance 2p / (1 - p)^2), so it is the scale that
was used whatever the budget split (per level, per node, or a leaf taking several levels).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpstudio.model.numbers import count_text

#: the two-sided probability mass the interval leaves out
OUTSIDE = 0.05


def scale_from_variance(variance: float) -> float:
    """The discrete Laplace scale whose variance is ``variance`` (inverse of 2p / (1 - p)^2)."""
    v = float(variance)
    if v <= 0:
        return 0.0
    p = ((v + 1.0) - math.sqrt(2.0 * v + 1.0)) / v
    return -1.0 / math.log(p) if 0 < p < 1 else math.inf


def noise_pmf(scale: float, k: np.ndarray) -> np.ndarray:
    """P(X = k) of the discrete Laplace noise of ``scale``."""
    p = math.exp(-1.0 / scale)
    return (1 - p) / (1 + p) * p ** np.abs(np.asarray(k, dtype=float))


def interval_half_width(scale: float, outside: float = OUTSIDE) -> int:
    """The smallest k with P(|X| > k) <= ``outside`` (P(|X| >= m) = 2 p^m / (1 + p) for m >= 1)."""
    p = math.exp(-1.0 / scale)
    if 2 * p / (1 + p) <= outside:
        return 0
    return max(0, math.ceil(math.log(outside * (1 + p) / 2) / math.log(p)) - 1)


@dataclass
class LedgerLine:
    number: int  # 1-based position in the run's ledger
    step: str
    mechanism: str
    epsilon: float
    sensitivity: float
    scale: float | None
    note: str = ""


@dataclass
class CountExplanation:
    node: int
    label: str
    depth: int
    noisy: tuple
    mechanism: str
    sensitivity: float
    why: str
    scale: float
    variance: float
    half_width: int  # the 95 % interval of the noise is [-half_width, half_width]
    ledger: list[LedgerLine] = field(default_factory=list)
    consistent: tuple | None = None
    published: tuple | None = None  # the node's published count, once the run released it
    true_count: tuple | None = None  # teaching mode, when asked
    noise: tuple | None = None  # realised noise (noisy - true): teaching mode, when asked
    share_of_counts: float | None = None  # the part of the run's count budget that paid for this count

    #: below this share of the count budget a level's counts are called "almost no budget"
    SMALL_SHARE = 0.05

    def lines(self) -> list[str]:
        """What the release publishes first (or the consistent estimate before it), then the noisy count and
        how it was made."""
        out = []
        if self.published is not None:
            out.append(f"{self.label}: published count {_fmt(self.published)} (what the release publishes)")
            if self.consistent is not None and _as_tuple(self.published) != self.consistent:
                out.append(
                    f"least-squares estimate {_fmt(self.consistent)}: the noisy counts of the whole tree "
                    "combined by least squares; the published counts are made whole and non-negative from "
                    "these estimates (post-processing that costs no budget)"
                )
        elif self.consistent is not None:
            out.append(
                f"{self.label}: consistent count {_fmt(self.consistent)} (the noisy counts of the whole tree "
                "combined by least squares, post-processing that costs no budget; the release publishes the "
                "leaves' counts, made whole and non-negative from these estimates)"
            )
        out += [
            f"{self.label}: noisy count {_fmt(self.noisy)}",
            f"mechanism: {self.mechanism}, sensitivity {self.sensitivity:g}: {self.why}",
            f"noise scale {self.scale:.4g} (variance {self.variance:.4g}); 95 % of the noise lies in "
            f"[-{self.half_width}, {self.half_width}]",
        ]
        for line in self.ledger:
            out.append(
                f"paid by ledger line {line.number}: {line.step} ({line.mechanism}, epsilon "
                f"{line.epsilon:.4g}, sensitivity {line.sensitivity:g})"
            )
        if self.share_of_counts is not None and self.share_of_counts < self.SMALL_SHARE:
            out.append(
                f"why so noisy: this count got {self.share_of_counts:.2%} of the run's count budget. The run "
                "chose the levels' shares for the released tree's shape and gave most of the budget to the "
                "counts that decide the released values. Least squares weighs every noisy count by its "
                "precision, so a count this noisy barely moves the consistent values: its noise costs the "
                "release nothing, and its small share of epsilon is what it paid."
            )
        if self.true_count is not None:
            out.append(f"TEACHING: true count {_fmt(self.true_count)}, realised noise {_fmt(self.noise)}")
        return out


def _fmt(value) -> str:
    if value is None:
        return "-"
    vals = value if isinstance(value, (tuple, list)) else (value,)
    text = "; ".join(count_text(v) for v in vals)  # a comma already groups the thousands
    return f"({text})" if len(vals) > 1 else text


def _share(paid, spends) -> float | None:
    """The part of all count spends that the spends in ``paid`` make up (None without count spends)."""
    total = sum(float(s.epsilon) for _, s in spends)
    if not total > 0 or not paid:
        return None
    return sum(float(s.epsilon) for _, s in paid) / total


def _as_tuple(value):
    if value is None:
        return None
    return tuple(value) if isinstance(value, (tuple, list, np.ndarray)) else (value,)


_LEVEL = re.compile(r"\blevel (\d+)\b")


def _count_spends(state) -> list[tuple[int, Any]]:
    """(ledger number, spend) of the spends that paid for counts (not for selections or split points)."""
    out = []
    for i, ev in enumerate(state.spends, start=1):
        step = ev.spend.step
        if step.startswith("counts") or step.startswith("interval tree") or "count" in ev.spend.mechanism:
            out.append((i, ev.spend))
    return out


def _line(number, spend) -> LedgerLine:
    scale = None if spend.scale is None else float(spend.scale)
    return LedgerLine(
        number, spend.step, spend.mechanism, float(spend.epsilon), float(spend.sensitivity), scale, spend.note
    )


def explain_count(state, node_id: int, teaching: bool = False, show_true: bool = False) -> CountExplanation | None:
    """The explanation of node ``node_id``'s noisy count, or None when it has none (yet)."""
    nd = state.nodes.get(node_id)
    if nd is None or nd.noisy is None or nd.variance is None:
        return None
    spends = _count_spends(state)
    by_level = [(m, i, s) for i, s in spends if (m := _LEVEL.search(s.step)) is not None]
    levels = {int(m.group(1)): (i, s) for m, i, s in by_level}
    scale = scale_from_variance(nd.variance)
    if levels:
        own = levels.get(nd.depth)
        paid = [own] if own is not None else []
        # a leaf may take the budgets of the levels below it too (one noisy count at a finer scale)
        deeper = [levels[d] for d in sorted(levels) if d > nd.depth]
        if own is not None and own[1].scale and deeper and scale < float(own[1].scale) * (1 - 1e-6):
            paid += deeper
        sensitivity = 1.0
        why = (
            f"the nodes of level {nd.depth} are disjoint: a person is in one node of the level, so adding "
            f"or removing one changes one count of the level by 1; the levels are paid for one by one"
        )
    else:
        paid = spends[:1]
        sensitivity = float(paid[0][1].sensitivity) if paid else 1.0
        if sensitivity > 1:
            why = (
                f"a person is in one partition per level: L = {sensitivity:g} counts change by 1 when "
                "one person is added or removed, so each gets noise of scale L / epsilon"
            )
        else:
            why = "the partitions are disjoint: a person is in exactly one, so one count changes by 1"
    if not paid and spends:
        paid = spends[:1]
    noisy = _as_tuple(nd.noisy)
    exp = CountExplanation(
        node=node_id,
        label=nd.label,
        depth=nd.depth,
        noisy=noisy,
        mechanism=paid[0][1].mechanism if paid else "discrete Laplace",
        sensitivity=sensitivity,
        why=why,
        scale=scale,
        variance=float(nd.variance),
        half_width=interval_half_width(scale) if scale > 0 else 0,
        ledger=[_line(i, s) for i, s in paid],
        consistent=_as_tuple(nd.consistent),
        published=_as_tuple(nd.released),
        share_of_counts=_share(paid, spends),
    )
    if teaching and show_true and nd.true_count is not None:
        true = _as_tuple(nd.true_count)
        exp.true_count = true
        exp.noise = tuple(int(a) - int(b) for a, b in zip(noisy, true))
    return exp


__all__ = ["CountExplanation", "LedgerLine", "explain_count", "interval_half_width", "noise_pmf", "scale_from_variance"]
