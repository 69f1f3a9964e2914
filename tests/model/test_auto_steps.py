"""The studio's default h is automatic: chosen from epsilon only (``diffgen_auto``), the same for any data."""

import pytest

from dpstudio.algorithms import registry
from dpstudio.algorithms.diffgen_auto import automatic_steps
from dpstudio.model.release import budget_plan as bp


@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen_consistency", "maxgddp"])
@pytest.mark.parametrize("epsilon", ["0.1", "0.25", "1"])
def test_default_steps_are_chosen_from_epsilon(algorithm, epsilon):
    assert registry.default_params(algorithm)["steps"] == registry.AUTO_STEPS
    engine = bp.engine_params(algorithm, {}, epsilon)
    assert engine.steps == automatic_steps(registry.TABLE_PRESETS[algorithm], epsilon)[0] >= 4
    # an explicit h is kept
    assert bp.engine_params(algorithm, {"steps": 3}, epsilon).steps == 3


def test_automatic_rule_values():
    assert [automatic_steps("maxgddp", e)[0] for e in (0.1, 0.25, 1, 2, 5, 100)] == [8, 8, 8, 9, 10, 10]
    assert [automatic_steps("diffgen-consistent", e)[0] for e in (0.1, 0.25, 1)] == [8, 10, 10]
