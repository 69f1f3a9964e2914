"""Noise scales are rounded toward more noise: the epsilon a scale implies never exceeds the ledgered one.

For every scale the code hands to a noise source, factor * sensitivity / scale <= epsilon holds exactly (as
fractions; epsilon as the ledger reads it). The grid is sensitivities 1..7 x epsilons 0.01..1.28 (896
settings): a plain ``sensitivity / float(eps)`` breaks it for dozens of them.
"""

from fractions import Fraction

import numpy as np
import pytest

from dpstudio.algorithms.diffgen import preset, run_to_result
from dpstudio.algorithms.diffgen_input import CategoricalAttribute, DiffGenInput, NumericAttribute
from dpstudio.algorithms.interval_trees import IntervalTreeParams, plan_interval_tree
from dpstudio.core import mechanisms as mech
from dpstudio.core.budget import Ledger, as_fraction
from dpstudio.core.noise import SimulationNoise
from dpstudio.core.scales import noise_scale
from dpstudio.core.taxonomy import Node, Taxonomy

SENSITIVITIES = range(1, 8)
EPSILONS = [k / 100 for k in range(1, 129)]


class RecordingNoise(SimulationNoise):
    """Simulation noise that remembers the scale of every call."""

    def __init__(self, seed=0):
        super().__init__(seed)
        self.calls = []

    def laplace_counts(self, counts, scale):
        self.calls.append(("laplace", scale))
        return super().laplace_counts(counts, scale)

    def exponential(self, scores, scale):
        self.calls.append(("exponential", scale))
        return super().exponential(scores, scale)

    def noisy_max(self, scores, scale):
        self.calls.append(("noisy_max", scale))
        return super().noisy_max(scores, scale)


def implied(factor, sensitivity, scale) -> Fraction:
    return Fraction(factor) * Fraction(sensitivity) / Fraction(scale)


def test_the_grid_holds_settings_where_float_division_is_too_little_noise():
    bad = [(s, e) for s in SENSITIVITIES for e in EPSILONS if implied(1, s, s / e) > as_fraction(e)]
    assert len(bad) > 20  # what the test below would catch if a mechanism divided in floats


def test_noise_scale_is_the_smallest_double_at_or_above_the_exact_value():
    for s in SENSITIVITIES:
        for e in EPSILONS:
            for factor in (1, 2):
                b = noise_scale(s, e, factor)
                exact = Fraction(factor * s) / as_fraction(e)
                assert Fraction(b) >= exact
                assert Fraction(np.nextafter(b, 0.0)) < exact
    assert noise_scale(1, Fraction(1, 3)) == 3.0 and noise_scale(2, "0.5", 2) == 8.0


def test_every_mechanism_scale_implies_at_most_the_ledgered_epsilon():
    noise = RecordingNoise(0)
    for s in SENSITIVITIES:
        for e in EPSILONS:
            eps = as_fraction(e)
            checks = [
                (1, lambda: mech.noisy_counts([3, 4], e, s, noise)),
                (2, lambda: mech.exponential_mechanism([1.0, 2.0], e, s, noise)),
                (1, lambda: mech.report_noisy_max([1.0, 2.0], e, s, True, noise)),
                (2, lambda: mech.report_noisy_max([1.0, 2.0], e, s, False, noise)),
                (2, lambda: mech.choose_split_on_lattice([0, 2, 5], [1.0, 2.0], e, s, noise)),
            ]
            for factor, call in checks:
                call()
                scale = noise.calls[-1][1]
                assert implied(factor, s, scale) <= eps, (s, e, factor, scale)


def small_table(n=60, seed=0):
    rng = np.random.default_rng(seed)
    tax = Taxonomy(Node("Any", [Node("A", [Node("a1"), Node("a2")]), Node("B", [Node("b1"), Node("b2")])]), "g")
    leaves = [tax.index(v) for v in ("a1", "a2", "b1", "b2")]
    g = np.asarray(leaves)[rng.integers(0, 4, n)]
    x = rng.integers(0, 50, n).astype(float)
    attrs = (CategoricalAttribute("g", tax, g), NumericAttribute("x", x, 0.0, 50.0, integer=True))
    return DiffGenInput(attrs, "y", ("n", "y"), rng.integers(0, 2, n))


FACTOR = {"discrete Laplace": 1, "report-noisy-max (exponential noise)": 1}


@pytest.mark.parametrize("algorithm", ["diffgen", "diffgen-consistent", "maxgddp"])
@pytest.mark.parametrize("epsilon", [0.07, 0.1, 0.29, 0.57, 1.13, 0.3])
def test_diffgen_ledger_scales_imply_at_most_their_epsilon(algorithm, epsilon):
    noise = RecordingNoise(1)
    ledger = Ledger(epsilon)
    run_to_result(small_table(), preset(algorithm, epsilon, 3), noise, ledger)
    entries = [e for e in ledger.entries if e.scale is not None]
    assert entries
    for entry in entries:
        factor = FACTOR.get(entry.mechanism, 2)
        assert implied(factor, entry.sensitivity, entry.scale) <= entry.epsilon, entry
    # the noise sources got exactly the ledger's scales
    assert {scale for _, scale in noise.calls} <= {entry.scale for entry in entries}


@pytest.mark.parametrize("algorithm", ["flat", "hb", "sc", "luedp"])
@pytest.mark.parametrize("epsilon", [0.07, 0.1, 0.29, 1.13])
def test_interval_tree_paths_imply_at_most_epsilon(algorithm, epsilon):
    plan = plan_interval_tree(100, IntervalTreeParams(algorithm=algorithm, epsilon=epsilon))
    tree = plan.tree
    implied_eps = [Fraction(0) if not plan.noised[i] else 1 / Fraction(plan.scales[i]) for i in range(tree.n_nodes)]
    for leaf in np.flatnonzero(tree.is_leaf):
        total, i = Fraction(0), int(leaf)
        while i >= 0:
            total += implied_eps[i]
            i = int(tree.parents[i])
        assert total <= as_fraction(epsilon)
