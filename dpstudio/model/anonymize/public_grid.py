"""A numeric quasi-identifier without a drawn taxonomy, generalised on a public grid (Qt-free).

A full-domain anonymization (Samarati, Incognito, the optimal search) generalises each quasi-identifier along
a taxonomy. A numeric attribute with declared public bounds but no drawn taxonomy (a DP run needs only its
bounds) gets one here: ``GRID_FANOUT ** GRID_DEPTH`` equal-width intervals over its public bounds, halved
level by level up to the whole range (``core.taxonomy_generators.numeric_equal_width``; whole-number edges
for an integer attribute). It is built from the bounds alone, never from the data, and carries their
provenance; a drawn taxonomy always takes precedence.
"""

from __future__ import annotations

from dpstudio.core import taxonomy_generators as tg

GRID_FANOUT = 2
GRID_DEPTH = 4  # 16 intervals at the finest level


def grid_taxonomies(project, attributes) -> dict:
    """{attribute: taxonomy} for each of ``attributes`` that is numeric, has public bounds and no taxonomy."""
    from dpstudio.model.project.project import NUMERIC

    out = {}
    for a in attributes:
        if a in project.taxonomies or project.types.get(a) != NUMERIC or a not in project.bounds:
            continue
        lo, hi = project.bounds[a]
        kind = project.numeric_types.get(a)
        integer = getattr(kind, "kind", kind) == "integer"
        depth = GRID_DEPTH
        if integer:  # no interval narrower than one whole number
            while depth > 1 and (hi - lo) < GRID_FANOUT**depth:
                depth -= 1
        tax = tg.numeric_equal_width(lo, hi, GRID_FANOUT, depth, a, integer=integer)
        # what the sidecar states of it (model.anonymize.job): built from the public bounds only
        words = (
            f"no drawn taxonomy: {len(tax.leaves)} equal-width intervals over the public bounds [{lo:g}, {hi:g}), "
            "halved up to the whole range"
        )
        setattr(tax, "public_grid", words)  # noqa: B010 (an attribute Taxonomy does not declare)
        out[a] = tax
    return out


def grid_words(project, attribute: str) -> str:
    """How a quasi-identifier without a drawn taxonomy is generalised, in words ('' when it has one or none)."""
    grid = grid_taxonomies(project, [attribute]).get(attribute)
    return "" if grid is None else str(getattr(grid, "public_grid", ""))
