"""What a project's next run uses (Qt-free): the algorithm and its parameters, epsilon, the mode (release or
teaching) and the teaching runs' seed. Public inputs, chosen before the data is looked at."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dpstudio.core.budget import check_epsilon
from dpstudio.model.project.vocabulary import (
    MODES,
    TEACHING,
    ProjectError,
)


class RunSettings:
    """The algorithm, its parameters, epsilon, the mode and the seed."""

    def __init__(self, owner) -> None:
        self.owner = owner  # the Project this part belongs to: its notifications and the other parts
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
        self.owner._changed("algorithm")

    def set_param(self, key: str, value) -> None:
        if self.params.get(key) == value and key in self.params:
            return
        self.params[key] = value
        self.owner._changed("algorithm")

    def set_epsilon(self, value) -> None:
        """Parse and set the budget; raises ValueError with a specific message (see check_epsilon)."""
        eps = check_epsilon(value)
        if eps == self.epsilon:
            return
        self.epsilon = eps
        self.owner._changed("epsilon")

    def set_seed(self, seed: int) -> None:
        seed = int(seed)
        if seed != self.seed:
            self.seed = seed
            self.owner._changed("mode")

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ProjectError(f"mode must be 'release' or 'teaching', got {mode!r}")
        if mode == self.mode:
            return
        self.mode = mode
        self.owner.clear_run(notify=False)  # a teaching run must not be shown or exported as a release
        self.owner.notify("run")
        self.owner._changed("mode")

    @property
    def teaching(self) -> bool:
        return self.mode == TEACHING
