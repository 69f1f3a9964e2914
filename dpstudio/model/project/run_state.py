"""A project's runs and budget (Qt-free): the release question and the spend through the release service
(``model.release``), the record of the last run (``model.release.record.RunRecord``), the last release's
ledger, and the budget store's account of the loaded data. No panel talks to the store, the noise or the
ledger itself: they drive the run session (``model.release.session``), which comes here."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from dpstudio.algorithms import registry
from dpstudio.core.budget import Ledger, check_epsilon
from dpstudio.model.project.changes import Changes
from dpstudio.model.project.vocabulary import (
    DROP_MISSING,
    RELEASE,
    TEACHING,
    ProjectError,
)
from dpstudio.model.release.account import AccountError, DatasetBudgetInfo
from dpstudio.model.release.question import ReleaseQuestion
from dpstudio.model.release.service import ReleaseRefused, ReleaseService, RunSetup


class RunState:
    """The question, the spend, and the record of the last run."""

    def __init__(self, owner) -> None:
        self.owner = owner  # the Project this part belongs to: the other parts are read through it
        self.changes = Changes("ledger", "run")  # what this part announces (``model.project.changes``)
        self.record: Any = None  # model.release.record.RunRecord of the last run (memory only)
        self.release_ledger: Ledger | None = None  # the last release run's ledger (saved)
        self.run_budget: dict | None = None  # the budget store's record of the last release run (sidecar)
        self.run_store: str | None = None  # the store the last release was charged to (path, or "none")
        self.release_in_progress = ""  # while a release run goes on: what it spent, in words ("" otherwise)
        self._ledger_hash: str | None = None  # the data the release ledger was spent on (its file's SHA-256)

    @property
    def ledger(self) -> Ledger | None:
        """The ledger to display: the last release run's in release mode, else the last teaching run's."""
        if self.owner.mode == RELEASE:
            return self.release_ledger
        return self.run_ledger

    budget_store = property(
        lambda self: self.owner.account.store, lambda self, v: setattr(self.owner.account, "store", v)
    )

    dataset_name = property(
        lambda self: self.owner.account.name, lambda self, v: setattr(self.owner.account, "name", v)
    )

    dataset_total = property(
        lambda self: self.owner.account.total, lambda self, v: setattr(self.owner.account, "total", v)
    )

    def _default_dataset_name(self) -> str:
        return self.owner.account.default_name()

    def _account(self, action: Callable[[], DatasetBudgetInfo]) -> DatasetBudgetInfo:
        try:
            return action()
        except AccountError as exc:
            raise ProjectError(str(exc)) from None

    def dataset_budget(self) -> DatasetBudgetInfo:
        """What the budget store holds for the loaded data now: name, lifetime total, spent, remaining,
        tracked (``BudgetAccount.info``). Raises ProjectError when no data is loaded or the store cannot be
        read."""
        return self._account(self.owner.account.info)

    def set_dataset_name(self, name) -> DatasetBudgetInfo:
        """Name the loaded data in the budget store (saved in the project file); see ``BudgetAccount.rename``."""
        before = self.owner.account.name
        info = self._account(lambda: self.owner.account.rename(name))
        if self.owner.account.name != before:
            self.changes.unsaved()
        self.changes.emit("ledger", dirty=False)
        return info

    def set_dataset_total(self, total) -> DatasetBudgetInfo:
        """Set the loaded data's lifetime budget deliberately (not below what was spent on it)."""
        info = self._account(lambda: self.owner.account.set_total(total))
        self.changes.emit("ledger", dirty=False)
        return info

    def set_new_dataset(self, new: bool) -> DatasetBudgetInfo:
        """Declare the loaded records other people than the known dataset they match loosely (or take that
        declaration back): their releases then get a budget of their own."""
        self.owner.account.new_dataset = bool(new)
        self.changes.emit("ledger", dirty=False)
        return self.dataset_budget()

    def release_question(self, epsilon=None) -> ReleaseQuestion:
        """The question a release-mode run asks before it spends ``epsilon`` (default: the project's), from
        the release service: the dataset's name, lifetime budget and what was spent on it come from the
        persistent budget store (every project and command on the same records). ``refusal`` is non-empty
        when the run would be refused (no data, undeclared classes, epsilon beyond what the figures show or
        more than what remains on the dataset, an unusable store): nothing is to be asked then."""
        from dpstudio.model.release.question import epsilon_refusal

        eps = check_epsilon(self.owner.epsilon if epsilon is None else epsilon)
        refusal = ""
        if not self.owner.has_data:
            refusal = "no data is loaded: open a file in the Data panel"
        elif (
            self.owner.algorithm in registry.TABLE_ALGORITHMS
            and self.owner.classes is None
            and self.owner.class_attribute is not None
        ):
            refusal = (
                f"the class values of {self.owner.class_attribute} are not declared: a release lists exactly the "
                "public classes; declare them in the Data panel (Class values)"
            )
        if refusal or epsilon_refusal(eps):
            return ReleaseQuestion(
                self._default_dataset_name(),
                None if self.owner.data_path is None else str(self.owner.data_path),
                eps,
                eps,
                Fraction(0),
                Fraction(0),
                refusal or epsilon_refusal(eps),
            )
        what = f"studio {self.owner.algorithm} on {self.owner.data_path.name if self.owner.data_path is not None else 'data'}"
        request = self.owner.account.request(eps, what)
        request.binding = self.question_binding()
        question = ReleaseService().question(request)
        if not question.refusal and self.owner.missing == DROP_MISSING:
            from dpstudio.model.project.missing import drop_note, missing_summary

            note = drop_note(missing_summary(self.owner, self.owner.release_columns()))
            if note:
                question = replace(question, notes=(*question.notes, note))
        return question

    release_confirmation = release_question

    def question_binding(self) -> str:
        """What a release question is about: the load of data it was asked on (``load_token``, new at every
        load, unique in the process) and every input a run would use (the saved form: public inputs with their
        provenance, algorithm, parameters, epsilon). A question answered for another project, or before the
        data or an input changed, starts no run: nothing is spent."""
        inputs = {k: v for k, v in self.owner.to_dict().items() if k not in ("mode", "seed", "release_ledger")}
        text = json.dumps([self.owner.load_token, inputs], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def start_run(self, answer: ReleaseQuestion | None = None) -> RunSetup:
        """Noise and ledger for a new run in the current mode.

        Teaching: ``SimulationNoise(seed)`` and a fresh ledger of ``epsilon`` (re-run freely).
        Release: ``answer`` is the ``release_question`` the user said Yes to; the release service charges the
        budget store for its epsilon, then hands out ``SecureNoise`` and a fresh ledger (kept as
        ``release_ledger``). ProjectError (nothing spent) when there is no answer, the question was a
        refusal, or the store refuses the charge.
        """
        if self.owner.mode == TEACHING:
            return ReleaseService.simulate(self.owner.epsilon, self.owner.seed)
        if answer is None:
            raise ProjectError("a release run needs its question answered first (release_question): nothing was spent")
        if answer.request is not None and answer.request.binding != self.question_binding():
            raise ProjectError(
                f"this question was asked about other data or other inputs (dataset {answer.dataset!r}), not "
                "about what would run now: ask again; nothing was spent"
            )
        if answer.epsilon != self.owner.epsilon:
            raise ProjectError(
                f"the question answered was for epsilon {float(answer.epsilon):g}, the project's is "
                f"{float(self.owner.epsilon):g}: ask again; nothing was spent"
            )
        try:
            setup = ReleaseService().begin(answer, True)
        except ReleaseRefused as exc:
            raise ProjectError(str(exc)) from None
        # no notify here: a studio run calls this on its worker thread; ``record_run`` announces the
        # spend on the GUI thread when the run ends
        self.owner.account.total = None
        self.release_in_progress = (
            f"epsilon {float(setup.epsilon):g} on dataset {(setup.budget or {}).get('dataset') or answer.dataset!r}"
        )
        self.release_ledger = setup.ledger
        self._ledger_hash = self.owner.data_hash
        self.run_budget = setup.budget
        self.run_store = setup.store
        return setup

    def record_run(
        self,
        events: Sequence[Any],
        ledger: Ledger,
        teaching: bool,
        result: Any = None,
        snapshot: Any = None,
        budget: dict | None = None,
        store: str | None = None,
    ) -> None:
        """Keep the record of a finished (or cancelled) run (``model.release.record.RunRecord``: its events,
        in memory only and not copied (the caller appends nothing to them afterwards), its result, its ledger
        and the snapshot of the inputs it ran with; the export describes it). ``budget`` and ``store``: the
        budget store's charge and where it was made (default: those ``start_run`` kept for a release run)."""
        from dpstudio.model.release.record import RunRecord

        self.release_in_progress = ""
        if result is None:
            from dpstudio.core.events import run_result

            result = run_result(events)
        if not teaching:
            budget = self.run_budget if budget is None else budget
            store = self.run_store if store is None else store
        self.record = RunRecord(result, ledger, snapshot, teaching, budget, store, events)
        self.changes.emit("run", dirty=False)
        self.changes.emit("ledger", dirty=False)
        self.changes.unsaved()

    def clear_run(self, notify: bool = True) -> None:
        self.record = None
        if notify:
            self.changes.emit("run", dirty=False)
            self.changes.emit("ledger", dirty=False)

    # the last run's parts, read from its record
    @property
    def events(self) -> list:
        return [] if self.record is None else list(self.record.events)

    @property
    def result(self) -> Any:
        return None if self.record is None else self.record.result

    @property
    def run_ledger(self) -> Ledger | None:
        return None if self.record is None else self.record.ledger

    @property
    def run_teaching(self) -> bool | None:
        return None if self.record is None else self.record.teaching

    @property
    def run_snapshot(self) -> Any:
        return None if self.record is None else self.record.snapshot

    @property
    def can_export(self) -> bool:
        """True only for a finished release-mode run (secure noise, budget spent in the release ledger) whose
        snapshot allows it (its inputs were public or confirmed when it ran)."""
        return self.owner.mode == RELEASE and self.record is not None and not self.record.export_refusal()
