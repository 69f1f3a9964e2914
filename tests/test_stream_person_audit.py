"""Person-level privacy audit of a stream counted from an event log with a per-bucket cap K (issue 23).

D is an event log; D' is D without every event of one person, who has more than K events in each of the
T weekly buckets. Counted with at most K events per person per bucket, the two streams differ by exactly K
in every bucket, the most one person can change them. TPM noises each count once with sensitivity K
(scale K T / eps), so the whole released window must keep the privacy loss between D and D' at or below
eps. The event is the one a likelihood-ratio attack would pick: every released count at or above D's true
count (each coordinate then favours D by the most it can). One-sided Clopper-Pearson bounds at level 1e-6
(tests/audit_bounds.py); simulation noise draws the release's distribution (discrete Laplace of the same
scale). The same audit run on a release calibrated for K = 1 (the mistake the cap guards against) must
find a loss above eps: the audit has the power to catch it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpstudio.algorithms.stream_runs import StreamParams, release_stream
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise
from dpstudio.io.event_stream import bucket_events
from tests.audit_bounds import loss_lower_bound

EPS, K, WEEKS, N, ALPHA = 1, 2, 4, 20000, 1e-6
START, END = "2024-01-01", "2024-01-29"


def _log(folder, with_heavy: bool):
    rng = np.random.default_rng(0)
    n = 600
    when = pd.Timestamp(START) + pd.to_timedelta(rng.integers(0, WEEKS * 7 * 24, n), unit="h")
    df = pd.DataFrame({"person": rng.integers(0, 80, n).astype(str), "when": when.astype(str)})
    if with_heavy:  # three events every week: more than the cap
        times = [pd.Timestamp(START) + pd.Timedelta(days=7 * w + d) for w in range(WEEKS) for d in (0, 2, 4)]
        df = pd.concat([df, pd.DataFrame({"person": "heavy", "when": [str(t) for t in times]})])
    path = folder / ("d.csv" if with_heavy else "d_without.csv")
    df.to_csv(path, index=False)
    return bucket_events(path, "person", "when", "week", START, END, cap=K)[0]


def _hits(counts, threshold, cap: int, seeds) -> int:
    params = StreamParams("tpm", EPS, WEEKS, grouping="none", cap=cap)
    hits = 0
    for seed in seeds:
        window = release_stream(counts, params, SimulationNoise(seed), Ledger(EPS)).windows[0]
        hits += bool(np.all(window >= threshold))
    return hits


def test_one_persons_events_cost_at_most_epsilon(tmp_path):
    d, d_without = _log(tmp_path, True), _log(tmp_path, False)
    np.testing.assert_array_equal(d - d_without, np.full(WEEKS, K))  # the cap: K per bucket, never more
    k1 = _hits(d, d, K, range(N))
    k2 = _hits(d_without, d, K, range(N, 2 * N))
    assert k1 > 100 and k2 > 20  # enough events to measure
    assert loss_lower_bound(k1, N, k2, N, ALPHA) <= EPS
    assert loss_lower_bound(k2, N, k1, N, ALPHA) <= EPS


def test_the_audit_catches_noise_calibrated_for_one_event(tmp_path):
    d, d_without = _log(tmp_path, True), _log(tmp_path, False)
    k1 = _hits(d, d, 1, range(N))
    k2 = _hits(d_without, d, 1, range(N, 2 * N))
    assert loss_lower_bound(k1, N, k2, N, ALPHA) > EPS
