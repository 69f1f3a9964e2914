"""The last run's figures as its ledger records them (Qt-free), shown after a run beside the plan's.

Before a run the Algorithm panel shows the split it plans; for DiffGen with consistency an equal split of the
levels is a stand-in (the run chooses the levels' shares for the released tree's shape), so after the run
these figures say what was spent: the count budget (any budget a selection step did not need included) and
each level's epsilon with the variance of its nodes' discrete Laplace noise (scale 1/eps: a person is in one
node of a level). Read from the ledger and the result's shape only: no count.
"""

from __future__ import annotations

from fractions import Fraction

from dpstudio.algorithms.diffgen_variance import discrete_laplace_variance
from dpstudio.io.report import is_histogram, spent_levels
from dpstudio.model.release.budget_plan import Figure


def spent_figures(result, ledger) -> list[Figure]:
    """Figures of a finished table run, from its ledger ([] for none, or for a histogram, whose levels run as
    planned)."""
    if result is None or ledger is None or is_histogram(result) or getattr(result, "count_epsilon", None) is None:
        return []
    out = [
        Figure(
            "last run: epsilon spent on counts",
            float(result.count_epsilon),
            "from the ledger (budget a selection step did not need went to the counts)",
        )
    ]
    for level, eps in spent_levels(ledger):
        e = float(eps)
        out.append(
            Figure(
                f"last run: node variance at level {level}",
                discrete_laplace_variance(1.0 / e) if e > 0 else float("inf"),
                f"eps = {e:.4g} from the ledger: discrete Laplace of scale 1/eps",
            )
        )
    return out


__all__ = ["spent_figures"]


def spend_sentence(budget: dict | None, ledger) -> str:
    """What a release spent, in words, from its record: this release's epsilon and, when the budget store
    charged it, the dataset's lifetime total, what has been spent on it so far and what remains (the
    figures of the charge, not the ledger's total, which is only this release's epsilon)."""
    from dpstudio.io.budget_store import fraction_text

    spent = fraction_text(Fraction(ledger.spent))
    if budget and budget.get("tracked"):
        return (
            f"This release spent epsilon = {fraction_text(Fraction(budget['charged']))}. Dataset "
            f"\u201c{budget.get('dataset')}\u201d has a lifetime budget of "
            f"{fraction_text(Fraction(budget['dataset_total']))}, of which "
            f"{fraction_text(Fraction(budget['dataset_spent']))} is spent now (this release included) and "
            f"{fraction_text(Fraction(budget['dataset_remaining']))} remains"
        )
    if budget:
        return f"This release spent epsilon = {spent}; the budget store did not charge it ({budget.get('note', 'not tracked')})"
    return f"This release spent epsilon = {spent}"
