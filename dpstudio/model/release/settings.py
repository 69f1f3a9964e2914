"""A finished run's settings as ``dpstudio.io.reproduce.ReleaseSettings`` (the Export panel writes the
equivalent command line and Python script from them).

Public inputs only: the data file's path, the class and its declared values, the taxonomies, bounds and
declared numeric kinds, the missing-value choice, the budget store's dataset name, and the engine
parameters the run used (``result.params``); the bin edges of a histogram (equal-width over the public
bounds). Nothing read from the records.
"""

from __future__ import annotations

from dpstudio.algorithms.registry import AUTO_STEPS
from dpstudio.io.reproduce import ReleaseSettings


def release_settings(
    snapshot, result, budget: dict | None = None, store: str | None = None, python: str | None = None
) -> ReleaseSettings:
    """The settings of the run whose inputs ``snapshot`` froze (``model.release.snapshot.RunSnapshot``) and
    whose result is ``result``; ``budget`` is its budget store record (the dataset's name), ``store`` the store
    it was charged to (a path, or "none"), ``python`` the interpreter the re-run starts dpstudio with."""
    s, r = snapshot, result
    data = s.data_path or "DATA.csv"
    missing = "keep" if s.missing == "keep" else "drop"
    name = budget.get("dataset") if budget else None
    if hasattr(r.params, "noise_root"):  # an interval tree
        edges = tuple(float(e) for e in r.params.edges) if r.params.edges is not None else None
        return ReleaseSettings(
            data,
            r.params,
            column=s.histogram_attribute,
            edges=edges,
            missing=missing,
            missing_token=s.missing_token,
            dataset_name=name,
            budget_store=store,
            python=python,
        )
    taxonomies = {a: t for a, t in s.taxonomies.items() if a not in s.numeric or t.is_numeric}
    steps = int(s.params.get("steps", AUTO_STEPS))
    return ReleaseSettings(
        data,
        r.params,
        class_attribute=s.class_attribute,
        classes=[str(c) for c in r.classes],
        taxonomies=taxonomies,
        bounds=dict(s.bounds),
        types=dict(s.numeric_types),
        automatic_steps=steps == AUTO_STEPS,
        n_numeric=len(s.numeric),
        missing=missing,
        missing_token=s.missing_token,
        dataset_name=name,
        budget_store=store,
        python=python,
    )
