"""From a project to a run (Qt-free): code the table for the engines and build the event generator.

``prepare_run(project)`` codes and checks the inputs (nothing spent) and returns the ``PreparedRun`` whose
events the run session (``model.release.session``) starts once the spend is settled; the studio may run a
prepared run in a separate process (``model.run_process``). Everything that can be wrong with the inputs is raised here, before any budget is spent, as a
``RunInputError`` saying what to fix (no data, no class, uncovered values, values outside the public
bounds, missing numbers...).

What is public and what is private: taxonomies, bounds, declared numeric kinds (``numeric_types``), bin
edges and the class values come from the project (public inputs; a release run refuses undeclared classes, a
teaching run takes the data's own). The coded record arrays are private and stay in memory. Missing values follow the project's
choice: "drop" removes rows with a missing value in a used attribute (quasi-identifiers and class);
"keep" makes missing a category of its own, written as the project's missing-value token (the file's own, '?'
by default, as in the CLI), which the taxonomy must then cover; a numeric
attribute cannot keep missing values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from dpstudio.algorithms.registry import ENGINE_NAMES as HISTOGRAM_NAMES  # histogram id -> engine name
from dpstudio.io.datasets import missing_as_token
from dpstudio.model.numbers import bound_text
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.project import DROP_MISSING, NUMERIC, QUASI_IDENTIFIER, RELEASE, Project, RunSetup
from dpstudio.model.release.budget_plan import TABLE_PRESETS  # algorithm id -> engine preset


class RunInputError(ValueError):
    """The project is not ready to run; the message says what to fix."""


def used_frame(project: Project, columns: list[str]):
    """The project's records restricted to ``columns`` with the missing-value choice applied (in memory
    only: a table read through an engine has no records here; see ``used_counts``)."""
    if project.has_data and project.frame is None:
        raise RunInputError(
            "this needs the records in memory, and the table is read through DuckDB (it is "
            "larger than memory allows): open a smaller extract for it"
        )
    return used_counts(project, columns)[0]


def used_counts(project: Project, columns: list[str], progress=None):
    """(rows, records per row or None): the project's data restricted to ``columns`` with the missing-value
    choice applied. In memory the rows are the records (weights None); a table read through an engine gives
    the distinct combinations of ``columns`` with their counts (``EngineTable.group_counts``: one pass, or none
    for one column; ``progress(done, total, what)`` follows it and cancels it), which every algorithm takes as
    weighted records."""
    if not project.has_data:
        raise RunInputError("no data is loaded: open a file in the Data panel")
    weights = None
    if project.frame is None:
        from dpstudio.io.datasets import Cancelled, DatasetError
        from dpstudio.io.engines import EngineError

        try:
            sub, weights = project.dataset.group_counts(columns, progress)
        except Cancelled:
            raise
        except (EngineError, DatasetError) as exc:
            raise RunInputError(str(exc)) from None
    else:
        sub = project.frame[columns]
    if project.missing == DROP_MISSING:
        keep = sub.notna().all(axis=1).to_numpy()
        sub = sub.loc[keep]
        weights = None if weights is None else weights[keep]
        if sub.empty:
            raise RunInputError(
                "every row has a missing value in a used attribute: nothing is left after "
                "dropping them (choose 'keep' or fewer attributes)"
            )
        return sub, weights
    fill = []
    for c in columns:
        isna = sub[c].isna()
        if not isna.any():
            continue
        if project.types.get(c) == NUMERIC:
            n = int(isna.sum() if weights is None else weights[isna.to_numpy()].sum())
            raise RunInputError(
                f"{c} is numeric and has {n} missing values: numbers have "
                "no 'missing' category; choose 'drop' in the Data panel"
            )
        fill.append(c)
    return missing_as_token(sub, project.missing_token, fill), weights


def _missing_domains(project: Project, qis: list[str]) -> str:
    """One message naming every quasi-identifier without its public domain ("" when none lacks one)."""
    no_tax = [a for a in qis if project.types.get(a) != NUMERIC and a not in project.taxonomies]
    no_bounds = [a for a in qis if project.types.get(a) == NUMERIC and a not in project.bounds]
    parts = []
    if no_tax:
        parts.append(
            f"{len(no_tax)} attribute{'s have' if len(no_tax) > 1 else ' has'} no taxonomy "
            f"({', '.join(no_tax)}; Taxonomy panel)"
        )
    if no_bounds:
        parts.append(
            f"{len(no_bounds)} numeric attribute{'s need' if len(no_bounds) > 1 else ' needs'} "
            f"public bounds ({', '.join(no_bounds)}; Data panel)"
        )
    return "; ".join(parts) + (" (or set them to ignore in the Data panel)" if parts else "")


def encode_table(project: Project, progress=None):
    """A ``DiffGenInput`` from the project's quasi-identifiers, class, taxonomies and bounds.

    The project's own checks (roles, bounds, taxonomy kinds) are made here; the coding itself is
    ``dpstudio.io.encoding.encode_table``, the one encoder the CLI uses too (same rules and messages)."""
    from dpstudio.io.encoding import EncodingError
    from dpstudio.io.encoding import encode_table as encode_frame

    qis = project.attributes(QUASI_IDENTIFIER)
    cls = project.class_attribute
    if not qis:
        raise RunInputError("no attribute is a quasi-identifier (set roles in the Data panel)")
    if cls is None:
        raise RunInputError("no attribute is the class (set roles in the Data panel)")
    missing = _missing_domains(project, qis)
    if missing:
        raise RunInputError(missing)
    taxonomies, bounds = {}, {}
    for a in qis:
        tax = project.taxonomies.get(a)
        if project.types.get(a) == NUMERIC:
            bounds[a] = tuple(float(v) for v in project.bounds[a])
            if tax is not None:
                taxonomies[a] = tax  # its cut points inside the bounds are the public split grid
        else:
            assert tax is not None  # _missing_domains refused a categorical attribute without a taxonomy
            if tax.is_numeric:
                raise RunInputError(
                    f"{a} is categorical but its taxonomy is made of intervals; make {a} "
                    "numeric in the Data panel or import a categorical taxonomy"
                )
            taxonomies[a] = tax
    types = {a: project.numeric_types[a] for a in bounds if a in project.numeric_types}
    if project.classes is None and project.mode == RELEASE:
        raise RunInputError(
            f"the class values of {cls} are not declared: a release lists exactly the public "
            "classes, so declare every value the class can take (Data panel, Class values) before a release run"
        )
    sub, weights = used_counts(project, qis + [cls], progress)
    try:
        sources = {
            a: f"the cut points of the taxonomy of {a} ({project.provenance_of(pv.key(pv.TAXONOMY, a)).source})"
            for a in bounds
            if a in taxonomies
        }
        return encode_frame(
            sub, cls, taxonomies, bounds, classes=project.classes, types=types, grid_sources=sources, weights=weights
        )
    except (EncodingError, ValueError) as exc:
        raise RunInputError(str(exc)) from None


def histogram_attribute(project: Project) -> str | None:
    """The attribute a histogram bins when none is named (``Project.histogram_attribute``)."""
    return project.histogram_attribute()


DEFAULT_BINS = 256
MAX_INTEGER_BINS = 4096  # one bin per whole number up to this many


def integer_kind(project: Project, attribute: str) -> bool:
    """The attribute's numeric kind is integer: declared, or the default from whole-number public bounds."""
    kind = project.numeric_types.get(attribute) or project.default_numeric_type(attribute)
    return str(kind).startswith("integer")


def default_bins(project: Project, attribute: str | None = None) -> int:
    """The histogram's default number of bins, from public inputs only: one bin per whole number when the
    attribute is integer with whole-number bounds [lo, hi) and hi - lo <= MAX_INTEGER_BINS (age [17, 91): 74
    bins, one per year), else DEFAULT_BINS."""
    if attribute is None:
        attribute = histogram_attribute(project)
    if attribute is None or attribute not in project.bounds or not integer_kind(project, attribute):
        return DEFAULT_BINS
    lo, hi = (float(v) for v in project.bounds[attribute])
    span = hi - lo
    return int(span) if lo.is_integer() and hi.is_integer() and 2 <= span <= MAX_INTEGER_BINS else DEFAULT_BINS


def histogram_counts(
    project: Project, attribute: str | None, bins: int, progress=None
) -> tuple[np.ndarray, np.ndarray, str]:
    """(counts, edges, attribute): equal-width bins over the public bounds of a numeric attribute."""
    if attribute is None:
        attribute = histogram_attribute(project)
        if attribute is None:
            raise RunInputError("a histogram needs a numeric quasi-identifier with public bounds (Data panel)")
    if project.types.get(attribute) != NUMERIC or attribute not in project.bounds:
        raise RunInputError(f"{attribute} needs to be numeric with public bounds for a histogram")
    bins = int(bins)
    if bins < 1:
        raise RunInputError("the number of bins must be at least 1")
    lo, hi = project.bounds[attribute]
    sub, weights = used_counts(project, [attribute], progress)
    values = sub[attribute].to_numpy(dtype=float)
    outside = (values < lo) | (values >= hi)
    if outside.any():
        n = int(outside.sum() if weights is None else weights[outside].sum())
        raise RunInputError(
            f"{attribute}: {n} row(s) lie outside the public bounds [{bound_text(lo)}, {bound_text(hi)})"
        )
    edges = np.linspace(lo, hi, bins + 1)
    idx = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, bins - 1)
    return np.bincount(idx, weights=weights, minlength=bins).astype(np.int64), edges, attribute


def run_plan(project: Project):
    """The budget split the run will use (``Project.plan()``: the one drawn in the Algorithm panel or set with
    ``api.Study.set_split`` when it fits the algorithm, else the algorithm's default) and the parameters it
    is planned from; RunInputError, before any spend, when it cannot be planned."""
    try:
        return project.plan(), project.plan_params()
    except ValueError as exc:
        raise RunInputError(str(exc)) from None


def table_engine_params(algorithm: str, params: dict, epsilon, n_numeric: int):
    """The DiffGen engine's parameters of a table run, from the algorithm's parameters (and the engine
    options a front end sets) and the split it uses: the one drawn in the Algorithm panel
    (``budget_split``) when it fits, else the default, as explicit fractions (the ledger shows exactly those
    shares). ``n_numeric``: the numeric quasi-identifiers (public: their kinds are declared). RunInputError,
    before any spend, when the split cannot run."""
    from dpstudio.model.release import budget_plan as bp

    params = {"numeric_attributes": n_numeric, **params}
    try:
        plan = bp.saved_plan(algorithm, params, epsilon)
    except ValueError as exc:
        raise RunInputError(str(exc)) from None
    try:
        return bp.engine_params(algorithm, params, epsilon, plan)
    except ValueError as exc:
        raise RunInputError(f"the budget split cannot run: {exc}") from None


@dataclass(frozen=True)
class PreparedRun:
    """A run whose inputs passed every check and nothing is spent yet: ``engine(*args, noise, ledger,
    teaching=...)`` is its event generator once ``Project.start_run`` has handed out the noise and the ledger.
    ``rows``: how many records it reads (decides whether the studio runs it in a separate process)."""

    engine: Callable[..., Iterator]
    args: tuple
    rows: int

    def events(self, setup: RunSetup) -> Iterator:
        return self.engine(*self.args, setup.noise, setup.ledger, teaching=setup.teaching)


#: the most leaf partitions a studio or API table run may reach (``algorithms.diffgen_size``): a tree this
#: large takes several gigabytes in the engine and the Watch; ``$DPSTUDIO_MAX_LEAVES`` raises it
MAX_LEAVES = 1_000_000


def tree_size_problem(project: Project, steps: int) -> tuple[str, str | None] | None:
    """(why, the attribute to give more levels or None) when the tree of ``steps`` specializations could have
    more than ``MAX_LEAVES`` leaf partitions: an upper bound from the taxonomies and the numeric attributes,
    public inputs only (``algorithms.diffgen_size``); None when it fits."""
    import os

    from dpstudio.algorithms.diffgen_size import most_leaves, taxonomy_gains

    limit = MAX_LEAVES
    raw = os.environ.get("DPSTUDIO_MAX_LEAVES", "").strip()
    if raw:
        try:
            limit = max(int(raw), 1)
        except ValueError:
            raise RunInputError(f"DPSTUDIO_MAX_LEAVES must be a whole number, got {raw!r}") from None
    widest: dict[str, int] = {}
    gains: list[list[int] | None] = []
    for a in project.attributes(QUASI_IDENTIFIER):
        tax = project.taxonomies.get(a)
        if tax is None:
            gains.append(None if project.types.get(a) == NUMERIC else [])
            continue
        g = taxonomy_gains(tax.children)
        gains.append(g)
        widest[a] = max(g, default=0) + 1
    bound = most_leaves(gains, steps)
    if bound <= limit:
        return None
    wide = sorted((a for a in widest if widest[a] >= 8), key=lambda a: -widest[a])[:3]
    it = "it" if len(wide) == 1 else "them"
    why = (
        ": "
        + "; ".join(f"{a} has a level of {widest[a]} values under one node" for a in wide)
        + f" (one specialization multiplies the partitions by that many): give {it} more levels (the Taxonomy "
        "panel's Two levels groups the values), or use fewer refinement steps"
        if wide
        else ": use fewer refinement steps"
    )
    text = (
        f"with {steps} refinement steps (h) the tree could reach {bound:,} partitions, more than the {limit:,} a "
        "run here can "
        f"hold in memory (every partition is kept, empty or not){why}"
    )
    return text, (wide[0] if wide else None)


def check_tree_size(project: Project, steps: int) -> None:
    """RunInputError, before anything is read or spent, when the tree could not fit (``tree_size_problem``)."""
    found = tree_size_problem(project, steps)
    if found is not None:
        raise RunInputError(f"{found[0]}. Nothing was read or spent")


def prepare_run(project: Project, progress=None) -> PreparedRun:
    """Code the inputs of the project's algorithm and check them; raises RunInputError before any spend.

    The run uses the split drawn in the Algorithm panel (``run_plan``): its shares become the engine's
    explicit budget parameters, so the ledger shows exactly the drawn shares."""
    from dpstudio.model.release import budget_plan as bp

    name = project.algorithm
    if name in TABLE_PRESETS:
        from dpstudio.algorithms.diffgen import run_diffgen

        params = project.plan_params()  # with the count of numeric quasi-identifiers
        dg = table_engine_params(name, params, project.epsilon, params["numeric_attributes"])
        check_tree_size(project, int(dg.steps))  # public inputs only: before the data is read
        data = encode_table(project, progress)
        return PreparedRun(run_diffgen, (data, dg), project.n_rows)
    if name in HISTOGRAM_NAMES:
        from dpstudio.algorithms.interval_trees import plan_interval_tree, run_interval_tree

        params = dict(project.params or {})
        bins = params.get("bins") or default_bins(project, params.get("attribute"))
        try:
            bins = int(bins)
        except (TypeError, ValueError):
            raise RunInputError(f"the number of bins must be a whole number, got {bins!r}") from None
        counts, edges, _attr = histogram_counts(project, params.get("attribute"), bins, progress)
        plan, params = run_plan(project)
        try:
            it = bp.tree_params(name, params, project.epsilon, plan, edges=tuple(float(e) for e in edges))
            plan_interval_tree(counts.size, it)  # shape, budgets and split checked before any spend
        except ValueError as exc:
            raise RunInputError(str(exc)) from None
        return PreparedRun(run_interval_tree, (counts, it), project.n_rows)
    raise RunInputError(f"unknown algorithm {name!r}")


__all__ = [
    "MAX_LEAVES",
    "PreparedRun",
    "check_tree_size",
    "tree_size_problem",
    "RunInputError",
    "default_bins",
    "encode_table",
    "histogram_attribute",
    "histogram_counts",
    "prepare_run",
    "run_plan",
    "table_engine_params",
    "used_counts",
    "used_frame",
]
