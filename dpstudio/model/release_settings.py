"""A finished run's settings as ``dpstudio.io.reproduce.ReleaseSettings`` (the Export panel writes the
equivalent command line and Python script from them).

Public inputs only: the data file's path, the class and its declared values, the taxonomies, bounds and
declared numeric kinds, the missing-value choice, the budget store's dataset name, and the engine
parameters the run used (``result.params``); the bin edges of a histogram (equal-width over the public
bounds). Nothing read from the records.
"""

from __future__ import annotations

from dpstudio.io.reproduce import ReleaseSettings
from dpstudio.model.budget_plan import AUTO_STEPS
from dpstudio.model.project import DROP_MISSING, NUMERIC, QUASI_IDENTIFIER, Project
from dpstudio.model.runs import histogram_attribute


def release_settings(project: Project) -> ReleaseSettings:
    """The settings of ``project``'s last run (its ``result``)."""
    r = project.result
    data = str(project.data_path) if project.data_path is not None else "DATA.csv"
    missing = "drop" if project.missing == DROP_MISSING else "keep"
    name = project.run_budget.get("dataset") if project.run_budget else None
    if hasattr(r.params, "noise_root"):  # an interval tree
        edges = tuple(float(e) for e in r.params.edges) if r.params.edges is not None else None
        column = (project.params or {}).get("attribute") or histogram_attribute(project)
        return ReleaseSettings(data, r.params, column=column, edges=edges, missing=missing, dataset_name=name)
    qis = project.attributes(QUASI_IDENTIFIER)
    numeric = [a for a in qis if project.types.get(a) == NUMERIC]
    taxonomies = {a: project.taxonomies[a] for a in qis if a in project.taxonomies
                  and (a not in numeric or project.taxonomies[a].is_numeric)}
    bounds = {a: tuple(float(v) for v in project.bounds[a]) for a in numeric}
    types = {a: project.numeric_types[a] for a in numeric if a in project.numeric_types}
    steps = int((project.params or {}).get("steps", AUTO_STEPS))
    return ReleaseSettings(data, r.params, class_attribute=project.class_attribute,
                           classes=[str(c) for c in r.classes], taxonomies=taxonomies, bounds=bounds, types=types,
                           automatic_steps=steps == AUTO_STEPS, n_numeric=len(numeric), missing=missing,
                           dataset_name=name)

