"""The studio's Anonymize mode without Qt: settings, a run as an event generator, its outcome, a lattice
node's details, export, and the neighbour contrast of SYNTACTIC.md K11.

Syntactic anonymization (k-anonymity, l-diversity, t-closeness; full-domain searches and Mondrian) is NOT
differentially private: the outcome is a deterministic function of the data, it holds exact counts (classes,
suppressed rows, class sizes), it draws no noise, spends no epsilon and is not charged to the budget store.
Every result and export carries ``io.anonymize.LABEL``. The computation is the one ``dpstudio anonymize``
runs (the same ``io.anonymize`` coding and tables, the same searches), so the studio and the CLI agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from dpstudio.algorithms.fulldomain import MONOTONE_SEARCHES, SEARCHES, Evaluator, NodeResult, Problem, SearchResult
from dpstudio.algorithms.mondrian import allowed_cut, run_mondrian
from dpstudio.core import syntactic_metrics as sm
from dpstudio.core.events import Progress, RunFinished
from dpstudio.core.syntactic_models import LDiversity, TCloseness
from dpstudio.io.anonymize import (
    LABEL,
    AnonymizeError,
    encode,
    generalized_table,
    kept_rows,
    mondrian_input,
    mondrian_table,
    with_tree,
    write_outputs,
)
from dpstudio.io.datasets import missing_as_token

ALGORITHMS = ("optimal", "samarati", "incognito", "mondrian-strict", "mondrian-relaxed")
LATTICE_ALGORITHMS = ("optimal", "samarati", "incognito")
METRICS = ("dm", "dm-star", "entropy", "cm", "avg", "loss")
MONDRIAN_METRICS = ("dm", "dm-star", "avg", "cm")
L_KINDS = ("distinct", "entropy", "recursive")
T_KINDS = ("equal", "ordered", "hierarchical")


@dataclass(frozen=True)
class AnonymizeSettings:
    """What a run uses. ``l_diversity``: (kind, l, c) or None; ``t_closeness``: (kind, t) or None; both on
    ``sensitive``. ``suppression``: the limit x in [0, 1), MaxSup = floor(x n) rows (K1)."""

    qi: tuple[str, ...]
    k: int
    algorithm: str = "optimal"
    metric: str = "dm"
    suppression: float = 0.0
    sensitive: str | None = None
    l_diversity: tuple | None = None
    t_closeness: tuple | None = None
    class_attr: str | None = None
    tie: str = "one-majority"
    #: t-closeness's own sensitive attribute (None: ``sensitive``, the one l-diversity protects)
    t_sensitive: str | None = None
    #: the value a kept missing cell takes (the project's missing-value token: the file's own, '?' by default)
    missing_token: str = "?"

    def models(self) -> tuple:
        out: list[LDiversity | TCloseness] = []
        if self.l_diversity is not None:
            assert self.sensitive is not None, "l-diversity needs its sensitive attribute"
            kind, l_value, c = self.l_diversity
            out.append(LDiversity(kind, l_value, self.sensitive, c))
        if self.t_closeness is not None:
            kind, t = self.t_closeness
            sensitive = self.t_sensitive or self.sensitive
            assert sensitive is not None, "t-closeness needs its sensitive attribute"
            out.append(TCloseness(kind, t, sensitive))
        return tuple(out)

    @property
    def mondrian(self) -> bool:
        return self.algorithm.startswith("mondrian")

    def check(self, frame: pd.DataFrame, taxonomies: dict) -> None:
        """AnonymizeError (one line) for settings no run can use; the rules of ``dpstudio anonymize``."""
        if self.algorithm not in ALGORITHMS:
            raise AnonymizeError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {self.algorithm!r}")
        if not self.qi:
            raise AnonymizeError("choose at least one quasi-identifier")
        if int(self.k) != self.k or self.k < 1:
            raise AnonymizeError(f"k must be a whole number >= 1, got {self.k}")
        if not 0 <= self.suppression < 1:
            raise AnonymizeError(f"the suppression limit must be in [0, 1), got {self.suppression}")
        models = self.models()
        if any(not m.attribute for m in models):
            raise AnonymizeError("l-diversity and t-closeness need a sensitive attribute")
        if any(m.attribute in self.qi for m in models):
            raise AnonymizeError("the sensitive attribute cannot also be a quasi-identifier")
        if self.mondrian:
            if self.metric not in MONDRIAN_METRICS:
                raise AnonymizeError(
                    f"metric {self.metric} needs a full-domain node; Mondrian reports {', '.join(MONDRIAN_METRICS)}"
                )
            if self.suppression:
                raise AnonymizeError("Mondrian does not suppress rows: set the suppression limit to 0")
        else:
            if self.algorithm in MONOTONE_SEARCHES and any(
                isinstance(m, TCloseness) or m.kind == "recursive" for m in models
            ):
                raise AnonymizeError(
                    f"{self.algorithm} prunes by monotonicity, which t-closeness and recursive "
                    "l-diversity with suppression do not have: use optimal"
                )
            missing = [a for a in self.qi if a not in taxonomies]
            if missing:
                raise AnonymizeError(
                    f"quasi-identifier {missing[0]!r} has no taxonomy (give it one in the Taxonomy panel)"
                )
        if self.metric == "cm" and not self.class_attr:
            raise AnonymizeError("the cm metric needs a class attribute")
        absent = [c for c in self.used() if c not in frame.columns]
        if absent:
            raise AnonymizeError(f"{absent[0]!r} is not a column of the data")

    def used(self) -> list[str]:
        extras = [m.attribute for m in self.models()] + ([self.class_attr] if self.class_attr else [])
        return list(dict.fromkeys([*self.qi, *extras]))

    def extras(self) -> list[str]:
        return [c for c in self.used() if c not in self.qi]


@dataclass
class AnonymizeOutcome:
    """One run's result. ``sizes``: the released class sizes (suppressed classes left out); ``search``: the
    lattice search (None for Mondrian); ``table``: the anonymized table as exported (first column
    ``not_a_dp_release``); ``sidecar``: what export writes beside it; ``kept``: per prepared input row,
    not suppressed (the table's rows are the kept ones, in input order)."""

    settings: AnonymizeSettings | None  # None for a run of ``dpstudio anonymize``
    metric: float
    classes: int
    suppressed: int
    sizes: np.ndarray
    table: pd.DataFrame
    sidecar: dict
    search: SearchResult | None = None
    levels: tuple[int, ...] | None = None
    kept: np.ndarray | None = None
    label: str = LABEL
    _problem: Problem | None = field(default=None, repr=False)

    def size_histogram(self) -> tuple[np.ndarray, np.ndarray]:
        """(class size, how many classes have it), sizes ascending."""
        values, counts = np.unique(self.sizes, return_counts=True)
        return values, counts

    def node(self, levels) -> NodeResult:
        """Evaluate one lattice node (clicked in the lattice view): satisfies, suppressed rows, classes,
        metric, from the run's coded data (exact; no noise)."""
        if self._problem is None:
            raise AnonymizeError("Mondrian has no lattice")
        levels = tuple(int(v) for v in levels)
        heights = self._problem.data.heights
        if len(levels) != len(heights) or any(not 0 <= v <= h for v, h in zip(levels, heights)):
            raise AnonymizeError(f"{levels} is not a node of the lattice (heights {heights})")
        return Evaluator(self._problem).evaluate(levels)

    @property
    def heights(self) -> tuple[int, ...] | None:
        return None if self._problem is None else self._problem.data.heights


def prepare(frame: pd.DataFrame, settings: AnonymizeSettings, missing: str = "drop") -> tuple[pd.DataFrame, int]:
    """The used columns with missing values dropped (``drop``) or kept as ``settings.missing_token``
    (``keep``; the same token as a DP run of the same project); returns (table, rows dropped)."""
    sub = frame[settings.used()]
    if missing == "drop":
        kept = sub.loc[~sub.isna().any(axis=1)].reset_index(drop=True)
        return kept, len(sub) - len(kept)
    return missing_as_token(sub, settings.missing_token).reset_index(drop=True), 0


def checked_models(models, taxonomies: dict, extras: dict) -> tuple:
    """The models with their taxonomy trees (hierarchical t-closeness). ``extras``: sensitive attribute ->
    (codes, domain size). AnonymizeError for an l larger than the sensitive attribute's domain."""
    models = tuple(with_tree(m, taxonomies) for m in models)
    for m in models:
        if isinstance(m, LDiversity) and m.l > extras[m.attribute][1]:
            raise AnonymizeError(
                f"l-diversity: l = {m.l:g} is larger than the domain of {m.attribute!r} "
                f"({extras[m.attribute][1]} values)"
            )
    return models


def mondrian_run(table_in: pd.DataFrame, qi: list[str], taxonomies: dict, k: int, mode: str, models=()):
    """Mondrian (strict or relaxed) on the prepared table, a cut allowed only when both halves keep k rows
    and every l-diversity / t-closeness model (LeFevre et al.). Yields PartitionCut per cut and
    RunFinished(MondrianResult). Mondrian suppresses nothing, so a table failing a model as a whole has no
    output: AnonymizeError (one line). Exact and deterministic; no noise, no budget."""
    hier = tuple(m.attribute for m in models if isinstance(m, TCloseness) and m.kind == "hierarchical")
    sensitive = list(dict.fromkeys(m.attribute for m in models))
    extras = encode(table_in, [], taxonomies, sensitive, hier)[0].extras if models else {}
    models = checked_models(models, taxonomies, extras)
    whole = np.arange(len(table_in))
    if models and not allowed_cut(1, models, extras, len(whole))(whole, whole):  # both "halves": the table
        raise AnonymizeError(
            "the whole table fails the l-diversity / t-closeness model: Mondrian suppresses "
            "nothing, so it has no output (lower l, raise t, or use a lattice search)"
        )
    yield from run_mondrian(mondrian_input(table_in, qi, taxonomies), k, mode, models, extras)


def run_anonymize(
    frame: pd.DataFrame, taxonomies: dict, settings: AnonymizeSettings, missing: str = "drop", source: str = "studio"
):
    """Run ``settings`` on ``frame``; yields the search's events and finally RunFinished(AnonymizeOutcome).
    Bad input raises AnonymizeError with one line."""
    settings.check(frame, taxonomies)
    table_in, dropped = prepare(frame, settings, missing)
    if len(table_in) < settings.k:
        raise AnonymizeError(f"the table has fewer rows than k = {settings.k}: no k-anonymous output exists")
    params: dict = {
        "data": source,
        "qi": list(settings.qi),
        "k": settings.k,
        "l_diversity": settings.l_diversity,
        "t_closeness": settings.t_closeness,
        "sensitive": settings.sensitive,
        **({"t_sensitive": settings.t_sensitive} if settings.t_sensitive else {}),
        "suppression": settings.suppression,
        "algorithm": settings.algorithm,
        "metric": settings.metric,
        "class": settings.class_attr,
        "tie": settings.tie,
        "missing": missing,
    }
    grids = {a: getattr(taxonomies[a], "public_grid", "") for a in settings.qi if a in taxonomies}
    if any(grids.values()):  # numeric quasi-identifiers generalised on a public grid (model.anonymize.public_grid)
        params["public_grids"] = {a: words for a, words in grids.items() if words}
    yield from anonymize_table(
        table_in,
        taxonomies,
        list(settings.qi),
        settings.k,
        settings.models(),
        algorithm=settings.algorithm,
        metric=settings.metric,
        suppression=settings.suppression,
        class_attr=settings.class_attr,
        tie=settings.tie,
        params=params,
        dropped=dropped,
        settings=settings,
    )


def anonymize_table(
    table_in: pd.DataFrame,
    taxonomies: dict,
    qi: list[str],
    k: int,
    models=(),
    *,
    algorithm: str = "optimal",
    metric: str = "dm",
    suppression: float = 0.0,
    class_attr: str | None = None,
    tie: str = "one-majority",
    params: dict,
    dropped: int = 0,
    settings: AnonymizeSettings | None = None,
    suppression_hint: str = "the suppression limit",
):
    """The run shared by the studio and ``dpstudio anonymize``, on a prepared table (missing values handled,
    at least k rows) with checked options. ``models``: l-diversity / t-closeness models (each on its own
    sensitive attribute); ``params``: the sidecar's parameters; ``dropped``: rows dropped for missing
    values. Yields the search's events, then RunFinished(AnonymizeOutcome). Exact, no noise, no budget."""
    models = tuple(models)
    others = [
        c for c in dict.fromkeys([*(m.attribute for m in models), *([class_attr] if class_attr else [])]) if c not in qi
    ]
    run = _RunFacts(params, dropped, settings, suppression_hint, others)
    if algorithm.startswith("mondrian"):
        yield from _mondrian_run(table_in, taxonomies, qi, k, models, algorithm, metric, class_attr, tie, run)
        return
    yield from _lattice_run(table_in, taxonomies, qi, k, models, algorithm, metric, suppression, class_attr, tie, run)


@dataclass(frozen=True)
class _RunFacts:
    """What a run's sidecar and outcome carry beside its result."""

    params: dict
    dropped: int
    settings: AnonymizeSettings | None
    suppression_hint: str
    others: list


def _mondrian_run(table_in, taxonomies, qi, k, models, algorithm, metric, class_attr, tie, run: _RunFacts):
    """Mondrian (global multidimensional recoding): its events, then RunFinished(AnonymizeOutcome)."""
    params, dropped, settings, others = run.params, run.dropped, run.settings, run.others
    mode = algorithm.split("-")[1]
    result = None
    for ev in mondrian_run(table_in, qi, taxonomies, k, mode, models):
        if isinstance(ev, RunFinished):
            result = ev.result
        else:
            yield ev
    assert result is not None, "the Mondrian run ended without its result"
    none = np.zeros(result.classes, dtype=bool)
    value: float
    if metric == "cm":
        assert class_attr is not None, "the classification metric needs the class attribute"
        codes, size = encode(table_in, [], taxonomies, [class_attr])[0].extras[class_attr]
        hist = np.bincount(result.class_of * size + codes, minlength=result.classes * size)
        value = sm.classification(hist.reshape(result.classes, size), none, tie)
    else:
        value = {
            "dm": lambda: sm.discernibility(result.sizes, none),
            "dm-star": lambda: sm.discernibility_star(result.sizes),
            "avg": lambda: sm.average_class_size(len(table_in), result.classes, k),
        }[metric]()
    table = mondrian_table(table_in, qi, taxonomies, result, others)
    side = {
        "parameters": params,
        "recoding": f"global multidimensional (Mondrian, {mode})",
        "metric": {"name": metric, "value": value if isinstance(value, int) else float(value)},
        "classes": result.classes,
        "suppressed": 0,
        "rows": len(table),
        "rows_dropped_missing": dropped,
        "dataset_budget": "not charged: not a DP release",
    }
    yield RunFinished(
        AnonymizeOutcome(
            settings,
            float(value),
            result.classes,
            0,
            np.asarray(result.sizes),
            table,
            side,
            kept=np.ones(len(table_in), dtype=bool),
        )
    )


def _lattice_run(table_in, taxonomies, qi, k, models, algorithm, metric, suppression, class_attr, tie, run: _RunFacts):
    """A full-domain lattice search (optimal, Samarati, Incognito): its events, then
    RunFinished(AnonymizeOutcome)."""
    params, dropped, settings, others = run.params, run.dropped, run.settings, run.others
    suppression_hint = run.suppression_hint
    hier = tuple(m.attribute for m in models if isinstance(m, TCloseness) and m.kind == "hierarchical")
    data, _labels = encode(table_in, qi, taxonomies, others, hier)
    models = checked_models(models, taxonomies, data.extras)
    problem = Problem(data, k, suppression, models, metric, class_attr, tie)
    search = None
    for ev in SEARCHES[algorithm](problem):
        if isinstance(ev, RunFinished):
            search = ev.result
        else:
            yield ev
    assert search is not None, "the search ended without its result"
    if search.chosen is None:
        raise AnonymizeError(
            f"no generalization satisfies the model with at most {problem.max_sup} suppressed "
            f"rows (raise {suppression_hint} or lower k)"
        )
    ev_ = Evaluator(problem)
    fs = ev_.frequency_set(search.chosen.levels)
    sizes, bad, _, _ = ev_.classes(fs)
    keep = kept_rows(data, fs, bad)
    table = generalized_table(table_in, data, qi, search.chosen.levels, keep, others)
    chosen = search.chosen
    side = {
        "parameters": params,
        "recoding": "global single-dimensional full-domain generalization",
        "levels": dict(zip(qi, chosen.levels)),
        "metric": {"name": metric, "value": chosen.metric},
        "classes": chosen.classes,
        "suppressed": chosen.suppressed,
        "max_suppressed": problem.max_sup,
        "rows": len(table),
        "rows_dropped_missing": dropped,
        "dataset_budget": "not charged: not a DP release",
    }
    if search.enumerated:
        side["lattice"] = {"nodes": search.nodes, "satisfying": len(search.satisfying), "minimal": len(search.minimal)}
    else:
        side["lattice"] = {
            "nodes": search.nodes,
            "heights_probed": search.heights_probed,
            "satisfying_at_min_height": len(search.satisfying),
        }
    yield RunFinished(
        AnonymizeOutcome(
            settings,
            chosen.metric,
            chosen.classes,
            chosen.suppressed,
            np.asarray(sizes[~bad]),
            table,
            side,
            search,
            chosen.levels,
            kept=keep,
            _problem=problem,
        )
    )


def run_to_outcome(frame, taxonomies, settings, missing: str = "drop", source: str = "studio") -> AnonymizeOutcome:
    """Drain ``run_anonymize`` (tests, the neighbour contrast)."""
    out = None
    for ev in run_anonymize(frame, taxonomies, settings, missing, source):
        if isinstance(ev, RunFinished):
            out = ev.result
    assert out is not None, "the run ended without its outcome"
    return out


def run_with_progress(
    frame, taxonomies, settings: AnonymizeSettings, missing: str = "drop", source: str = "studio", every: int = 32
):
    """``run_anonymize`` for the studio's worker: the search's events thinned to a Progress every ``every``
    steps (total: the lattice's nodes; 0 for Mondrian, whose number of cuts is not known ahead), then
    RunFinished(AnonymizeOutcome)."""
    total = 0
    if not settings.mondrian and all(a in taxonomies for a in settings.qi):
        total = int(np.prod([taxonomies[a].height + 1 for a in settings.qi]))
    done = 0
    for ev in run_anonymize(frame, taxonomies, settings, missing, source):
        if isinstance(ev, RunFinished):
            yield ev
            return
        done += 1
        if done % every == 0:
            yield Progress(done, max(total, done) if total else 0, f"{settings.algorithm}: {done:,} steps")


def export(outcome: AnonymizeOutcome, path, overwrite: bool = False):
    """Write the anonymized table and its sidecar through ``io.anonymize.write_outputs`` (atomic; an
    existing file is refused unless ``overwrite``). Returns (csv path, json path)."""
    return write_outputs(outcome.table, outcome.sidecar, path, overwrite)
