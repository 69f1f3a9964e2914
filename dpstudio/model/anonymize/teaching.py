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
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from dpstudio.core.scales import noise_scale
from dpstudio.core.syntactic_models import distinct_l
from dpstudio.io.datasets import missing_as_token
from dpstudio.model.anonymize.job import AnonymizeSettings, prepare, run_to_outcome

SWEENEY_COLUMNS = ("Race", "Birth", "Gender", "ZIP", "Problem")
SWEENEY_QI = SWEENEY_COLUMNS[:4]
#: seed 001 section 2.3, rows t1..t11, released 2-anonymous (ZIP already cut to four digits)
SWEENEY_ROWS = (
    ("Black", 1965, "m", "0214*", "short breath"),
    ("Black", 1965, "m", "0214*", "chest pain"),
    ("Black", 1965, "f", "0213*", "hypertension"),
    ("Black", 1965, "f", "0213*", "hypertension"),
    ("Black", 1964, "f", "0213*", "obesity"),
    ("Black", 1964, "f", "0213*", "chest pain"),
    ("White", 1964, "m", "0213*", "chest pain"),
    ("White", 1964, "m", "0213*", "obesity"),
    ("White", 1964, "m", "0213*", "short breath"),
    ("White", 1967, "m", "0213*", "chest pain"),
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
        Step(
            "1. The release",
            f"The table is {min(sizes)}-anonymous on (Race, Birth, Gender, ZIP): its "
            f"{len(groups)} equivalence classes have sizes {sizes}. No row can be told apart from at least "
            f"{min(sizes) - 1} other.",
        ),
        Step(
            "2. What the attacker knows",
            f"The attacker knows that her neighbour is in the table and is "
            f"{target}. Those are quasi-identifiers: they are public (voter lists, social media).",
        ),
        Step(
            "3. The matching class",
            f"Exactly one class matches ({', '.join(map(str, key))}): rows "
            f"{', '.join(f't{i + 1}' for i in members)}. k-anonymity hides which of the {len(members)} rows is hers.",
            tuple(members),
        ),
        Step(
            "4. Homogeneity",
            f'Every row of that class says "{value}" (distinct l = {int(ls[homog])}). The '
            f"attacker learns her problem with certainty without knowing her row. k-anonymity does not "
            f"promise anything about the sensitive values; l-diversity with l >= 2 refuses this table.",
            tuple(members),
        ),
    ]
    bk_idx = next(i for i, (k, v) in enumerate(groups.items()) if k[1] == 1964 and k[2] == "f")
    bk_key, bk_members = list(groups.items())[bk_idx]
    vals = [rows[i][4] for i in bk_members]
    steps.append(
        Step(
            "5. Background knowledge",
            f"Class ({', '.join(map(str, bk_key))}) is 2-diverse: "
            f"{' and '.join(vals)}. An attacker who knows the woman in it is not obese (she was seen "
            f'at a marathon) rules out one value and learns the other: "{vals[1]}". l-diversity '
            f"counts values; it cannot know what an attacker already knows.",
            tuple(bk_members),
        )
    )
    steps.append(
        Step(
            "6. What differential privacy promises instead",
            "A DP release makes any one person's "
            "record change the probability of every output by at most a factor e^epsilon, whatever the "
            "attacker knows: the promise does not depend on the attacker's knowledge.",
        )
    )
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


def neighbour_contrast(
    frame: pd.DataFrame, taxonomies: dict, settings: AnonymizeSettings, missing: str = "drop", epsilon: float = 1.0
) -> NeighbourContrast:
    """Run ``settings`` on D and on D minus one record; list the classes that changed, and the Laplace
    densities of a DP count of the removed record's class on D and D' (scale noise_scale(1, epsilon))."""
    table_in, _ = prepare(frame, settings, missing)
    before = run_to_outcome(table_in, taxonomies, settings, "drop")
    qi = list(settings.qi)
    labels = [" | ".join(map(str, r)) for r in before.table[qi].itertuples(index=False)]
    sizes = Counter(labels)
    smallest = min(sizes, key=lambda lab: (sizes[lab], labels.index(lab)))
    assert before.kept is not None
    removed = int(np.flatnonzero(before.kept)[labels.index(smallest)])
    after = run_to_outcome(table_in.drop(index=removed).reset_index(drop=True), taxonomies, settings, "drop")
    s_before, s_after = _class_sizes(before), _class_sizes(after)
    changed = [
        (lab, s_before.get(lab, 0), s_after.get(lab, 0))
        for lab in dict.fromkeys([*s_before, *s_after])
        if s_before.get(lab, 0) != s_after.get(lab, 0)
    ]
    count = sizes[smallest]
    b = noise_scale(1, epsilon)
    grid = np.linspace(count - 1 - 6 * b, count + 6 * b, 241)
    dens = lambda mu: np.exp(-np.abs(grid - mu) / b) / (2 * b)  # noqa: E731
    return NeighbourContrast(
        removed,
        {c: table_in.at[removed, c] for c in qi},
        before,
        after,
        changed,
        float(epsilon),
        int(count),
        grid,
        dens(count),
        dens(count - 1),
    )


def _with_column(frame: pd.DataFrame, settings: AnonymizeSettings, attribute: str, missing: str) -> pd.DataFrame:
    """The rows a run of ``settings`` uses, with ``attribute`` beside them (rows missing it dropped too when
    missing values are dropped), in input order."""
    cols = list(dict.fromkeys([*settings.used(), attribute]))
    sub = frame[cols]
    if missing == "drop":
        return sub.loc[~sub.isna().any(axis=1)].reset_index(drop=True)
    return missing_as_token(sub, settings.missing_token).reset_index(drop=True)


def _row_labels(outcome, qi) -> list:
    """Per input row of the run: its released class label, or None when the row was suppressed."""
    labels = iter(" | ".join(map(str, r)) for r in outcome.table[list(qi)].itertuples(index=False))
    return [next(labels) if keep else None for keep in outcome.kept]


@dataclass
class BackgroundKnowledge:
    """The released classes of a run on the loaded data, seen by an attacker who knows the target's class and
    can rule values of ``attribute`` out ("she is not a ..."): a class with d distinct values gives the
    target's value away after d - 1 such facts (d = 1: homogeneity, none needed). ``facts``: {d - 1: number
    of classes}; ``example``: (class label, {value: rows}) of the class needing the fewest facts (the
    largest such class)."""

    attribute: str
    classes: int
    rows: int
    facts: dict
    rows_by_facts: dict
    example: tuple | None

    def words(self) -> str:
        lines = [
            f"{self.classes:,} released classes, {self.rows:,} rows, sensitive attribute {self.attribute}. "
            "An attacker who knows a person's quasi-identifiers knows her class; each fact she already knows "
            '("not this value") removes one value.'
        ]
        for f in sorted(self.facts)[:4]:
            what = "nothing more (homogeneity)" if f == 0 else f"{f} such fact{'s' if f > 1 else ''}"
            lines.append(
                f"  {self.facts[f]:,} classes ({self.rows_by_facts[f]:,} rows) give the value away after {what}."
            )
        if self.example is not None:
            label, counts = self.example
            order = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            shown = ", ".join(f"{v} ({n:,})" for v, n in order)
            last = order[0][0]
            ruled = [v for v, _ in order[1:]]
            share = order[0][1] / sum(counts.values())
            lines.append(
                f"For example class ({label}): {shown}. Without any fact, guessing {order[0][0]} is "
                f"right for {share:.0%} of its members."
                + (
                    f" Knowing the target is not {' and not '.join(ruled)}, the attacker learns {last}."
                    if ruled
                    else f" Everyone in it has {last}."
                )
                + " The class is k-anonymous all the same."
            )
        return "\n".join(lines)


def background_knowledge(
    frame: pd.DataFrame, taxonomies: dict, settings: AnonymizeSettings, attribute: str, missing: str = "drop"
) -> BackgroundKnowledge:
    """Run ``settings`` on the loaded data and count, per released class, how many facts about
    ``attribute`` give a member's value away (see ``BackgroundKnowledge``)."""
    if attribute in settings.qi:
        raise ValueError(f"{attribute} is a quasi-identifier: choose a sensitive attribute that is not")
    table = _with_column(frame, settings, attribute, missing)
    out = run_to_outcome(table, taxonomies, settings, "drop")
    per_class: dict[str, Counter] = {}
    for lab, v in zip(_row_labels(out, settings.qi), table[attribute]):
        if lab is not None:
            per_class.setdefault(lab, Counter())[str(v)] += 1
    facts: Counter = Counter()
    rows_by: Counter = Counter()
    for c in per_class.values():
        facts[len(c) - 1] += 1
        rows_by[len(c) - 1] += sum(c.values())
    example = min(per_class.items(), key=lambda kv: (len(kv[1]), -sum(kv[1].values()), kv[0])) if per_class else None
    return BackgroundKnowledge(
        attribute,
        len(per_class),
        sum(rows_by.values()),
        dict(facts),
        dict(rows_by),
        None if example is None else (example[0], dict(example[1])),
    )


@dataclass
class ComplementaryJoin:
    """Two k-anonymous releases of the same rows on different quasi-identifier subsets (``qi_a``, ``qi_b``),
    published in the same row order, joined row by row. ``joined_sizes[i]``: how many rows share row i's
    pair of classes (None: suppressed in a release); ``below_k`` rows end in a joined class smaller than k,
    ``unique`` in a class of one. ``example``: (row, its values, size of its class in A, in B, joined)."""

    k: int
    qi_a: tuple
    qi_b: tuple
    classes_a: int
    classes_b: int
    rows: int
    below_k: int
    unique: int
    smallest_a: int
    smallest_b: int
    example: tuple | None

    def words(self) -> str:
        lines = [
            f"Release A on ({', '.join(self.qi_a)}): {self.classes_a:,} classes, the smallest of "
            f"{self.smallest_a} rows. Release B on ({', '.join(self.qi_b)}): {self.classes_b:,} classes, the "
            f"smallest of {self.smallest_b}. Each is {self.k}-anonymous.",
            f"Joined row by row (both list the records in the same order): {self.below_k:,} of "
            f"{self.rows:,} rows fall into a joined class smaller than k = {self.k}, {self.unique:,} are "
            "alone in theirs: each release keeps its promise, the two together do not.",
        ]
        if self.example is not None:
            row, values, na, nb, nj = self.example
            shown = ", ".join(f"{a}={v}" for a, v in values.items())
            lines.append(
                f"For example input row {row + 1} ({shown}): {na} rows share its class in A, {nb} in B, {nj} both."
            )
        lines.append("Shuffling each release's rows breaks this join, not the attack on what the classes say.")
        return "\n".join(lines)


def complementary_join(
    frame: pd.DataFrame, taxonomies: dict, settings: AnonymizeSettings, missing: str = "drop"
) -> ComplementaryJoin:
    """Split ``settings.qi`` in two halves, release each half with ``settings`` (k, algorithm, suppression;
    no l-diversity or t-closeness) and join the two releases row by row (see ``ComplementaryJoin``)."""
    qi = tuple(settings.qi)
    if len(qi) < 2:
        raise ValueError("complementary releases need at least two quasi-identifiers (one for each release)")
    half = (len(qi) + 1) // 2
    qa, qb = qi[:half], qi[half:]
    base = _with_column(frame, settings, qi[0], missing)
    sa = replace(settings, qi=qa, l_diversity=None, t_closeness=None, sensitive=None)
    sb = replace(settings, qi=qb, l_diversity=None, t_closeness=None, sensitive=None)
    out_a, out_b = run_to_outcome(base, taxonomies, sa, "drop"), run_to_outcome(base, taxonomies, sb, "drop")
    la, lb = _row_labels(out_a, qa), _row_labels(out_b, qb)
    size_a, size_b = Counter(x for x in la if x is not None), Counter(x for x in lb if x is not None)
    pairs = Counter((a, b) for a, b in zip(la, lb) if a is not None and b is not None)
    joined = [pairs[(a, b)] if a is not None and b is not None else None for a, b in zip(la, lb)]
    sizes = np.array([j for j in joined if j is not None], dtype=np.int64)
    example = None
    if sizes.size:
        row = min((i for i, j in enumerate(joined) if j is not None), key=lambda i: (joined[i], i))
        example = (row, {a: base.at[row, a] for a in qi}, size_a[la[row]], size_b[lb[row]], joined[row])
    return ComplementaryJoin(
        int(settings.k),
        qa,
        qb,
        len(size_a),
        len(size_b),
        int(sizes.size),
        int((sizes < settings.k).sum()),
        int((sizes == 1).sum()),
        min(size_a.values(), default=0),
        min(size_b.values(), default=0),
        example,
    )
