"""What Compare may read about a run, and the Monte-Carlo job it starts (Qt-free): the decisions the Compare
panel used to make itself.

Privacy: a release (or a project in release mode) is compared only through data-independent figures, the
noise scales of the released tree applied to public queries ("noise only"); the data is never read. Only a
teaching run of a teaching project may read the true counts (``reads_true_counts``), and then the figures are
marked as a simulation, never part of a release."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dpstudio.model.compare import comparison as cmp

HISTOGRAM, TABLE = "histogram", "table"


def result_kind(result: Any) -> str | None:
    """``"histogram"`` (an interval tree's plan), ``"table"`` (a DiffGen-family release) or None.

    Asked of the class: ``hasattr(result, "leaf_labels")`` built every leaf's labels (a cached property), in
    the GUI thread's pass at a large run's end."""
    if result is None:
        return None
    if hasattr(result, "plan") and hasattr(result.plan, "tree"):
        return HISTOGRAM
    if hasattr(type(result), "leaf_labels") or "leaf_labels" in getattr(result, "__dict__", {}):
        return TABLE
    return None


def reads_true_counts(project: Any) -> bool:
    """True only when the project is in teaching mode and its last run was a teaching run (a release kept
    after switching to teaching is still compared by its noise alone)."""
    return bool(getattr(project, "teaching", False)) and getattr(project, "run_teaching", None) is not False


def phase(progress: Callable | None, start: int, end: int, what: str) -> Callable | None:
    """``progress(done, total, text)`` of one phase of a job, mapped onto ``start``..``end`` of a 0..100 bar
    (so the bar never runs backwards when the next phase starts); None passes through."""
    if progress is None:
        return None

    def report(done, total, text=""):
        frac = min(max(done / total, 0.0), 1.0) if total else 0.0
        return progress(int(start + (end - start) * frac), 100, text or what)

    return report


def monte_carlo_job(project: Any, result: Any, sizes, runs: int, seed: int) -> Callable[[Callable | None], Any]:
    """The job ``job(progress)`` of ``runs`` Monte-Carlo runs of ``result`` (ValueError when there is no run
    to compare):

    - a histogram: the plan's noise on public ranges of ``sizes`` bins (``histogram_monte_carlo``);
    - a table compared by its noise alone (``reads_true_counts`` False): (analytic, Monte-Carlo) curves of
      the noise scales on public boxes of the declared domain; the data is not read;
    - a teaching table run: the true counts are read (with progress, in the worker) and the Monte-Carlo
      errors against them come with the exact variances, (analytic, Monte-Carlo)."""
    kind = result_kind(result)
    if kind == HISTOGRAM:
        plan = result.plan

        def histogram_job(progress):
            return cmp.histogram_monte_carlo(plan, sizes, runs=runs, seed=seed, progress=progress)

        return histogram_job
    if kind != TABLE:
        raise ValueError("no run to compare: run an algorithm first")
    domain = cmp.public_domain(result, project.taxonomies)
    if not reads_true_counts(project):

        def noise_only_job(progress):
            return cmp.noise_only_curves(
                cmp.diffgen_noise_only(result, domain, runs=runs, seed=seed, progress=progress)
            )

        return noise_only_job

    def teaching_job(progress):
        from dpstudio.model.release.runs import encode_table

        data = encode_table(project, phase(progress, 0, 20, "reading the true counts"))
        res = cmp.diffgen_error_by_size(
            data,
            result,
            float(result.count_epsilon),
            runs=runs,
            seed=seed,
            progress=phase(progress, 20, 100, "Monte-Carlo"),
            domain=domain,
            size="domain",
            edges=cmp.DOMAIN_EDGES,
        )
        exact = cmp.diffgen_noise_only(result, domain, runs=0)  # drawn dashed beside the runs
        return cmp.noise_only_curves(exact)[0], cmp.diffgen_curves(res)

    return teaching_job
