"""Stream mechanisms (STREAMING.md S4, S5, S7): ledgers, analytic error against Monte-Carlo, ASM-DP's budget
on every run, spends before draws, the binary mechanism's error, the literal ASM's refusal of secure noise."""

import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from dpstudio.algorithms import stream_shp as shp
from dpstudio.algorithms.stream_baselines import binary, binary_levels
from dpstudio.algorithms.stream_runs import MECHANISMS, StreamInputError, StreamParams, release_stream, run_stream
from dpstudio.core.budget import Ledger
from dpstudio.core.events import BudgetSpent
from dpstudio.core.noise import SecureNoise, SimulationNoise
from dpstudio.core.range_error import laplace_variance
from dpstudio.core.stream_events import StreamValueReleased, WindowReleased


def drain(gen):
    """Run a mechanism generator; (events, its return value)."""
    events = []
    while True:
        try:
            events.append(next(gen))
        except StopIteration as stop:
            return events, stop.value


class CheckedNoise(SimulationNoise):
    """Simulation noise that asserts, at every draw, that a new ledger entry with this draw's scale was made
    since the previous draw (the spend is in the ledger before the value exists)."""

    def __init__(self, seed, ledger):
        super().__init__(seed)
        self.ledger, self.seen, self.draws = ledger, 0, 0

    def laplace_counts(self, counts, scale):
        assert len(self.ledger.entries) > self.seen, "a draw without a new ledger entry"
        assert self.ledger.entries[-1].scale == scale
        self.seen = len(self.ledger.entries)
        self.draws += 1
        return super().laplace_counts(counts, scale)


def test_tpm_ledger_has_one_line_per_timestamp_of_eps_over_t():
    ledger = Ledger(1)
    events, (z, v) = drain(shp.tpm(np.arange(7), 7, Fraction(1), SimulationNoise(0), ledger))
    assert [e.epsilon for e in ledger.entries] == [Fraction(1, 7)] * 7 and ledger.spent == 1
    assert {e.scale for e in ledger.entries} == {7.0} and np.all(v == laplace_variance(7.0))
    spends = [i for i, e in enumerate(events) if isinstance(e, BudgetSpent)]
    values = [i for i, e in enumerate(events) if isinstance(e, StreamValueReleased)]
    assert max(spends) < min(values)


def test_swm_ledger_has_one_line_per_window_and_sensitivity_w():
    ledger = Ledger(1)
    _, (y, v) = drain(shp.swm(np.arange(7), 4, 7, Fraction(1), SimulationNoise(0), ledger))
    assert y.shape == (4, 4) and len(ledger.entries) == 4 and ledger.spent == 1
    assert {(e.epsilon, e.sensitivity, e.scale) for e in ledger.entries} == {(Fraction(1, 4), 4.0, 16.0)}


def test_a_longer_horizon_spends_only_for_the_timestamps_given():
    ledger = Ledger(1)
    release_stream(np.ones(10, int), StreamParams("tpm", 1, 3, horizon=40), SimulationNoise(1), ledger)
    assert ledger.spent == Fraction(10, 40) and ledger.entries[0].scale == 40.0


def _window_errors(mech, x, w, eps, runs, grouping="none"):
    truth = sliding_window_view(x, w)
    work, mae = [], []
    for r in range(runs):
        p = StreamParams(mech, eps, w, grouping=grouping, published="real")  # the values the analytics describe
        res = release_stream(x, p, SimulationNoise(r), Ledger(eps))
        err = res.windows - truth
        work.append((err**2).sum(axis=1).mean())
        mae.append(np.abs(err).mean())
    return np.array(work), np.array(mae), res


@pytest.mark.parametrize("mech,scale", [("tpm", 60 / 2), ("swm", 10 * 51 / 2)])
def test_workload_error_and_mae_match_the_analytic_values(mech, scale):
    """Ungrouped: workload error = w v and per-count MAE = E|X| = 2q/(1-q^2) of the discrete Laplace
    distribution of the scale that runs (q = e^(-1/b)); Monte-Carlo mean within 5 standard errors."""
    x = np.random.default_rng(0).integers(0, 500, size=60)
    w, eps = 10, 2
    work, mae, res = _window_errors(mech, x, w, eps, 300)
    q = math.exp(-1 / scale)
    v = 2 * q / (1 - q) ** 2
    assert res.error["expected_window_laplace_error"] == pytest.approx(w * v)
    for measured, analytic in ((work, w * v), (mae, 2 * q / (1 - q * q))):
        se = measured.std(ddof=1) / math.sqrt(measured.size)
        assert abs(measured.mean() - analytic) < 5 * se, (measured.mean(), analytic, se)


def test_group_error_formula_and_noisefirst_bias_term_by_monte_carlo():
    """S2/S3: publishing the noisy mean of (4, 2, 6) with b = 7 has error SSE + 2 b^2 = 106; the SSE of the
    noisy values has expectation SSE + (n - 1) 2 b^2 = 204 (NoiseFirst's correction)."""
    rng = np.random.default_rng(3)
    x = np.array([4.0, 2.0, 6.0])
    z = x + rng.laplace(0, 7, size=(400_000, 3))
    err = ((x - z.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    sse_noisy = ((z - z.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    for m, expect in ((err, 106), (sse_noisy, 204)):
        assert abs(m.mean() - expect) < 5 * m.std() / math.sqrt(m.size)


@pytest.mark.parametrize("budget", ["gap", "fixed"])
def test_asm_dp_ledger_never_exceeds_epsilon(budget):
    rng = np.random.default_rng(11)
    for run in range(150):
        n = int(rng.integers(2, 80))
        horizon = n + int(rng.integers(0, 20))
        x = rng.integers(0, 1 + int(rng.integers(1, 10_000)), size=n)
        eps = Fraction(int(rng.integers(1, 40)), 10)
        ledger = Ledger(eps)
        noise = CheckedNoise(run, ledger)
        _, (out, var) = drain(
            shp.asm_dp(
                x,
                horizon,
                eps,
                noise,
                ledger,
                float(rng.choice([0.2, 0.4, 0.8])),
                budget,
                str(rng.choice(["wls", "origin", "hold"])),
            )
        )
        assert ledger.spent <= eps and noise.draws == len(ledger.entries)
        if budget == "gap":  # the gaps add up to t_last + 1
            last = int(ledger.entries[-1].step.split()[1])
            assert ledger.spent == eps * last / horizon
        assert np.all(np.isfinite(out)) and np.all(var > 0)


@pytest.mark.parametrize("mech", [m for m in MECHANISMS if m != "swm"])
def test_every_mechanism_spends_before_drawing_and_fits_epsilon(mech):
    x = np.random.default_rng(2).integers(0, 300, size=70)
    for seed in range(5):
        ledger = Ledger(Fraction(7, 10))
        res = release_stream(x, StreamParams(mech, Fraction(7, 10), 12), CheckedNoise(seed, ledger), ledger)
        assert ledger.spent <= Fraction(7, 10) and res.windows.shape == (59, 12)


def test_release_mode_events_carry_no_true_count():
    x = np.arange(1, 30)
    events = list(run_stream(x, StreamParams("asm", 1, 5), SecureNoise(), Ledger(1)))
    vals = [e for e in events if isinstance(e, StreamValueReleased)]
    assert len(vals) == 29 and all(e.true_count is None for e in vals)
    assert sum(isinstance(e, WindowReleased) for e in events) == 25
    taught = list(run_stream(x, StreamParams("asm", 1, 5), SimulationNoise(0), Ledger(1)))
    assert [e.true_count for e in taught if isinstance(e, StreamValueReleased)] == list(range(1, 30))


def test_binary_mechanism_variances_and_prefix_error():
    """Released count at t has variance (1 + lowest set bit of t) v; the noisy prefix sums' RMSE over all t
    at T = 2^10, eps = 1 is sqrt(2 (k+1)^2 (k 2^(k-1) + 1) / 2^k) = 34.79 (continuous; discrete a hair less)."""
    k, T = 10, 1024
    closed = math.sqrt(2 * (k + 1) ** 2 * (k * 2 ** (k - 1) + 1) / 2**k)
    assert closed == pytest.approx(34.79, abs=0.005) and binary_levels(T) == 11
    x = np.random.default_rng(0).integers(0, 5, size=T)
    errs = []
    for r in range(80):
        ledger = Ledger(1)
        _, (out, var) = drain(binary(x, T, Fraction(1), SimulationNoise(r), ledger))
        errs.append(np.cumsum(out) - np.cumsum(x))
    assert ledger.spent == 1 and len(ledger.entries) == T  # one p-sum per timestamp, L parallel levels
    v = laplace_variance(ledger.entries[0].scale)
    assert var[0] == v and var[1] == 2 * v and var[7] == 4 * v
    rmse = math.sqrt((np.array(errs) ** 2).mean())
    analytic = math.sqrt(np.mean([bin(t).count("1") * v for t in range(1, T + 1)]))
    assert analytic == pytest.approx(closed, rel=0.001)
    assert rmse == pytest.approx(analytic, rel=0.04)


def test_literal_asm_refuses_secure_noise_and_reads_the_truth():
    with pytest.raises(TypeError, match="not differentially private"):
        drain(shp.asm_literal(np.arange(10), 10, 1, SecureNoise()))
    events, (out, var, releases) = drain(shp.asm_literal(np.full(20, 50), 20, 1, SimulationNoise(0)))
    assert releases >= 1 and all(e.true_count == 50 for e in events)


@pytest.mark.parametrize(
    "params,length,message",
    [
        (StreamParams("tpm", 1, 11), 10, "window 11 is larger than the stream"),
        (StreamParams("tpm", 1, 3, horizon=5), 10, "horizon 5 is shorter than the stream"),
        (StreamParams("tpm", 0, 3), 10, "must be positive"),
        (StreamParams("tpm", 1, 3, grouping="noisefirst", groups=2), 10, "--groups goes with"),
        (StreamParams("tpm", 1, 3, grouping="seed", groups=4), 10, "between 1 and the window 3"),
    ],
)
def test_bad_parameters_are_refused(params, length, message):
    with pytest.raises(StreamInputError, match=message):
        params.validate(length)


@pytest.mark.parametrize("mech,grouping", [("tpm", "none"), ("swm", "noisefirst"), ("binary", "seed")])
def test_a_release_publishes_whole_non_negative_counts_by_default(mech, grouping):
    """Issue 34 item 1 for streams: the published windows are the computed values rounded and clamped at 0
    (the same noise: the computed values are recovered with ``published="real"``), and being counts they are
    never further from the true counts than the computed values by more than the rounding."""
    x = np.r_[np.zeros(20, int), np.arange(20) * 3]  # small counts: the noise makes many values negative
    truth = sliding_window_view(x.astype(float), 6)
    real = release_stream(
        x, StreamParams(mech, 0.5, 6, grouping=grouping, published="real"), SimulationNoise(4), Ledger(1)
    )
    whole = release_stream(x, StreamParams(mech, 0.5, 6, grouping=grouping), SimulationNoise(4), Ledger(1))
    assert (real.windows < 0).any()
    assert np.array_equal(whole.windows, np.maximum(np.rint(real.windows), 0))
    assert np.all(np.abs(whole.windows - truth) <= np.abs(real.windows - truth) + 0.5)
