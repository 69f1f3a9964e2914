"""What a project's next run uses (Qt-free): the algorithm and its parameters, the split of epsilon among its
steps (the budget plan), epsilon, the mode (release or teaching) and the teaching runs' seed. Public inputs,
chosen before the data is looked at.

The split is part of the parameters (``budget_split`` and the totals it names, ``SPLIT_KEYS``): ``plan()``
is the split the next run uses, whoever drives it (the Algorithm panel, ``api.Study``, a saved project). A
custom split keeps its proportions when epsilon changes; the default split is the algorithm's default at the
new epsilon. No split ever spends more than epsilon: every plan sums to it exactly."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dpstudio.core.budget import check_epsilon
from dpstudio.model.project.changes import Changes
from dpstudio.model.project.vocabulary import MODES, NUMERIC, QUASI_IDENTIFIER, TEACHING, ProjectError
from dpstudio.model.release import budget_plan as bp

#: the parameters that hold the split (``BudgetPlan.to_params``)
SPLIT_KEYS = ("budget_split", "count_epsilon", "level_epsilons", "tree_fraction")


class RunSettings:
    """The algorithm, its parameters, epsilon, the mode and the seed."""

    def __init__(self, owner) -> None:
        self.owner = owner  # the Project this part belongs to: the other parts are read through it
        self.changes = Changes("algorithm", "epsilon", "mode")  # what this part announces (``model.project.changes``)
        self.algorithm: str = "diffgen_consistency"
        self.params: dict[str, Any] = {}
        self.epsilon: Fraction = Fraction(1)
        self.mode: str = TEACHING
        self.seed: int = 2026

    # -- algorithm, budget, mode -------------------------------------------------------------------
    def set_algorithm(self, name: str, params: dict | None = None) -> None:
        if not name:
            raise ProjectError("choose an algorithm")
        params = dict(self.params if params is None else params)
        if name == self.algorithm and params == self.params:
            return
        self.algorithm = name
        self.params = params
        self.changes.emit("algorithm")

    def set_param(self, key: str, value) -> None:
        if self.params.get(key) == value and key in self.params:
            return
        self.params[key] = value
        self.changes.emit("algorithm")

    def set_epsilon(self, value) -> None:
        """Parse and set the budget; raises ValueError with a specific message (see check_epsilon). A custom
        split keeps its proportions at the new epsilon (when the plan keeps its steps); any other split
        becomes the algorithm's default at the new epsilon."""
        eps = check_epsilon(value)
        if eps == self.epsilon:
            return
        custom = self._custom_plan()
        self.epsilon = eps
        resplit = any(k in self.params for k in SPLIT_KEYS)
        self.params = {k: v for k, v in self.params.items() if k not in SPLIT_KEYS}
        if custom is not None:
            try:
                fresh = self.plan()
            except ValueError:
                fresh = None
            if fresh is not None and fresh.names == custom.names and not fresh.locked:
                self.params.update(fresh.with_shares([s * eps / custom.epsilon for s in custom.shares]).to_params())
        self.changes.emit("epsilon")
        if resplit:
            self.changes.emit("algorithm")

    # -- the split of epsilon ----------------------------------------------------------------------
    def plan(self) -> bp.BudgetPlan:
        """The split the next run uses: the saved one when it fits the algorithm and sums to epsilon, else
        the algorithm's default. ValueError when the parameters cannot be planned (for example a histogram
        without bins)."""
        return bp.saved_plan(self.algorithm, self.plan_params(), self.epsilon)

    def plan_params(self) -> dict:
        """The parameters the plan is made of: a table algorithm also counts the numeric quasi-identifiers
        (public: their kinds are declared)."""
        from dpstudio.algorithms.registry import TABLE_ALGORITHMS

        params = dict(self.params or {})
        if self.algorithm in TABLE_ALGORITHMS and "numeric_attributes" not in params:
            owner = self.owner
            qis = owner.attributes(QUASI_IDENTIFIER)
            params["numeric_attributes"] = sum(1 for a in qis if owner.types.get(a) == NUMERIC)
        return params

    def set_split(self, shares) -> None:
        """Split epsilon among the plan's steps as ``shares`` (exact numbers summing to epsilon; ValueError
        otherwise, or when the plan is locked: the engine chooses that split itself)."""
        plan = self.plan()
        if plan.locked:
            raise ValueError(f"{self.algorithm}'s split is chosen by the method and cannot be changed")
        if len(shares) != len(plan.names):
            raise ValueError(f"the split has {len(plan.names)} steps, not {len(shares)}")
        self._write(plan.with_shares([Fraction(s) for s in shares]))

    def reset_split(self) -> None:
        """Back to the algorithm's default split (written out, so the file and the ledger show it)."""
        self.params = {k: v for k, v in self.params.items() if k not in SPLIT_KEYS}
        self._write(self.plan(), force=True)

    def write_split(self) -> None:
        """Write the plan that runs (the saved split when it fits, else the default) as explicit shares."""
        self._write(self.plan())

    def _write(self, plan: bp.BudgetPlan, force: bool = False) -> None:
        new = {k: v for k, v in self.params.items() if k not in SPLIT_KEYS} | plan.to_params()
        if new == self.params and not force:
            return
        self.params = new
        self.changes.emit("algorithm")

    def is_default_split(self) -> bool:
        return self._custom_plan() is None

    def _custom_plan(self) -> bp.BudgetPlan | None:
        """The saved split when it is the one that runs and differs from the default, else None."""
        if not self.params.get("budget_split"):
            return None
        try:
            plan = self.plan()
            default = bp.default_plan(self.algorithm, self.plan_params(), self.epsilon)
        except ValueError:
            return None
        return None if plan.locked or plan.shares == default.shares else plan

    def set_seed(self, seed: int) -> None:
        seed = int(seed)
        if seed != self.seed:
            self.seed = seed
            self.changes.emit("mode")

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ProjectError(f"mode must be 'release' or 'teaching', got {mode!r}")
        if mode == self.mode:
            return
        self.mode = mode
        self.changes.emit("mode")  # the project forgets the last run first (``Project._on_part``)

    @property
    def teaching(self) -> bool:
        return self.mode == TEACHING
