"""The one release service: every path that spends budget goes through here (Qt-free).

Front ends (the studio's Algorithm and Stream panels, ``dpstudio release``, ``histogram`` and ``stream``, the
exported re-run scripts through them) build a ``ReleaseRequest`` from what they know at Run: the dataset's
name, a way to fingerprint its records, epsilon, what runs, and whether it is a release at all. Then:

1. ``question(request)`` reads the persistent budget store (nothing is written) and returns the
   ``ReleaseQuestion``: dataset, epsilon, lifetime total, spent, what remains, cannot be undone; or a
   refusal (epsilon beyond what the figures can show, more than what remains, an unreadable store).
2. The front end answers it (the studio's dialog, No by default; the command line by having been typed).
3. ``begin(question, answer)`` charges the store for the whole epsilon (one SQLite transaction; a refusal
   changes nothing), chooses the noise (``SecureNoise``) and hands out a fresh ``Ledger`` of epsilon, in
   that order, so every spend is recorded before any noisy value exists. Only then does the run start.

Teaching runs and seeded experiments (``simulate``) are not releases: seeded ``SimulationNoise``, a fresh
ledger, nothing charged, and the sidecar's budget entry says so. Anonymize (syntactic, not DP) never comes
here. Panels and commands never open the store, construct noise or build a release ledger themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from dpstudio.core.budget import BudgetExceededError, Ledger, check_epsilon
from dpstudio.core.noise import NoiseSource, SecureNoise, SimulationNoise
from dpstudio.io.budget_store import (
    OFF,
    UNTRACKED,
    BudgetStoreError,
    check_name,
    fraction_text,
    open_store,
    untracked_record,
)
from dpstudio.model.release.question import RAISE_HINT, ReleaseQuestion, epsilon_refusal

SIMULATION_RECORD = {
    "tracked": False,
    "charged": None,
    "note": "simulation noise (not a release): nothing was charged to the budget store",
}


class ReleaseRefused(ValueError):
    """The release does not start; the message says why. Nothing was charged and no noise was drawn."""


@dataclass(frozen=True)
class RunSetup:
    """What a run is handed once its spend is settled: the noise, the ledger to spend from, the mode, and
    the budget store's record for the sidecar (``budget``: the charge, or why nothing was charged)."""

    noise: NoiseSource
    ledger: Ledger
    teaching: bool
    epsilon: Fraction
    budget: dict | None = None
    recognised: str = ""  # for the data owner only (never in a release): why a known dataset was charged
    #: the budget store the release was charged to (its resolved path, or "none" when tracking was off; ""
    #: for a run that is not a release): a re-run script charges the same one
    store: str = ""


@dataclass
class ReleaseRequest:
    """A release about to be asked for. ``fingerprint()`` computes the records' ``DatasetPrint`` (called
    at most once, and only when a store is open); ``name`` is the dataset's name for records the store does
    not know; ``total`` its lifetime budget then (default: this epsilon); ``new_dataset`` declares the
    records other people than any the store knows loosely (``BudgetStore.related``); ``front_end`` is
    "studio" or "cli" (recorded with the spend); ``store`` the store option (None: the default, "none": off).
    """

    name: str
    fingerprint: Callable
    epsilon: Fraction
    what: str
    front_end: str = "studio"
    store: str | None = None
    total: Fraction | None = None
    new_dataset: bool = False
    data_path: str | None = None
    #: what the question was asked about (``Project.question_binding``: the load of data and the frozen
    #: inputs); a front end starts a run only when its own binding is still this
    binding: str = ""
    #: how the front end that asks sets the dataset's lifetime total before a first release (the question says it)
    raise_hint: str = RAISE_HINT
    _print: object = field(default=None, repr=False)

    def print(self):
        if self._print is None:
            self._print = self.fingerprint()
        return self._print


class ReleaseService:
    """See the module docstring. ``store`` errors become refusals with the store's own message."""

    def question(self, request: ReleaseRequest) -> ReleaseQuestion:
        eps = check_epsilon(request.epsilon)
        refusal = epsilon_refusal(eps)
        name, budget, spent, tracked, related = request.name, eps, Fraction(0), True, ""
        defaulted = False  # a new dataset without a total set: its total is this release's epsilon
        warnings: tuple[str, ...] = ()
        try:
            store = open_store(request.store)
            if store is None:
                tracked, warnings = False, (UNTRACKED,)
            else:
                fp = request.print()
                known, related = store.match(fp, request.new_dataset)
                if known is not None:
                    name, budget, spent = known.name, known.total, known.spent
                else:
                    name = check_name(name)
                    if request.total is not None:
                        budget = check_epsilon(request.total)
                    defaulted = request.total is None
                    if any(d.name == name for d in store.datasets()):
                        refusal = refusal or (
                            f"the name {name!r} belongs to another dataset in the budget store "
                            "(different records); choose another name for this data"
                        )
                warnings = tuple(store.near_duplicate_warnings(fp, exclude=None if known is None else known.name))
        except (BudgetStoreError, ValueError) as exc:
            refusal = refusal or f"the budget store cannot be used: {str(exc).splitlines()[0]}"
        remaining = budget - spent - eps
        if not refusal and tracked and remaining < 0:
            refusal = (
                f"dataset {name!r}: a release of epsilon {fraction_text(eps)} does not fit its lifetime budget: "
                f"{fraction_text(budget - spent)} of {fraction_text(budget)} is left (spent "
                f"{fraction_text(spent)}); to raise it deliberately: dpstudio budget set-total {name} EPS, "
                'or Set... beside "dataset budget" in the studio\'s Algorithm panel'
            )
        return ReleaseQuestion(
            name,
            request.data_path,
            eps,
            budget,
            spent,
            max(remaining, Fraction(0)),
            refusal,
            tracked,
            warnings,
            related,
            request,
            total_defaulted=defaulted,
        )

    def begin(self, question: ReleaseQuestion, answer: bool) -> RunSetup:
        """Charge, choose the noise, open the ledger: the release may start. Raises ``ReleaseRefused``
        (refused question, answer No, the store refusing the charge) having spent nothing."""
        if question.refusal:
            raise ReleaseRefused(question.refusal)
        if answer is not True:
            raise ReleaseRefused("the release was not confirmed: nothing was spent")
        request = question.request
        if request is None:
            raise ReleaseRefused("this question was not built by the release service")
        try:
            store = open_store(request.store)
            recognised = ""
            where = OFF if store is None else str(store.path.resolve())
            if store is None:
                record = untracked_record(request.name)
            else:
                charge = store.charge(
                    request.print(),
                    question.epsilon,
                    request.what,
                    request.front_end,
                    name=request.name,
                    total=request.total,
                    new_dataset=request.new_dataset,
                )
                record, recognised = charge.to_dict(), charge.related
        except (BudgetStoreError, BudgetExceededError) as exc:
            raise ReleaseRefused(str(exc)) from None
        return RunSetup(SecureNoise(), Ledger(question.epsilon), False, question.epsilon, record, recognised, where)

    @staticmethod
    def simulate(epsilon, seed: int) -> RunSetup:
        """A run that is not a release: seeded simulation noise, a fresh ledger, nothing charged."""
        eps = check_epsilon(epsilon)
        refusal = epsilon_refusal(eps)
        if refusal:
            raise ValueError(refusal)
        return RunSetup(SimulationNoise(seed), Ledger(eps), True, eps, dict(SIMULATION_RECORD))


__all__ = ["ReleaseRefused", "ReleaseRequest", "ReleaseService", "RunSetup", "SIMULATION_RECORD"]
