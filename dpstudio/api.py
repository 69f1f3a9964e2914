"""dpstudio's Python API: open a table, declare its public inputs, release it, export the files (docs/api.md).

The same code path as the studio, without a window: a ``Study`` holds a ``model.project.Project``; a release
asks the release service's question (``Study.question``), charges the budget store when you pass that question
to ``Study.release`` (and only then creates the secure noise and the ledger), runs the algorithm's event
generator, and freezes the inputs it ran with; ``Release.export`` writes what ran. Nothing here talks to the
budget store, the noise or the ledger itself.

What is public: every value you declare (class values, taxonomies, bounds, numeric kinds, the algorithm and
its parameters, epsilon). Nothing is read from the records to build a domain unless you ask for it with a
``propose_*`` method, and such an input is marked derived from the data: a release refuses to run until you
confirm it with ``confirm_public`` in your own words.

    from dpstudio import api

    study = api.open_table("survey.csv")
    study.declare_class("vote", ["yes", "no"], why="the two answers of the questionnaire")
    study.declare_taxonomy("state", "hierarchies/state.csv")
    study.declare_bounds("age", 18, 99, why="the survey's eligibility range")
    study.choose("diffgen", steps=6)
    question = study.question(epsilon=1.0)
    print(question.text())            # dataset, epsilon, lifetime total, spent, remaining
    release = study.release(question)  # charges the budget store, then runs on secure noise
    release.export("out", "survey")   # survey.csv, .json, .report.html, .command.sh, .reproduce.py
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from dpstudio.algorithms.registry import HISTOGRAM_ALGORITHMS, TABLE_ALGORITHMS
from dpstudio.core.budget import Ledger
from dpstudio.core.taxonomy import Taxonomy
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.project import (
    CATEGORICAL,
    CLASS,
    IGNORE,
    NUMERIC,
    QUASI_IDENTIFIER,
    RELEASE,
    TEACHING,
    Project,
    ProjectError,
)
from dpstudio.model.release import ReleaseQuestion
from dpstudio.model.release.export import export_refusal, write_export
from dpstudio.model.release.runs import RunInputError
from dpstudio.model.release.session import RunSession
from dpstudio.model.release.snapshot import RunSnapshot, snapshot_of

__all__ = [
    "ALGORITHMS",
    "Release",
    "Study",
    "StudyError",
    "free_name",
    "open_sample",
    "open_table",
]

#: algorithm ids: tables ("diffgen", "diffgen-consistent", "maxgddp") and histograms ("flat", "hb", ...)
ALGORITHMS = tuple(TABLE_ALGORITHMS) + tuple(HISTOGRAM_ALGORITHMS)


class StudyError(ValueError):
    """The study cannot do what was asked; the message says what to fix. Nothing was spent."""


def open_table(
    path: str | os.PathLike,
    *,
    encoding: str = "utf-8",
    store: str | os.PathLike | None = None,
    dataset_name: str | None = None,
    lifetime_epsilon: float | str | Fraction | None = None,
) -> Study:
    """A study of the table in ``path`` (CSV/TSV, optionally gzipped, Excel or Parquet).

    ``store``: the budget store file ("none" turns tracking off: experiments only; default:
    ``$DPSTUDIO_BUDGET_STORE`` or the user data folder, shared with the studio and the CLI).
    ``dataset_name`` and ``lifetime_epsilon`` name new data in the store and set its lifetime budget (data the
    store already knows, under any name, keeps its own; see ``Study.raise_lifetime_budget``)."""
    from dpstudio.model.project.data import load_dataset

    path = Path(path)
    try:
        dataset = load_dataset(path, encoding=encoding)
    except (OSError, ValueError) as exc:
        raise StudyError(f"could not open {path}: {exc}") from None
    study = Study(store=store, dataset_name=dataset_name, lifetime_epsilon=lifetime_epsilon)
    study.project.set_data(dataset, path, encoding=encoding)
    return study


def open_sample(
    *,
    store: str | os.PathLike | None = None,
    dataset_name: str | None = None,
    lifetime_epsilon: float | str | Fraction | None = None,
) -> Study:
    """The bundled Adult sample (30,162 rows) with its documented public inputs declared, as the studio opens
    it: column types, the class values of ``salary``, integer kinds, the shipped taxonomies and public bounds."""
    from dpstudio.model.project.data import adopt_bundled_sample, bundled_sample_path, load_bundled_sample

    study = Study(store=store, dataset_name=dataset_name, lifetime_epsilon=lifetime_epsilon)
    adopt_bundled_sample(study.project, load_bundled_sample(), bundled_sample_path())
    return study


def free_name(folder: str | os.PathLike, stem: str) -> Path:
    """``folder/STEM.csv``, or ``STEM-2.csv``, ``STEM-3.csv``, ...: the first name none of whose five release
    files (``Release.export``) exists yet."""
    from dpstudio.model.release.export import release_paths

    n, name = 1, stem
    while any(p.exists() for p in release_paths(folder, name)):
        n += 1
        name = f"{stem}-{n}"
    return Path(folder) / f"{name}.csv"


class Study:
    """One table and its public inputs (see the module docstring). ``project`` is the underlying
    ``model.project.Project``, shared with the studio's model: anything the studio can declare, it can."""

    def __init__(
        self,
        *,
        store: str | os.PathLike | None = None,
        dataset_name: str | None = None,
        lifetime_epsilon: float | str | Fraction | None = None,
    ) -> None:
        self.project = Project()
        self.project.set_mode(RELEASE)
        self.project.account.store = None if store is None else str(store)
        self._name = dataset_name
        self._total = lifetime_epsilon

    # -- the table ------------------------------------------------------------------------------------
    @property
    def columns(self) -> list[str]:
        return list(self.project.columns)

    @property
    def rows(self) -> int:
        """The number of rows read (private: for the data owner, never written to a release)."""
        return self.project.n_rows

    def describe(self) -> str:
        """One line per column: its role and type, and the public inputs declared for it."""
        p = self.project
        lines = []
        for c in p.columns:
            parts = [p.roles.get(c, ""), p.types.get(c, "")]
            if c in p.taxonomies:
                parts.append(f"taxonomy ({p.provenance_of(pv.key(pv.TAXONOMY, c)).source})")
            if c in p.bounds:
                lo, hi = p.bounds[c]
                parts.append(f"bounds {lo:g}..{hi:g}")
            if c == p.class_attribute and p.classes is not None:
                parts.append(f"classes {', '.join(p.classes)}")
            lines.append(f"{c}: " + ", ".join(x for x in parts if x))
        return "\n".join(lines)

    # -- public inputs ----------------------------------------------------------------------------------
    def _do(self, action, *args, **kwargs):
        try:
            return action(*args, **kwargs)
        except StudyError:
            raise
        except (ProjectError, ValueError) as exc:
            raise StudyError(str(exc)) from None

    def declare_class(
        self, attribute: str, values: list[str], *, why: str = "declared in a script", derived: bool = False
    ) -> None:
        """``attribute`` is the class; ``values`` its public values, in release order (``derived``: they were
        read from the data; ``confirm_public`` must then say why they are public knowledge)."""
        self._do(self.project.set_role, attribute, CLASS)
        self._do(self.project.set_type, attribute, CATEGORICAL, why)
        self._do(self.project.set_classes, [str(v) for v in values], why, derived)

    def declare_taxonomy(
        self, attribute: str, taxonomy: Taxonomy | str | os.PathLike, *, why: str = "", derived: bool = False
    ) -> None:
        """``attribute`` is a categorical quasi-identifier generalized by ``taxonomy`` (a Taxonomy or a file
        in any format the studio imports: ARX CSV, JSON, brace or indented text)."""
        if not isinstance(taxonomy, Taxonomy):
            from dpstudio.io.taxonomy_formats import read_taxonomy

            source = why or f"the taxonomy file {Path(taxonomy).name}"
            try:
                taxonomy = read_taxonomy(taxonomy, attribute=attribute)
            except (OSError, ValueError) as exc:
                raise StudyError(f"taxonomy of {attribute!r}: {exc}") from None
        else:
            source = why or "built in a script"
        self._do(self.project.set_role, attribute, QUASI_IDENTIFIER)
        self._do(self.project.set_type, attribute, CATEGORICAL, "declared with its taxonomy")
        self._do(self.project.set_taxonomy, attribute, taxonomy, source, derived)

    def declare_taxonomy_folder(self, folder: str | os.PathLike) -> list[str]:
        """Declare the taxonomy of every categorical quasi-identifier named by a file in ``folder`` (as the
        studio's "Import folder"); returns the attributes declared."""
        from dpstudio.io.taxonomy_formats import read_taxonomy
        from dpstudio.model.project.taxonomy_folder import match_folder

        p = self.project
        wanted = [c for c in p.attributes(QUASI_IDENTIFIER) if p.types.get(c) == CATEGORICAL]
        found = match_folder(folder, wanted, exclude=[p.data_path] if p.data_path else [])
        done = []
        for attr, path in found.matched.items():
            try:
                tax = read_taxonomy(path, attribute=attr)
            except (OSError, ValueError) as exc:
                raise StudyError(f"taxonomy of {attr!r} ({path.name}): {exc}") from None
            self._do(p.set_taxonomy, attr, tax, f"the taxonomy file {path.name}")
            done.append(attr)
        return done

    def declare_bounds(
        self,
        attribute: str,
        lo: float,
        hi: float,
        *,
        kind: str | None = None,
        why: str = "declared in a script",
        derived: bool = False,
    ) -> None:
        """``attribute`` is a numeric quasi-identifier with public bounds ``lo``..``hi`` (values outside are
        refused at run time, never clipped silently); ``kind``: "integer", "continuous" or
        "continuous:RESOLUTION" (default: whole-number bounds mean integer)."""
        self._do(self.project.set_role, attribute, QUASI_IDENTIFIER)
        self._do(self.project.set_type, attribute, NUMERIC, why)
        self._do(self.project.set_bounds, attribute, lo, hi, why, derived)
        if kind is not None:
            self._do(self.project.set_numeric_type, attribute, kind, why)

    def ignore(self, *attributes: str) -> None:
        """Leave these columns out of the release."""
        for a in attributes:
            self._do(self.project.set_role, a, IGNORE)

    def use_only(self, *attributes: str) -> None:
        """Release these attributes (the class and the quasi-identifiers) and ignore every other column."""
        unknown = [a for a in attributes if a not in self.project.columns]
        if unknown:
            raise StudyError(f"not a column of the table: {', '.join(unknown)}")
        for c in self.project.columns:
            if c not in attributes:
                self._do(self.project.set_role, c, IGNORE)

    def keep_missing(self, keep: bool = True, token: str | None = None) -> None:
        """Keep rows with a missing value (missing becomes a category, written ``token``, default '?', which a
        taxonomy must cover) or drop them."""
        self._do(self.project.set_missing, "keep" if keep else "drop")
        if token is not None:
            self._do(self.project.set_missing_token, token)

    def propose_classes(self) -> list[str]:
        """The class values present in the data, declared and marked derived from the data (not private):
        a release refuses to run until ``confirm_public`` states they are public knowledge."""
        return self._do(self.project.propose_classes)

    def unconfirmed(self) -> list[str]:
        """Inputs derived from the data and not yet confirmed as public knowledge (keys such as "classes:Y")."""
        return self.project.unconfirmed_inputs()

    def confirm_public(self, key: str, why: str) -> None:
        """State, in your own words, that the derived input ``key`` is public knowledge."""
        self._do(self.project.confirm_public, key, why)

    # -- the algorithm and the budget ----------------------------------------------------------------------
    def choose(self, algorithm: str, **params) -> None:
        """The algorithm (one of ``ALGORITHMS``, or the command line's name of one: ``diffgen-consistent``,
        ``luedp``) and its parameters (as the Algorithm panel sets them, e.g.
        ``steps=6`` for the table algorithms; ``attribute=..., bins=...`` for histograms)."""
        from dpstudio.algorithms.registry import COMMAND_NAMES, algorithm_id

        if algorithm_id(algorithm) not in ALGORITHMS:
            names = ", ".join(ALGORITHMS)
            raise StudyError(
                f"unknown algorithm {algorithm!r}: choose one of {names} (the command line's "
                f"{', '.join(COMMAND_NAMES)} are accepted too)"
            )
        self._do(self.project.set_algorithm, algorithm_id(algorithm), params or None)

    def plan(self):
        """The split of epsilon the next run uses (``BudgetPlan``: ``names`` and exact ``shares``): the
        split set with ``set_split`` when it fits the algorithm, else the algorithm's default."""
        return self._do(self.project.plan)

    def set_split(self, shares) -> None:
        """Split epsilon among the plan's steps: a list in ``plan().names`` order, or a dict from those names,
        of numbers or strings ("1/4") that sum exactly to epsilon. A custom split keeps its proportions when
        ``question`` or ``simulate`` changes epsilon. StudyError when it does not fit (nothing changed)."""
        names = self.plan().names
        if isinstance(shares, dict):
            unknown = set(shares) - set(names)
            if unknown or len(shares) != len(names):
                raise StudyError(f"the split names {', '.join(names)}; got {', '.join(map(str, shares))}")
            shares = [shares[n] for n in names]
        try:
            values = [Fraction(str(s)) for s in shares]
        except (ValueError, ZeroDivisionError) as exc:
            raise StudyError(f"the split's shares must be numbers: {exc}") from None
        self._do(self.project.set_split, values)

    def _ready_account(self) -> None:
        """The name and lifetime budget given for data the store does not know yet (as the CLI's
        --dataset-name and --dataset-budget: known data keeps its name and total in the store)."""
        from dpstudio.core.budget import check_epsilon

        acc = self.project.account
        if self._name is not None:
            acc.name = str(self._name)
        if self._total is not None:
            acc.total = self._do(check_epsilon, self._total)

    def raise_lifetime_budget(self, total: float | str | Fraction):
        """Set the lifetime budget of this data in the store to ``total``, deliberately (never below what was
        spent on it): the one way to allow another release on data whose budget is spent."""
        self._ready_account()
        return self._do(self.project.set_dataset_total, total)

    def budget(self):
        """What the budget store holds for this table now (``DatasetBudgetInfo``: name, total, spent,
        remaining, warnings)."""
        self._ready_account()
        return self.project.dataset_budget()

    def question(self, epsilon: float | str | Fraction) -> ReleaseQuestion:
        """The question a release of ``epsilon`` asks (nothing is charged): dataset, epsilon, lifetime total,
        spent, remaining, warnings; ``refusal`` is non-empty when it cannot be released."""
        self._do(self.project.set_epsilon, epsilon)
        self._ready_account()
        return self.project.release_question()

    # -- running ---------------------------------------------------------------------------------------
    def release(self, answer: ReleaseQuestion, progress=None) -> Release:
        """Release with secure noise, having read ``answer`` (this study's ``question``): every input is
        checked first (StudyError, nothing spent), then the release service charges the budget store, then
        the algorithm runs. ``progress(event)`` sees each event of the run."""
        if answer.refusal:
            raise StudyError(f"not released: {answer.refusal}")
        self.project.set_mode(RELEASE)
        return self._run(answer, progress)

    def simulate(self, epsilon: float | str | Fraction, seed: int = 0, progress=None) -> Release:
        """A teaching run: seeded simulation noise, nothing charged, NOT a release (cannot be exported)."""
        self.project.set_mode(TEACHING)
        try:
            self._do(self.project.set_epsilon, epsilon)
            self._do(self.project.set_seed, int(seed))
            return self._run(None, progress)
        finally:
            self.project.set_mode(RELEASE)

    def _run(self, answer, progress) -> Release:
        p = self.project
        unconfirmed = p.unconfirmed_inputs() if p.mode == RELEASE else []
        if unconfirmed:
            raise StudyError(
                "these inputs were derived from the data and are not confirmed as public knowledge: "
                f"{', '.join(pv.describe(k) for k in unconfirmed)} (confirm_public, or declare them); nothing spent"
            )
        try:
            session = RunSession.of_project(p, snapshot=snapshot_of(p))
            session.begin(answer)
        except (RunInputError, ProjectError) as exc:
            raise StudyError(str(exc)) from None
        events = []
        for ev in session.events():
            events.append(ev)
            if progress is not None:
                progress(ev)
        record = session.finish(events)
        if record.result is None:
            raise StudyError("the run ended without a result")
        return Release(self, record.result, record.ledger, record.snapshot, dict(record.budget or {}))


@dataclass
class Release:
    """A finished run: ``result`` (the released table or histogram), ``ledger`` (every spend), ``snapshot``
    (the inputs it ran with), ``budget`` (the store's charge: dataset, spent, total, remaining)."""

    study: Study
    result: object
    ledger: Ledger
    snapshot: RunSnapshot
    budget: dict

    @property
    def is_release(self) -> bool:
        return not self.snapshot.teaching

    @property
    def epsilon_spent(self) -> float:
        return float(self.ledger.spent)

    def export(
        self,
        folder: str | os.PathLike,
        name: str = "release",
        expand_records: bool = False,
        omit_zero_cells: bool = False,
    ) -> list[Path]:
        """Write NAME.csv, NAME.json, NAME.report.html, NAME.command.sh and NAME.reproduce.py in ``folder``
        (atomically, all or none, never over an existing file). ``expand_records``: one row per released
        record; ``omit_zero_cells``: leave out the cells whose released count is 0 (a large sparse table).
        StudyError for a teaching run or a run that is no longer the study's last."""
        p = self.study.project
        if p.result is not self.result:
            raise StudyError("this is not the study's last run: export the last one, or run again")
        reason = export_refusal(p)
        if reason:
            raise StudyError(reason)
        return write_export(p, folder, name, expand_records=expand_records, omit_zero_cells=omit_zero_cells)
