"""The teaching side of the Anonymize mode (SYNTACTIC.md K11), without Qt: what a syntactic guarantee does
not promise.

- The homogeneity and background-knowledge attacks on the seed's 2-anonymous table (Sweeney; K9.1), step by
  step, every number computed from the table here.
- The neighbour contrast: removing one record changes a Mondrian or full-domain output deterministically
  (the changed classes are listed), while a differentially private count's output distribution moves by at
  most a factor e^epsilon (Laplace densities at scale ``core.scales.noise_scale(1, epsilon)``).

Nothing here is a release: the Sweeney table is public teaching material, the contrast draws no noise (it
shows densities), spends nothing and writes nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.scales import noise_scale
from ..core.syntactic_models import distinct_l
from .anonymize_job import AnonymizeSettings, prepare, run_to_outcome

SWEENEY_COLUMNS = ("Race", "Birth", "Gender", "ZIP", "Problem")
SWEENEY_QI = SWEENEY_COLUMNS[:4]
#: seed 001 section 2.3, rows t1..t11, released 2-anonymous (ZIP already cut to four digits)
SWEENEY_ROWS = (
    ("Black", 1965, "m", "0214*", "short breath"), ("Black", 1965, "m", "0214*", "chest pain"),
    ("Black", 1965, "f", "0213*", "hypertension"), ("Black", 1965, "f", "0213*", "hypertension"),
    ("Black", 1964, "f", "0213*", "obesity"), ("Black", 1964, "f", "0213*", "chest pain"),
    ("White", 1964, "m", "0213*", "chest pain"), ("White", 1964, "m", "0213*", "obesity"),
    ("White", 1964, "m", "0213*", "short breath"), ("White", 1967, "m", "0213*", "chest pain"),
    ("White", 1967, "m", "0213*", "chest pain"),
)


def sweeney_table() -> pd.DataFrame:
    return pd.DataFrame(list(SWEENEY_ROWS), columns=list(SWEENEY_COLUMNS))


@dataclass(frozen=True)
class Step:
    """One step of an attack: a title, the explanation, and the table rows (0-based) it points at."""

    title: str
    text: str
    rows: tuple[int, ...] = ()


def _classes(rows) -> dict[tuple, list[int]]:
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(tuple(r[:4]), []).append(i)
    return groups


def homogeneity_steps() -> list[Step]:
    """The homogeneity attack, then background knowledge, on the Sweeney table (numbers computed here)."""
    rows = SWEENEY_ROWS
    groups = _classes(rows)
    sizes = [len(v) for v in groups.values()]
    problems = sorted({r[4] for r in rows})
    hist = np.array([[Counter(rows[i][4] for i in idx)[p] for p in problems] for idx in groups.values()])
    ls = distinct_l(hist)
    homog = int(np.argmin(ls))
    key, members = list(groups.items())[homog], list(groups.values())[homog]
    key = key[0]
    value = rows[members[0]][4]
    target = "Black, born 1965, female, ZIP 0213x"
    steps = [
        Step("1. The release", f"The table is {min(sizes)}-anonymous on (Race, Birth, Gender, ZIP): its "
             f"{len(groups)} equivalence classes have sizes {sizes}. No row can be told apart from at least "
             f"{min(sizes) - 1} other."),
        Step("2. What the attacker knows", f"The attacker knows that her neighbour is in the table and is "
             f"{target}. Those are quasi-identifiers: they are public (voter lists, social media)."),
        Step("3. The matching class", f"Exactly one class matches ({', '.join(map(str, key))}): rows "
             f"{', '.join(f't{i + 1}' for i in members)}. k-anonymity hides which of the {len(members)} rows is hers.",
             tuple(members)),
        Step("4. Homogeneity", f"Every row of that class says \"{value}\" (distinct l = {int(ls[homog])}). The "
             f"attacker learns her problem with certainty without knowing her row. k-anonymity does not "
             f"promise anything about the sensitive values; l-diversity with l >= 2 refuses this table.",
             tuple(members)),
    ]
    bk_idx = next(i for i, (k, v) in enumerate(groups.items()) if k[1] == 1964 and k[2] == "f")
    bk_key, bk_members = list(groups.items())[bk_idx]
    vals = [rows[i][4] for i in bk_members]
    steps.append(Step("5. Background knowledge", f"Class ({', '.join(map(str, bk_key))}) is 2-diverse: "
                      f"{' and '.join(vals)}. An attacker who knows the woman in it is not obese (she was seen "
                      f"at a marathon) rules out one value and learns the other: \"{vals[1]}\". l-diversity "
                      f"counts values; it cannot know what an attacker already knows.", tuple(bk_members)))
    steps.append(Step("6. What differential privacy promises instead", "A DP release makes any one person's "
                      "record change the probability of every output by at most a factor e^epsilon, whatever the "
                      "attacker knows: the promise does not depend on the attacker's knowledge."))
    return steps


@dataclass
class NeighbourContrast:
    """D against D' = D without row ``removed`` (an input row of the smallest released class of D).
    ``changed``: (class label, size in D, size in D') for every class whose size differs (0: absent)."""

    removed: int
    removed_values: dict
    before: object
    after: object
    changed: list[tuple[str, int, int]]
    epsilon: float
    count: int
    grid: np.ndarray
    density_d: np.ndarray
    density_d_prime: np.ndarray

    @property
    def max_ratio(self) -> float:
        """The largest density ratio over the grid, either way: at most e^epsilon."""
        r = np.maximum(self.density_d / self.density_d_prime, self.density_d_prime / self.density_d)
        return float(r.max())


def _class_sizes(outcome) -> Counter:
    qi = list(outcome.settings.qi)
    return Counter(" | ".join(map(str, r)) for r in outcome.table[qi].itertuples(index=False))


def neighbour_contrast(frame: pd.DataFrame, taxonomies: dict, settings: AnonymizeSettings,
                       missing: str = "drop", epsilon: float = 1.0) -> NeighbourContrast:
    """Run ``settings`` on D and on D minus one record; list the classes that changed, and the Laplace
    densities of a DP count of the removed record's class on D and D' (scale noise_scale(1, epsilon))."""
    table_in, _ = prepare(frame, settings, missing)
    before = run_to_outcome(table_in, taxonomies, settings, "drop")
    qi = list(settings.qi)
    labels = [" | ".join(map(str, r)) for r in before.table[qi].itertuples(index=False)]
    sizes = Counter(labels)
    smallest = min(sizes, key=lambda lab: (sizes[lab], labels.index(lab)))
    removed = int(np.flatnonzero(before.kept)[labels.index(smallest)])
    after = run_to_outcome(table_in.drop(index=removed).reset_index(drop=True), taxonomies, settings, "drop")
    s_before, s_after = _class_sizes(before), _class_sizes(after)
    changed = [(lab, s_before.get(lab, 0), s_after.get(lab, 0)) for lab in dict.fromkeys([*s_before, *s_after])
               if s_before.get(lab, 0) != s_after.get(lab, 0)]
    count = sizes[smallest]
    b = noise_scale(1, epsilon)
    grid = np.linspace(count - 1 - 6 * b, count + 6 * b, 241)
    dens = lambda mu: np.exp(-np.abs(grid - mu) / b) / (2 * b)  # noqa: E731
    return NeighbourContrast(removed, {c: table_in.at[removed, c] for c in qi}, before, after, changed,
                             float(epsilon), int(count), grid, dens(count), dens(count - 1))
