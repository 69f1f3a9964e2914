"""ASM-DP's fixed-budget variant (A) once its samples are spent: the last sample is held instead of a fitted
line extrapolated to the end of the stream (measured on ILINet at n/T = 0.2, 40 seeds: half the runs worse
than publishing zeros, up to 30 times; holding: 0.30 of the zeros' error on average, at most 1.07)."""

from __future__ import annotations

import numpy as np
import pytest

from dpstudio.algorithms import stream_shp as shp
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise
from dpstudio.core.stream_events import StreamValueReleased
from dpstudio.io.stream_input import read_ilinet
from dpstudio.model.stream.session import bundled_ilinet


def _run(x, horizon, eps, seed, ratio):
    ledger = Ledger(eps)
    events = list(shp.asm_dp(x, horizon, eps, SimulationNoise(seed), ledger, ratio, "fixed", "wls"))
    values = np.array([e.value for e in events if isinstance(e, StreamValueReleased)])
    last_spend = max(int(e.step.split()[1]) for e in ledger.entries)  # "t N": the last sample's timestamp
    return values, last_spend


def test_after_the_last_sample_the_released_values_hold_it():
    """Whatever the stream does after the samples run out, nothing is extrapolated: the values after the last
    sample all equal one published sample, so they never leave the range the samples published."""
    rng = np.random.default_rng(4)
    exhausted = 0
    for seed in range(10):
        x = np.concatenate([np.linspace(0, 10_000, 200), rng.integers(0, 50, 800)]).astype(np.int64)
        values, last = _run(x, x.size, 1.0, seed, 0.05)
        if last >= x.size - 1:
            continue
        exhausted += 1
        after = values[last:]
        assert np.all(after == after[0]), seed
        assert abs(after[0]) <= np.abs(values[:last]).max() + 1e-9
    assert exhausted >= 5  # the case is met, not skipped


@pytest.mark.slow
def test_on_ilinet_it_never_does_worse_than_publishing_zeros():
    path = bundled_ilinet()
    if path is None:
        pytest.skip("no ILINet series")
    x = read_ilinet(path, "national", "ILITOTAL", "2002-W40")
    zeros = float((x.astype(float) ** 2).mean())
    ratios = []
    for seed in range(20):
        values, _ = _run(x, x.size, 1.0, seed, 0.2)
        ratios.append(float(((values - x) ** 2).mean()) / zeros)
    assert max(ratios) < 1.5 and float(np.mean(ratios)) < 0.5, ratios  # was up to 30 and 2.7 on average
