"""How large a DiffGen tree can grow, from public inputs only (Qt-free, numpy-free).

A DiffGen or MAXGDDP run keeps every partition of the cut, empty or not (dropping the empty ones would leak),
so its leaves are the product of the cut sizes of the quasi-identifiers. One specialization of a value with
``c`` children adds ``c - 1`` to its attribute's cut; one split of a numeric interval adds 1. Which values
are specialized is the run's private choice; the largest tree ``h`` specializations can make is not: it
follows from the taxonomies, the numeric attributes and ``h`` alone, all public inputs. ``most_leaves`` gives
an upper bound on it (every internal node may be chosen, its ancestors not required), which the studio uses to
refuse, before anything is spent, a run whose tree could not fit in memory: a flat taxonomy of 41 countries
multiplies the partitions by 41 in one step (walk 50: a 150,000-row table with flat taxonomies reached 1.4
million nodes and was killed for memory after two minutes)."""

from __future__ import annotations

from collections.abc import Sequence


def cut_sizes(gains: Sequence[int] | None, steps: int) -> list[int]:
    """The largest cut of one attribute after 0..``steps`` specializations: 1 plus its ``k`` largest gains
    (``children - 1`` of its internal nodes; a numeric attribute without a taxonomy: 1 per split, unbounded,
    given as None)."""
    if gains is None:
        return [1 + k for k in range(steps + 1)]
    top = sorted((int(g) for g in gains if g > 0), reverse=True)
    out, size = [1], 1
    for k in range(steps):
        size += top[k] if k < len(top) else 0
        out.append(size)
    return out


def most_leaves(attribute_gains: Sequence[Sequence[int] | None], steps: int) -> int:
    """An upper bound on the leaf partitions of a DiffGen tree after ``steps`` specializations spread over the
    attributes (``attribute_gains``: one entry per quasi-identifier, see ``cut_sizes``): the largest product of
    cut sizes over every way of sharing the steps among the attributes."""
    steps = max(int(steps), 0)
    best = [1] + [0] * steps  # best[j]: the largest product using exactly j steps so far
    for gains in attribute_gains:
        sizes = cut_sizes(gains, steps)
        new = [0] * (steps + 1)
        for used, product in enumerate(best):
            if not product:
                continue
            for k in range(steps - used + 1):
                value = product * sizes[k]
                if value > new[used + k]:
                    new[used + k] = value
        best = new
    return max(best)


def taxonomy_gains(children: Sequence[Sequence[int]]) -> list[int]:
    """``children - 1`` of every internal node of a taxonomy (``Taxonomy.children``)."""
    return [len(c) - 1 for c in children if len(c) > 1]


__all__ = ["cut_sizes", "most_leaves", "taxonomy_gains"]
