"""The Stream panel's Compare computations (model/stream/compare.py): the public grids, the discrete Laplace
MAE against a direct sum of its pmf, and the analytic workload error and MAE of TPM and SWM against
Monte-Carlo runs of the real mechanisms."""

from __future__ import annotations

import numpy as np
import pytest

from dpstudio.model.stream.compare import (
    EPSILONS,
    MEASURED,
    MEASURES,
    analytic_errors,
    discrete_laplace_mae,
    grid,
    measured_errors,
    measured_point,
    window_grid,
)
from dpstudio.model.stream.view import analytic_window_errors

T = 60


@pytest.fixture(scope="module")
def counts():
    rng = np.random.default_rng(3)
    return (300 + 80 * np.sin(np.arange(T) / 5) + rng.integers(0, 30, T)).astype(np.int64)


def test_window_grid_is_public_and_capped_at_t_or_400():
    assert window_grid(1163) == [10, 20, 50, 100, 200, 300, 400]
    assert window_grid(400) == [10, 20, 50, 100, 200, 300, 400]
    assert window_grid(250) == [10, 20, 50, 100, 200, 250]
    assert window_grid(5) == [5]


def test_grid_by_axis():
    assert grid("epsilon", 1163, 52, 2.0) == [(52, e) for e in EPSILONS]
    assert grid("window", 250, 52, 2.0) == [(w, 2.0) for w in (10, 20, 50, 100, 200, 250)]
    with pytest.raises(ValueError, match="axis"):
        grid("groups", 250, 52, 2.0)


@pytest.mark.parametrize("scale", [0.3, 1.0, 2.5, 17.0, 400.0])
def test_discrete_laplace_mae_equals_the_sum_over_its_pmf(scale):
    k = np.arange(-60 * int(np.ceil(scale)) - 60, 60 * int(np.ceil(scale)) + 61)
    pmf = np.exp(-np.abs(k) / scale)
    pmf /= pmf.sum()
    assert discrete_laplace_mae(scale) == pytest.approx(float((np.abs(k) * pmf).sum()), rel=1e-9)
    # wide noise: close to the continuous Laplace E|X| = scale
    if scale >= 17:
        assert discrete_laplace_mae(scale) == pytest.approx(scale, rel=2e-3)


def test_analytic_workload_is_the_stream_views_window_error_and_binary_has_no_closed_form_mae():
    points = grid("window", T, 10, 1.0)
    got = analytic_errors("workload", T, points)
    for m in ("swm", "tpm", "binary"):
        assert got[m] == [analytic_window_errors((m,), T, w, (e,))[m][0] for w, e in points]
    assert set(analytic_errors("mae", T, points)) == {"swm", "tpm"}


def test_analytic_mae_by_hand():
    # TPM: b = T / eps; SWM: b = w (T - w + 1) / eps
    got = analytic_errors("mae", T, [(10, 2.0)])
    for (one,), b in ((got["tpm"], T / 2.0), (got["swm"], 10 * (T - 10 + 1) / 2.0)):
        q = np.exp(-1 / b)
        assert one == pytest.approx(2 * q / (1 - q * q), rel=1e-12)


@pytest.mark.parametrize("mechanism", ["tpm", "swm"])
@pytest.mark.parametrize("measure", list(MEASURES))
def test_analytic_against_monte_carlo_of_the_real_mechanism(counts, mechanism, measure):
    points = [(10, 0.5), (30, 2.0)]
    expected = analytic_errors(measure, T, points)[mechanism]
    for (w, eps), want in zip(points, expected):
        got = measured_point(counts, mechanism, w, eps, seeds=range(12))[measure]
        # TPM reuses 60 noises per run (720 in all), SWM draws fresh ones per window: 10 % holds for both
        assert got == pytest.approx(want, rel=0.10)


def test_measured_errors_reports_progress_for_every_point_and_both_measures(counts):
    points = grid("window", T, 10, 1.0)
    calls = []
    out = measured_errors(
        counts, points, mechanisms=("asm", "ba"), seeds=(0,), progress=lambda i, n, text: calls.append((i, n))
    )
    assert calls == [(i, 2 * len(points)) for i in range(2 * len(points))]
    assert set(out) == set(MEASURES)
    for measure in MEASURES:
        assert set(out[measure]) == {"asm", "ba"}
        assert all(len(v) == len(points) and all(y > 0 for y in v) for v in out[measure].values())
    assert out["mae"]["asm"][0] == measured_point(counts, "asm", 10, 1.0, (0,))["mae"]
    assert "uniform" not in MEASURED  # uniform runs TPM's noise: its analytic curve is TPM's
