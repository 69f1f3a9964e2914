"""What a taxonomy on a numeric attribute does in the chosen algorithm, in words (Qt-free).

A numeric attribute's taxonomy is its public split grid (``core.split_grid``): DiffGen, DiffGen with
consistency and MAXGDDP split its intervals only at the taxonomy's cut points. The interval-tree histograms
do not use it (their bins are equal-width over the public bounds), and the Taxonomy panel says so rather
than let an imported tree look accepted and be ignored.
"""

from __future__ import annotations

from dpstudio.algorithms import registry
from dpstudio.core.split_grid import SplitGridError, taxonomy_cut_points
from dpstudio.model.project.project import NUMERIC, Project


def _points(values) -> str:
    shown = [f"{v:g}" for v in values]
    return ", ".join(shown) if len(shown) <= 8 else ", ".join(shown[:4] + ["\u2026"] + shown[-2:])


def grid_note(project: Project, attribute: str) -> tuple[bool, str]:
    """(usable, text) for ``attribute``'s taxonomy; ("", True) when it has none or is not numeric."""
    tax = project.taxonomies.get(attribute)
    if tax is None or project.types.get(attribute) != NUMERIC:
        return True, ""
    try:
        cuts = taxonomy_cut_points(tax)
    except SplitGridError as exc:
        return False, f"This taxonomy cannot be used as split points: {exc}."
    b = project.bounds.get(attribute)
    if b is None:
        return False, (
            f"{attribute} needs public bounds (Data panel) before this taxonomy's cut points "
            f"({_points(cuts)}) can be its split grid."
        )
    cuts = cuts[(cuts > b[0]) & (cuts < b[1])]
    if not cuts.size:
        return False, "No cut point of this taxonomy lies inside the public bounds: the attribute cannot be split."
    name = registry.ALGORITHMS.get(project.algorithm, project.algorithm)
    grid = f"{cuts.size} cut point{'s' if cuts.size != 1 else ''} ({_points(cuts)})"
    if project.algorithm in registry.HISTOGRAM_ALGORITHMS:
        return False, (
            f"{name} does not use this taxonomy: its bins are equal-width over the public bounds. "
            f"DiffGen, DiffGen with consistency and MAXGDDP would split only at its {grid}."
        )
    return True, f"Split points: {name} splits {attribute} only at this taxonomy's {grid}."


__all__ = ["grid_note"]
