"""Accuracy before running, in words (Qt-free): "a count of about N is off by about plus or minus X (95 %)".

``count_accuracy(plan, example)`` gives one ``AccuracyLine`` per noised level of the chosen split and one for
the released leaves. X is the 95 % half-width of the exact noise a count gets in the run: discrete Laplace
(secure noise in a release, the same distribution simulated in teaching) of scale
``core.scales.noise_scale(1, eps)`` (a count's sensitivity is 1), from ``core.range_error``. It depends on
the split only, never on the data: N is an example size the user picks, not a count read from the table.
For a consistent release the leaves' own noise is shown; consistency combines it with the levels above,
which usually narrows it.

``simulated_preview(project, plan, cells)`` is teaching mode's preview: true counts of a few cells (the
class values, or the first bins of the histogram) beside the same counts with simulated noise of the
released leaves' scale. It reads the data, so it is refused in release mode (it is never a release).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dpstudio.algorithms import registry
from dpstudio.core.range_error import discrete_laplace_half_width
from dpstudio.core.scales import noise_scale
from dpstudio.model.release.budget_plan import OPTIMIZED_SHARES_NOTE, BudgetPlan

LEVEL = 0.95


@dataclass(frozen=True)
class AccuracyLine:
    """The noise of one kind of count: ``what`` (a level, or the released leaves), its epsilon, the
    95 % half-width ``plus_minus`` and the sentence for the example size."""

    what: str
    epsilon: Fraction
    plus_minus: int
    text: str
    best_case: bool = False


def _sentence(example: int, x: int) -> str:
    share = f", {100 * x / example:.2g} % of it" if example > 0 else ""
    return f"a count of about {example:,} is off by about \u00b1{x:,} (95 %){share}"


def _line(what: str, eps: Fraction, example: int, note: str = "", best_case: bool = False) -> AccuracyLine:
    x = discrete_laplace_half_width(noise_scale(1, eps), LEVEL)
    lead = "at best " if best_case else ""
    return AccuracyLine(what, eps, x, f"{what}: {lead}{_sentence(example, x)}{note}", best_case)


def count_accuracy(plan: BudgetPlan, example: int = 1000, params: dict | None = None) -> list[AccuracyLine]:
    """One line per noised level of ``plan`` and one for the released leaves (see the module docstring).
    ``params``: the algorithm's parameters (p-Identity's bins decide its plan)."""
    example = int(example)
    if example < 1:
        raise ValueError("the example count must be at least 1")
    alg = plan.algorithm
    from dpstudio.algorithms.registry import REGISTRY, STRATEGY

    if REGISTRY[alg].noised == STRATEGY:  # p-Identity: each bin's own budget
        from dpstudio.core.scales import exact_fraction
        from dpstudio.model.release.budget_plan import engine_plan

        least = exact_fraction(float(engine_plan(alg, params or {}, plan.epsilon).bin_epsilons.min()))
        return [
            _line(
                "a bin's own noisy count",
                least,
                example,
                " at worst (the bin with the least budget); least squares with the weighted sums narrows it",
            )
        ]
    spec = registry.REGISTRY[alg]
    if spec.is_table and spec.noised == registry.LEAVES:
        return [_line("released leaf counts", plan.share("count"), example)]
    levels = plan.level_shares()
    if not levels:
        return []
    typical = " (typical node: per-node budgets vary)" if spec.locked_split else ""
    out = (
        []
        if len(levels) == 1
        else [
            _line(name, e, example, typical) for name, e, k in zip(plan.names, plan.shares, plan.kinds) if k == "level"
        ]
    )
    leaf = "released bins" if spec.is_histogram else "released leaf counts"
    note = "" if len(levels) == 1 else " before consistency (combining the levels usually narrows it)"
    out.append(_line(leaf, levels[-1], example, note))
    if OPTIMIZED_SHARES_NOTE in plan.notes and len(set(levels)) == 1:  # not after a drag of the bar
        # the bar's equal split is a stand-in: the run chooses the levels' shares for the released tree's
        # shape, giving the leaves at most the whole count budget (the best case below)
        out.append(
            _line(
                f"{leaf} with the shares the run chooses",
                sum(levels, Fraction(0)),
                example,
                "; at worst as with the equal split above (the ledger shows the shares that ran)",
                best_case=True,
            )
        )
    return out


def simulated_preview(project, plan: BudgetPlan, cells: int = 5) -> list[tuple[str, int, int]]:
    """Teaching mode only: (cell, true count, simulated noisy count) for a few cells, with the released
    leaves' noise (seeded by the project's teaching seed). Refused (ValueError) in release mode."""
    from dpstudio.core.noise import SimulationNoise

    if not project.teaching:
        raise ValueError("the simulated preview shows true counts: teaching mode only, never in a release")
    if not project.has_data:
        raise ValueError("no data is loaded")
    if plan.algorithm in registry.HISTOGRAM_ALGORITHMS:
        from dpstudio.model.release.runs import histogram_counts

        counts, edges, attr = histogram_counts(
            project, (project.params or {}).get("attribute"), int((project.params or {}).get("bins", 256))
        )
        labels = [f"{attr} [{edges[i]:g}, {edges[i + 1]:g})" for i in range(min(cells, counts.size))]
        true = [int(c) for c in counts[: len(labels)]]
    else:
        cls = project.class_attribute
        if cls is None:
            raise ValueError("choose the class attribute first")
        values, counts = project.value_counts(cls)
        top = sorted(zip(values, counts), key=lambda t: -t[1])[:cells]  # most frequent first
        labels = [f"{cls} = {v}" for v, _ in top]
        true = [int(c) for _, c in top]
    leaf = count_accuracy(plan, params=project.params)[-1].epsilon
    noisy = SimulationNoise(project.seed).laplace_counts(true, noise_scale(1, leaf))
    return [(label, t, int(n)) for label, t, n in zip(labels, true, noisy)]


__all__ = ["AccuracyLine", "count_accuracy", "simulated_preview"]
