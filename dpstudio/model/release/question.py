"""The one question every release asks before it spends, and what an epsilon means in words (Qt-free).

``ReleaseQuestion`` states the dataset, the epsilon about to be spent, the dataset's lifetime total, what was
spent on it already, what remains afterwards, and that the spend cannot be undone. ``refusal`` (non-empty)
means the release cannot run and nothing is to be asked. Each front end answers it: the studio with a
dialog (No is the default), the command line by having been typed. The answer goes back to
``ReleaseService.begin``; nothing is charged, no noise is drawn and no ledger is filled before that.

Epsilon in words: above ``CAUTION_EPSILON`` the guarantee means little (a neighbouring table may be up to
e^10, about 22,000 times likelier to give the same output), and the question and the panel say so; above
``MAX_EPSILON`` e^epsilon is beyond what a float can hold, so no figure (odds, variances) can show it, and
such a value is refused with that reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from dpstudio.core.budget import MAX_EPSILON, MIN_EPSILON, check_usable_epsilon
from dpstudio.model.numbers import ratio_text

if TYPE_CHECKING:
    from dpstudio.model.release.service import ReleaseRequest

CAUTION_EPSILON = 10
#: where a table's data owner sets a dataset's lifetime total before its first release
RAISE_HINT = "use \u201cdataset budget\u201d (Algorithm panel) or dpstudio budget set-total"


def epsilon_refusal(eps) -> str:
    """Why ``eps`` cannot be used at all ("" when it can): outside [``MIN_EPSILON``, ``MAX_EPSILON``]."""
    try:
        check_usable_epsilon(Fraction(eps))
    except ValueError as exc:
        return str(exc)
    return ""


def epsilon_caution(eps) -> str:
    """Words for an epsilon above ``CAUTION_EPSILON`` ("" otherwise): what the guarantee still says."""
    if Fraction(eps) <= CAUTION_EPSILON:
        return ""
    factor = math.exp(min(float(eps), MAX_EPSILON))
    return (
        f"epsilon {float(eps):g} gives almost no privacy: one person's presence may make an output up to "
        f"{ratio_text(factor)} times likelier. Values above {CAUTION_EPSILON} are rarely meaningful; most releases use "
        "1 or less"
    )


@dataclass(frozen=True)
class ReleaseQuestion:
    """What a release is about to do to its dataset's budget (``ReleaseService.question``).

    ``budget`` is the dataset's lifetime total in the budget store (before its first release: the total set
    for it, else this release's epsilon); untracked (``tracked`` False), there is no lifetime total and only
    this release's ledger counts. ``request`` is what ``begin`` will charge; ``related`` says why these
    records are charged to a dataset the store knew under other records (a renamed column, duplicated rows).
    """

    dataset: str
    data_path: str | None
    epsilon: Fraction
    budget: Fraction
    spent_before: Fraction
    remaining_after: Fraction
    refusal: str = ""
    tracked: bool = True
    warnings: tuple[str, ...] = ()
    related: str = ""
    request: ReleaseRequest | None = field(default=None, compare=False, repr=False)
    total_defaulted: bool = False  # a new dataset with no total set: ``budget`` is this release's epsilon
    notes: tuple[str, ...] = ()  # what the release does to the data that the owner should know (rows left out)

    def text(self) -> str:
        """The question, in plain words."""
        where = f"dataset {self.dataset!r}" + (f" ({self.data_path})" if self.data_path else "")
        lines = [f"Run a release on {where}?"]
        if self.related:
            lines.append(
                f"These records are charged to the known dataset {self.dataset!r}: {self.related}. If "
                "they are other people, declare them a new dataset (Algorithm panel, dataset budget) before running."
            )
        if self.tracked:
            lines.append(
                f"This spends epsilon = {float(self.epsilon):g} of this dataset's lifetime budget of "
                f"{float(self.budget):g} (already spent: {float(self.spent_before):g}). "
                f"Remaining on this dataset afterwards: {float(self.remaining_after):g}."
            )
            if self.total_defaulted:
                lines.append(
                    "No lifetime total was set for this new dataset, so it is this release's epsilon: nothing "
                    "is left for another release unless you raise it. To set a larger one first, answer No and "
                    f"{self.request.raise_hint if self.request is not None else RAISE_HINT}."
                )
        else:
            lines.append(f"This spends epsilon = {float(self.epsilon):g}.")
        lines += list(self.notes)
        caution = epsilon_caution(self.epsilon)
        lines += [
            *(f"WARNING: {w}" for w in ((caution,) if caution else ()) + self.warnings),
            "The spend cannot be undone, even if you cancel the run or never export it.",
        ]
        return "\n\n".join(lines)


__all__ = [
    "CAUTION_EPSILON",
    "MAX_EPSILON",
    "MIN_EPSILON",
    "RAISE_HINT",
    "ReleaseQuestion",
    "epsilon_caution",
    "epsilon_refusal",
]
