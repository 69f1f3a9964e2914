"""DiffGen's numeric split points lie on a public lattice (issue 8, item 1; Mironov 2012).

The issue's example: public bounds x = 0:10, D = {5.4, 7.25}, D' = D + {2.5}. Before the fix the split
point was a double drawn uniformly between consecutive data values, so which doubles could come out
depended on the data. Now it is a point of the lattice 0 + k * resolution whatever the data.
"""

from fractions import Fraction

import numpy as np
import pytest

from dpstudio.algorithms.diffgen import preset, run_diffgen, run_to_result
from dpstudio.algorithms.diffgen_input import DiffGenInput, NumericAttribute
from dpstudio.core.budget import Ledger
from dpstudio.core.events import BudgetSpent, CandidatesScored
from dpstudio.core.lattice import Lattice, LatticeError, NumericType, default_resolution
from dpstudio.core.noise import SecureNoise, SimulationNoise

D = ([5.4, 7.25], [0, 1])
D2 = ([5.4, 7.25, 2.5], [0, 1, 0])
RESOLUTION = Fraction(1, 1000)  # the default for bounds 0:10: 10^(floor(log10 10) - 4)
EPS = 1


def table(values, classes):
    x = NumericAttribute("x", np.asarray(values, float), 0.0, 10.0)  # continuous, default resolution
    return DiffGenInput((x,), "y", ("a", "b"), np.asarray(classes))


def root_split(data, noise) -> float:
    result = run_to_result(data, preset("diffgen", EPS, 1), noise, Ledger(EPS))
    lo, hi, _ = result.intervals["x"][1]  # the root's left child [0, s)
    return hi


def on_lattice(point: float) -> bool:
    """Independently of the code: the point is the double nearest k / 1000 for a whole k in 1..9999."""
    k = round(point * 1000)
    return 1 <= k <= 9999 and point == float(Fraction(k, 1000))


@pytest.mark.parametrize("records", [D, D2], ids=["D", "D+2.5"])
def test_every_secure_split_point_lies_on_the_public_lattice(records):
    points = [root_split(table(*records), SecureNoise()) for _ in range(300)]
    assert all(on_lattice(p) for p in points), [p for p in points if not on_lattice(p)][:5]
    assert len(set(points)) > 50  # they do spread over the lattice
    if records is D2:
        # the new record's cell boundary lies on the lattice too: points below 5.4 are possible for D and D'
        assert any(p < 5.4 for p in points)


def index_probabilities(values, classes, eps_split) -> np.ndarray:
    """P(split index k), k = 1..9999, of the exponential mechanism with the Max score (Du = 1), computed
    from the records directly: u(k) = max class count left of k/1000 + max class count right."""
    x, y = np.asarray(values), np.asarray(classes)
    c = np.arange(1, 10_000) / 1000
    left = x[None, :] < c[:, None]
    u = sum(
        np.maximum(((left == side) & (y == 0)).sum(1), ((left == side) & (y == 1)).sum(1)) for side in (True, False)
    )
    logw = float(eps_split) * u / 2.0
    w = np.exp(logw - logw.max())
    return w / w.sum()


def root_candidates(values, classes):
    evs = list(
        run_diffgen(table(values, classes), preset("diffgen", EPS, 1), SimulationNoise(0), Ledger(EPS), teaching=True)
    )
    scored = next(e for e in evs if isinstance(e, CandidatesScored))
    spent = next(e for e in evs if isinstance(e, BudgetSpent))
    return scored, spent.spend.epsilon


def test_index_probabilities_of_neighbours_are_within_e_to_the_eps_at_every_index():
    per_index = {}
    for name, (values, classes) in (("D", D), ("D'", D2)):
        scored, eps_split = root_candidates(values, classes)
        p = index_probabilities(values, classes, eps_split)
        # the engine's group probabilities are the sums of the independent per-index ones
        sizes = [int(lab.split()[0]) if "points" in lab else (0 if "no lattice" in lab else 1) for lab in scored.labels]
        assert sum(sizes) == 9999
        bounds = np.cumsum([0] + sizes)
        np.testing.assert_allclose(
            scored.probabilities, [p[a:b].sum() for a, b in zip(bounds, bounds[1:])], rtol=1e-9, atol=1e-15
        )
        per_index[name] = (p, eps_split)
    (p, eps_split), (p2, _) = per_index["D"], per_index["D'"]
    assert np.all(np.abs(np.log(p) - np.log(p2)) <= float(eps_split) + 1e-12)


def test_default_and_declared_lattices():
    assert default_resolution(0, 10) == Fraction(1, 1000)
    assert default_resolution(17, 91) == Fraction(1, 1000)
    assert default_resolution(0, 9.99) == Fraction(1, 10000)
    assert default_resolution(0, 100) == Fraction(1, 100)
    lat = Lattice.for_bounds(17, 91)
    assert (lat.kind, lat.resolution, lat.declared, lat.cells) == ("integer", 1, False, 74)
    lat = Lattice.for_bounds(0.5, 2.5, "continuous:0.1")
    assert lat.declared and lat.n_points == 19 and lat.point(3) == 0.8 and lat.point(19) == 2.4
    with pytest.raises(LatticeError, match="whole-number bounds"):
        Lattice.for_bounds(0.5, 2.5, "integer")
    with pytest.raises(LatticeError, match="too fine"):
        Lattice.for_bounds(0, 1e6, "continuous:1e-12")
    for bad in ("int", "integer:2", "continuous:0", "continuous:x"):
        with pytest.raises(LatticeError):
            NumericType.parse(bad)


def test_lattice_cells_agree_with_the_released_points():
    # x < c_k exactly when x's cell is below k: the rule a released split point is read by
    lat = Lattice.for_bounds(-1.3, 7.7, "continuous:0.1")
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-1.3, 7.7, 2000), lat.points(np.arange(lat.cells)), [7.7, -1.3]])
    x = np.concatenate([x, np.nextafter(x, -np.inf).clip(-1.3), np.nextafter(x, np.inf).clip(None, 7.7)])
    cell = lat.index(x)
    assert cell.min() >= 0 and cell.max() == lat.cells - 1
    for k in range(1, lat.cells):
        assert np.array_equal(x < lat.point(k), cell < k)
        assert lat.point(k) == float(Fraction(-13, 10) + k * Fraction(1, 10))
